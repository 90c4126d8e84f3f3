public import CollabWire

extension AgentClient {
    /// Starts an audio or video call to the visitor of an active conversation: their devices ring
    /// (a VoIP push, an alert push or an in-app visibility request, by app state).
    /// - Parameters:
    ///   - conversationId: The active conversation.
    ///   - callType: `AUDIO` or `VIDEO`.
    @discardableResult
    public func startCall(in conversationId: String, callType: String = "AUDIO") async throws(CollabClientError) -> CallView {
        try await transport.send("POST", "/agent/v1/conversations/\(conversationId)/calls", body: StartCallRequest(callType: callType))
    }

    /// A call of the agent's account.
    public func call(_ callId: String) async throws(CollabClientError) -> CallView {
        try await transport.send("GET", "/agent/v1/calls/\(callId)")
    }

    /// Hangs up (before an answer, the call counts as missed for the visitor).
    @discardableResult
    public func endCall(_ callId: String) async throws(CollabClientError) -> CallView {
        try await transport.send("POST", "/agent/v1/calls/\(callId)/end")
    }
}

extension AgentClient {
    /// Answers a call a visitor started to this agent.
    @discardableResult
    public func answerCall(_ callId: String) async throws(CollabClientError) -> CallView {
        try await transport.send("POST", "/agent/v1/calls/\(callId)/answer")
    }

    /// Declines a call a visitor started to this agent: it ends (DECLINED).
    @discardableResult
    public func declineCall(_ callId: String) async throws(CollabClientError) -> CallView {
        try await transport.send("POST", "/agent/v1/calls/\(callId)/decline")
    }
}
