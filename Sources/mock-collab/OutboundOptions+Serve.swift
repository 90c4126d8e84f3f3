import ArgumentParser
import CollabServer
import Foundation

/// `serve`'s shares of webhook deliveries and pushes each account has (see docs/budgets.md).
struct ServeOutboundOptions: ParsableArguments {

    @Option(
        help: """
            Webhook deliveries of one account in flight at once, of the dispatcher's 32; one endpoint gets half \
            (MOCK_COLLAB_WEBHOOK_DELIVERIES_PER_ACCOUNT).
            """
    )
    var webhookDeliveriesPerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_WEBHOOK_DELIVERIES_PER_ACCOUNT", 8)

    @Option(help: "Webhook deliveries of one account waiting; more are dropped and logged DROPPED (MOCK_COLLAB_WEBHOOK_QUEUE_PER_ACCOUNT).")
    var webhookQueuePerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_WEBHOOK_QUEUE_PER_ACCOUNT", 2_500)

    @Option(help: "Pushes of one account being sent at once, of the pipeline's 64 (MOCK_COLLAB_PUSH_DELIVERIES_PER_ACCOUNT).")
    var pushDeliveriesPerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_PUSH_DELIVERIES_PER_ACCOUNT", 16)

    @Option(help: "Pushes of one account waiting to be composed, and again to be sent; more fail in the outbox (MOCK_COLLAB_PUSH_QUEUE_PER_ACCOUNT).")
    var pushQueuePerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_PUSH_QUEUE_PER_ACCOUNT", 2_500)

    func validate() throws {
        guard (1...32).contains(webhookDeliveriesPerAccount) else { throw ValidationError("--webhook-deliveries-per-account must be 1 to 32") }
        guard (1...10_000).contains(webhookQueuePerAccount) else { throw ValidationError("--webhook-queue-per-account must be 1 to 10000") }
        guard (1...64).contains(pushDeliveriesPerAccount) else { throw ValidationError("--push-deliveries-per-account must be 1 to 64") }
        guard (1...10_000).contains(pushQueuePerAccount) else { throw ValidationError("--push-queue-per-account must be 1 to 10000") }
    }

    /// Puts the shares into `configuration`.
    func apply(to configuration: inout ServerConfiguration) {
        configuration.outboundShares = OutboundShares(
            webhookDeliveries: webhookDeliveriesPerAccount, webhookQueue: webhookQueuePerAccount, pushDeliveries: pushDeliveriesPerAccount,
            pushQueue: pushQueuePerAccount
        )
    }
}
