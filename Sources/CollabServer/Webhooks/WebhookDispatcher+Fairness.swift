import CollabCore
import CollabPush
import CollabWire
import Foundation
import Logging

extension WebhookDispatcher {
    /// The delivery queue's limits: deliveries wait per account and run per endpoint (see ``FairQueue``),
    /// so an endpoint that hangs holds only its own slots and one account at most its share.
    static func queueLimits(_ settings: Settings) -> FairQueue<ResolvedWebhook>.Limits {
        FairQueue.Limits(
            running: settings.maxConcurrentDeliveries, runningPerAccount: settings.maxConcurrentPerAccount,
            runningPerLane: settings.maxConcurrentPerEndpoint, queued: settings.queueCapacity, queuedPerAccount: settings.queueCapacityPerAccount
        )
    }

    /// A delivery the queue did not take: counted, logged, and in the delivery log as `DROPPED` with the
    /// reason, so the account's admin sees what never went out.
    func dropped(_ job: ResolvedWebhook, _ overflow: FairQueue<ResolvedWebhook>.Overflow) {
        let reason = overflow.reason(queue: "webhook", accountOption: "--webhook-queue-per-account")
        countDropped()
        logger.warning(
            "webhook delivery dropped",
            metadata: ["event": "\(job.eventType)", "registration": "\(job.registrationId)", "account": "\(job.accountId)", "reason": "\(reason)"]
        )
        var delivery = WebhookDelivery(
            deliveryId: UUID().uuidString.lowercased(), registrationId: job.registrationId, accountId: job.accountId, eventType: job.eventType,
            endpoint: job.endpoint, state: "DROPPED", attempts: [], createdAt: job.createdAt, bodyBytes: job.body.count
        )
        delivery.reason = reason
        log.record(delivery)
    }
}
