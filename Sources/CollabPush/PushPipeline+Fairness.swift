import CollabCore
import CollabWire
import Logging

extension PushPipeline {
    /// A composed push on its way to its push service.
    struct Sending: Sendable {
        var entry: OutboxEntry
        var settings: PushSettings?
        /// The push's number when it was queued (see ``forget(accountId:)``).
        var sequence: Int64
    }

    /// A composed push the sending queue did not take: failed in the outbox with the reason, counted and
    /// logged.
    func dropped(_ entry: OutboxEntry, _ overflow: FairQueue<Sending>.Overflow) {
        let reason = overflow.reason(queue: "push", accountOption: "--push-queue-per-account")
        countDropped()
        outbox.settle(id: entry.id, accountId: entry.accountId, as: .failed) { entry in
            entry.attempts.append(.init(timestamp: clock.now(), sink: "queue", error: reason))
        }
        logger.warning("push dropped", metadata: ["push": "\(entry.pushId)", "account": "\(entry.accountId)", "reason": "\(reason)"])
    }

    /// A push the compose queue did not take: kept in the outbox as failed, uncomposed (no payload), with
    /// the reason; counted and logged like a push the sending queue did not take.
    func refuse(_ push: ResolvedPush, _ overflow: FairQueue<Sending>.Overflow) {
        let reason = overflow.reason(queue: "push", accountOption: "--push-queue-per-account")
        countDropped()
        var entry = OutboxEntry(uncomposed: push)
        entry.state = .failed
        entry.attempts.append(.init(timestamp: clock.now(), sink: "queue", error: reason))
        let stored = outbox.record(entry)
        outbox.countOutcome(.failed, accountId: stored.accountId)
        logger.warning("push dropped", metadata: ["push": "\(stored.pushId)", "account": "\(push.accountId)", "reason": "\(reason)"])
    }
}
