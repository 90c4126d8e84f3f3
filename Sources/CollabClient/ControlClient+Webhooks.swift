public import CollabWire

extension ControlClient {
    /// The webhook delivery log (bounded, newest first), with every attempt's status or error and, for
    /// an attempt a `WEBHOOK_FAILURE` fault rule answered, the rule's id.
    /// - Parameters:
    ///   - registrationId: Only this registration's deliveries.
    ///   - eventType: Only deliveries of this event.
    ///   - state: `PENDING`, `DELIVERED`, `FAILED` or `DROPPED`.
    public func webhookDeliveries(
        registrationId: String? = nil, eventType: String? = nil, state: String? = nil
    ) async throws(CollabClientError) -> [WebhookDelivery] {
        var query: [(String, String)] = []
        if let registrationId { query.append(("registrationId", registrationId)) }
        if let eventType { query.append(("eventType", eventType)) }
        if let state { query.append(("state", state)) }
        let page: WebhookDeliveryPage = try await transport.send("GET", "/_mock/v1/webhooks/deliveries", query: query)
        return page.deliveries
    }
}
