/// Each account's share of the outbound delivery budgets: webhook deliveries and pushes wait in a queue
/// per account and run at most this many at once per account, so one account's endpoint or push
/// service that hangs cannot hold back another account's (see docs/budgets.md).
public struct OutboundShares: Sendable, Equatable {
    /// Webhook deliveries of one account in flight at once (the dispatcher runs 32 in all);
    /// `serve --webhook-deliveries-per-account`.
    public var webhookDeliveries: Int
    /// Webhook deliveries to one endpoint in flight at once: half the account's share, at least 1.
    public var webhookDeliveriesPerEndpoint: Int { max(1, webhookDeliveries / 2) }
    /// Webhook deliveries of one account waiting (10,000 in all); `serve --webhook-queue-per-account`.
    public var webhookQueue: Int
    /// Pushes of one account in flight at once (64 in all); `serve --push-deliveries-per-account`.
    public var pushDeliveries: Int
    /// Pushes of one account waiting to be composed, and again to be sent (10,000 in all at each stage);
    /// `serve --push-queue-per-account`.
    public var pushQueue: Int

    /// A quarter of each server-wide budget by default.
    public init(webhookDeliveries: Int = 8, webhookQueue: Int = 2_500, pushDeliveries: Int = 16, pushQueue: Int = 2_500) {
        self.webhookDeliveries = max(1, webhookDeliveries)
        self.webhookQueue = max(1, webhookQueue)
        self.pushDeliveries = max(1, pushDeliveries)
        self.pushQueue = max(1, pushQueue)
    }
}
