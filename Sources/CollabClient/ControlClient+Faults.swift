public import CollabWire

extension ControlClient {
    /// The fault rules in force (an account admin sees their own account's).
    public func faults() async throws(CollabClientError) -> [FaultRule] {
        let list: FaultRuleList = try await transport.send("GET", "/_mock/v1/faults")
        return list.rules
    }

    /// Adds a fault rule; the answer carries its id, account and expiry.
    public func addFault(_ rule: FaultRule) async throws(CollabClientError) -> FaultRule {
        try await transport.send("POST", "/_mock/v1/faults", body: rule)
    }

    /// Replaces a fault rule (its count of injections is kept).
    public func replaceFault(_ id: String, with rule: FaultRule) async throws(CollabClientError) -> FaultRule {
        try await transport.send("PUT", "/_mock/v1/faults/\(id)", body: rule)
    }

    /// Removes a fault rule.
    public func removeFault(_ id: String) async throws(CollabClientError) {
        try await transport.sendWithoutResult("DELETE", "/_mock/v1/faults/\(id)")
    }

    /// Removes every fault rule in the caller's scope.
    public func removeAllFaults() async throws(CollabClientError) {
        try await transport.sendWithoutResult("DELETE", "/_mock/v1/faults")
    }
}
