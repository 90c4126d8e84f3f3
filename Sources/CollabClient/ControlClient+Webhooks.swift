public import CollabWire

extension ControlClient {
    /// The webhook delivery log (bounded, oldest first), with every attempt's status or error and, for
    /// an attempt a `WEBHOOK_FAILURE` fault rule answered, the rule's id.
    /// - Parameters:
    ///   - account: Only this account's deliveries (its id or name).
    ///   - registrationId: Only this registration's deliveries.
    ///   - eventType: Only deliveries of this event.
    ///   - state: `PENDING`, `DELIVERED`, `FAILED` or `DROPPED`.
    public func webhookDeliveries(
        account: String? = nil, registrationId: String? = nil, eventType: String? = nil, state: String? = nil
    ) async throws(CollabClientError) -> [WebhookDelivery] {
        let query = Self.deliveryQuery(account: account, registrationId: registrationId, eventType: eventType, state: state)
        let page: WebhookDeliveryPage = try await transport.send("GET", "/_mock/v1/webhooks/deliveries", query: query)
        return page.deliveries
    }

    /// Waits for the oldest delivery matching the filter, already logged or yet to come: what a CI test
    /// uses instead of polling for its webhook (e.g. `eventType: "conversation.created", state: "DELIVERED"`).
    /// - Throws: ``CollabClientError`` with `.notFound` when none was logged within `timeoutMillis`.
    public func waitForWebhookDelivery(
        account: String? = nil, registrationId: String? = nil, eventType: String? = nil, state: String? = nil, timeoutMillis: Int = 10_000
    ) async throws(CollabClientError) -> WebhookDelivery {
        var query = Self.deliveryQuery(account: account, registrationId: registrationId, eventType: eventType, state: state)
        query.append(("timeoutMs", String(timeoutMillis)))
        return try await transport.send("GET", "/_mock/v1/webhooks/deliveries/wait", query: query)
    }

    private static func deliveryQuery(account: String?, registrationId: String?, eventType: String?, state: String?) -> [(String, String)] {
        var query: [(String, String)] = []
        if let account { query.append(("account", account)) }
        if let registrationId { query.append(("registrationId", registrationId)) }
        if let eventType { query.append(("eventType", eventType)) }
        if let state { query.append(("state", state)) }
        return query
    }
}
