import CollabCore
import CollabPush
import CollabWire
import DequeModule
import Synchronization

/// The bounded log of webhook deliveries the control API shows, newest last.
///
/// Each account keeps its newest `capacity` deliveries, and all accounts together at most
/// `serverCapacity` (beyond it the account holding the most gives up its oldest): an account whose
/// deliveries fail or are dropped by the thousand pushes only its own entries out.
final class WebhookDeliveryLog: Sendable {
    private struct AccountLog {
        /// Delivery ids, oldest first.
        var order: Deque<String> = []
        var deliveries: [String: (sequence: Int, delivery: WebhookDelivery)] = [:]
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
        var all: Int
        var account: Int
    }

    private struct State {
        var epochAll = 0
        var epochByAccount: [String: Int] = [:]
        var waits = ParkedWaits<Filter, WebhookDelivery>()
        var accounts: [String: AccountLog] = [:]
        /// Accounts by how many deliveries they hold, so the largest is found without a scan.
        var ranking = SizeRanking()
        var count = 0
        var nextSequence = 0
    }

    private let state = Mutex(State())
    /// The states a delivery is in: waiting or being retried, delivered, failed for good, or never sent
    /// (a queue was full).
    static let states = ["PENDING", "DELIVERED", "FAILED", "DROPPED"]
    /// Deliveries kept per account (and the most one page shows).
    let capacity: Int
    /// Deliveries kept for all accounts together.
    let serverCapacity: Int

    init(capacity: Int = 1_000, serverCapacity: Int = 10_000) {
        self.capacity = max(1, capacity)
        self.serverCapacity = max(self.capacity, serverCapacity)
    }

    /// The epoch a delivery of `accountId` starts under.
    func epoch(of accountId: String) -> Epoch {
        state.withLock { Epoch(all: $0.epochAll, account: $0.epochByAccount[accountId] ?? 0) }
    }

    /// Records or replaces a delivery, unless its account was reset since `epoch` (then nothing is
    /// recorded and the answer is `false`: the delivery should stop). Wakes the waits it matches.
    @discardableResult
    func record(_ delivery: WebhookDelivery, epoch: Epoch? = nil) -> Bool {
        let (current, woken) = state.withLock { state -> (Bool, [CheckedContinuation<WebhookDelivery?, Never>]) in
            if let epoch, epoch != Epoch(all: state.epochAll, account: state.epochByAccount[delivery.accountId] ?? 0) { return (false, []) }
            Self.store(delivery, in: &state, capacity: capacity, serverCapacity: serverCapacity)
            return (true, state.waits.take { $0.matches(delivery) })
        }
        for waiter in woken { waiter.resume(returning: delivery) }
        return current
    }

    private static func store(_ delivery: WebhookDelivery, in state: inout State, capacity: Int, serverCapacity: Int) {
        let account = delivery.accountId
        if let known = state.accounts[account]?.deliveries[delivery.deliveryId] {
            state.accounts[account]?.deliveries[delivery.deliveryId] = (known.sequence, delivery)
            return
        }
        state.accounts[account, default: AccountLog()].order.append(delivery.deliveryId)
        state.accounts[account]?.deliveries[delivery.deliveryId] = (state.nextSequence, delivery)
        let size = state.accounts[account]?.order.count ?? 0
        state.ranking.set(account, size: size)
        state.nextSequence += 1
        state.count += 1
        if size > capacity {
            Self.evictOldest(of: account, in: &state)
        }
        if state.count > serverCapacity, let largest = state.ranking.largest {
            Self.evictOldest(of: largest, in: &state)
        }
    }

    /// The first delivery matching `filter`, oldest first (already logged or yet to come), or `nil`
    /// after `timeout`.
    func wait(for filter: Filter, timeout: Duration) async -> WebhookDelivery? {
        let id = state.withLock { $0.waits.makeId() }
        return await ParkedWaits<Filter, WebhookDelivery>.wait(
            timeout: timeout,
            parkUnlessFound: { continuation in
                self.state.withLock { state in
                    if let logged = Self.oldest(matching: filter, in: state) { return logged }
                    state.waits.park(id, filter: filter, continuation)
                    return nil
                }
            },
            expire: { self.state.withLock { $0.waits.take(id: id) } }
        )
    }

    /// The oldest logged delivery matching `filter` (within the account's log when it names one).
    private static func oldest(matching filter: Filter, in state: State) -> WebhookDelivery? {
        let logs = filter.accountId.map { state.accounts[$0].map { [$0] } ?? [] } ?? Array(state.accounts.values)
        return logs.flatMap(\.deliveries.values).filter { filter.matches($0.delivery) }.min { $0.sequence < $1.sequence }?.delivery
    }

    private static func evictOldest(of account: String, in state: inout State) {
        guard let evicted = state.accounts[account]?.order.popFirst() else { return }
        state.accounts[account]?.deliveries[evicted] = nil
        state.count -= 1
        let size = state.accounts[account]?.order.count ?? 0
        state.ranking.set(account, size: size)
        if size == 0 { state.accounts[account] = nil }
    }

    /// Deliveries matching `filter`, oldest first, at most `limit` (the newest).
    func deliveries(matching filter: Filter, limit: Int) -> [WebhookDelivery] {
        let all = state.withLock { state in
            let logs = filter.accountId.map { state.accounts[$0].map { [$0] } ?? [] } ?? Array(state.accounts.values)
            return logs.flatMap(\.deliveries.values).sorted { $0.sequence < $1.sequence }.map(\.delivery)
        }
        return Array(all.filter(filter.matches).suffix(limit))
    }

    /// Forgets every delivery; those still being retried stop (their records are dropped).
    func clear() {
        state.withLock { state in
            let (epoch, waits) = (state.epochAll + 1, state.waits)
            state = State()
            state.epochAll = epoch
            state.waits = waits
        }
    }

    /// Forgets the deliveries of one account (an account reset); its deliveries still being retried stop.
    func removeAll(accountId: String) {
        state.withLock { state in
            state.epochByAccount[accountId, default: 0] += 1
            guard let size = state.accounts[accountId]?.order.count else { return }
            state.accounts[accountId] = nil
            state.count -= size
            state.ranking.set(accountId, size: 0)
        }
    }
}
