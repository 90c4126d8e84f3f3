import CollabCore
import CollabPush
import CollabWire
import DequeModule
import Synchronization

/// The bounded log of webhook deliveries the control API shows, newest last, kept per account.
///
/// Each account's deliveries sit in their own log behind their own lock, with the waits that name the
/// account, so a tenant whose deliveries fail by the thousand never waits on another's lock nor
/// pushes another's entries out. Each account keeps its newest `capacity` deliveries, and all accounts
/// together at most `serverCapacity` (beyond it the account holding the most gives up its oldest, found
/// by a ``SharedCeiling``).
final class WebhookDeliveryLog: Sendable {
    /// One account's deliveries, oldest first.
    private struct Entries: WaitableValues {
        /// Delivery ids, oldest first (their sequences increase along it).
        var order: Deque<String> = []
        var deliveries: [String: (sequence: Int, delivery: WebhookDelivery)] = [:]
        /// Moved on by a reset: a delivery started under an earlier epoch is stale.
        var epoch = 0
        var waits = ParkedWaits<Filter, WebhookDelivery>()

        /// Drops the oldest delivery; returns how many it dropped (0 or 1).
        mutating func dropOldest() -> Int {
            guard let evicted = order.popFirst() else { return 0 }
            deliveries[evicted] = nil
            return 1
        }

        /// The oldest delivery matching `filter`, with its sequence.
        func oldest(matching filter: Filter) -> (sequence: Int, delivery: WebhookDelivery)? {
            order.lazy.compactMap { deliveries[$0] }.first { filter.matches($0.delivery) }
        }

        func firstMatch(_ filter: Filter) -> WebhookDelivery? {
            oldest(matching: filter)?.delivery
        }

        /// The newest `limit` deliveries matching `filter`, newest first, with their sequences.
        func newest(matching filter: Filter, limit: Int) -> [(sequence: Int, delivery: WebhookDelivery)] {
            Array(order.reversed().lazy.compactMap { deliveries[$0] }.filter { filter.matches($0.delivery) }.prefix(limit))
        }
    }

    private final class AccountLog: Sendable {
        let accountId: String
        let entries = WaitingPart(Entries())

        init(accountId: String) {
            self.accountId = accountId
        }
    }

    /// Which deliveries a query or a wait is about.
    struct Filter: Sendable {
        var accountId: String?
        var registrationId: String?
        var eventType: String?
        var state: String?

        func matches(_ delivery: WebhookDelivery) -> Bool {
            (accountId == nil || delivery.accountId == accountId) && (registrationId == nil || delivery.registrationId == registrationId)
                && (eventType == nil || delivery.eventType == eventType) && (state == nil || delivery.state == state)
        }
    }

    /// What a delivery was started under: a reset of its account (or of all) since makes it stale, and
    /// its records are dropped.
    struct Epoch: Equatable, Sendable {
        var account: Int
    }

    private let accounts = AccountShards(keyed: { AccountLog(accountId: $0) })
    private let ceiling: SharedCeiling
    /// Orders deliveries across accounts; taken under the account's lock, so it rises along a log.
    private let nextSequence = Atomic<Int>(0)
    /// Waits that name no account.
    private let unscoped = UnscopedWaits<Filter, WebhookDelivery>()
    /// The states a delivery is in: waiting or being retried, delivered, failed for good, or never sent
    /// (a queue was full).
    static let states = ["PENDING", "DELIVERED", "FAILED", "DROPPED"]
    /// Deliveries kept per account (and the most one page shows).
    let capacity: Int
    /// - Parameters:
    ///   - capacity: Deliveries kept per account.
    ///   - serverCapacity: Deliveries kept for all accounts together (at least `capacity`).
    init(capacity: Int = 1_000, serverCapacity: Int = 10_000) {
        self.capacity = max(1, capacity)
        self.ceiling = SharedCeiling(limit: max(self.capacity, serverCapacity))
    }

    /// The epoch a delivery of `accountId` starts under.
    func epoch(of accountId: String) -> Epoch {
        Epoch(account: accounts.shard(accountId).entries.withLock { $0.epoch })
    }

    /// Records or replaces a delivery, unless its account was reset since `epoch` (then nothing is
    /// recorded and the answer is `false`: the delivery should stop). Wakes the waits it matches.
    @discardableResult
    func record(_ delivery: WebhookDelivery, epoch: Epoch? = nil) -> Bool {
        let log = accounts.shard(delivery.accountId)
        let outcome = log.entries.withLock { entries -> (added: Int, woken: [CheckedContinuation<WebhookDelivery?, Never>])? in
            if let epoch, epoch.account != entries.epoch { return nil }
            let woken = entries.waits.take { $0.matches(delivery) }
            if let known = entries.deliveries[delivery.deliveryId] {
                entries.deliveries[delivery.deliveryId] = (known.sequence, delivery)
                return (0, woken)
            }
            let before = entries.order.count
            entries.order.append(delivery.deliveryId)
            entries.deliveries[delivery.deliveryId] = (nextSequence.wrappingAdd(1, ordering: .relaxed).oldValue, delivery)
            let dropped = entries.order.count > capacity ? entries.dropOldest() : 0
            ceiling.rank(log.accountId, from: before, to: entries.order.count)
            return (1 - dropped, woken)
        }
        guard let outcome else { return false }
        ceiling.add(outcome.added) { accountId, excess in
            accounts.existing(accountId)?.entries.withLock { entries in
                let before = entries.order.count
                var dropped = 0
                while dropped < excess, entries.dropOldest() == 1 { dropped += 1 }
                ceiling.rank(accountId, from: before, to: entries.order.count)
                return dropped
            }
        }
        for waiter in outcome.woken + unscoped.take(matching: { $0.matches(delivery) }) { waiter.resume(returning: delivery) }
        return true
    }

    /// The first delivery matching `filter`, oldest first (already logged or yet to come), or `nil`
    /// after `timeout`.
    func wait(for filter: Filter, timeout: Duration) async -> WebhookDelivery? {
        if let accountId = filter.accountId { return await accounts.shard(accountId).entries.wait(for: filter, timeout: timeout) }
        return await unscoped.wait(for: filter, timeout: timeout) {
            let logged = self.accounts.shards(for: nil).compactMap { log in log.entries.withLock { $0.oldest(matching: filter) } }
            return logged.min { $0.sequence < $1.sequence }?.delivery
        }
    }

    /// Deliveries matching `filter`, oldest first, at most `limit` (the newest). A read naming an account
    /// reads its log alone; one naming none merges every log's newest by sequence.
    func deliveries(matching filter: Filter, limit: Int) -> [WebhookDelivery] {
        let limit = max(0, limit)
        let picks = accounts.shards(for: filter.accountId).flatMap { log in log.entries.withLock { $0.newest(matching: filter, limit: limit) } }
        return picks.sorted { $0.sequence < $1.sequence }.suffix(limit).map(\.delivery)
    }

    /// Forgets every delivery; those still being retried stop (their records are dropped). Waits stay parked.
    func clear() {
        for log in accounts.shards(for: nil) { reset(log) }
    }

    /// Forgets the deliveries of one account (an account reset); its deliveries still being retried stop.
    func removeAll(accountId: String) {
        reset(accounts.shard(accountId))
    }

    /// Empties one account's log and moves its epoch on.
    private func reset(_ log: AccountLog) {
        let removed = log.entries.withLock { entries in
            let removed = entries.order.count
            entries.order.removeAll()
            entries.deliveries.removeAll()
            entries.epoch += 1
            ceiling.rank(log.accountId, from: removed, to: 0)
            return removed
        }
        ceiling.release(removed)
    }

    /// Deliveries held, in all.
    var count: Int { ceiling.held }

    /// Parts visited to bring the log under ``serverCapacity`` since start (tests count it).
    var trimVisits: Int { ceiling.trimVisits }
}
