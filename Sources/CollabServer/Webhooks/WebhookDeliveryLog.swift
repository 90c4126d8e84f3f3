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

    private struct State {
        var accounts: [String: AccountLog] = [:]
        /// Accounts by how many deliveries they hold (1...capacity), so the largest is found without a scan.
        var accountsBySize: [Int: Set<String>] = [:]
        /// The most deliveries any account holds (0 when the log is empty).
        var largestSize = 0
        var count = 0
        var nextSequence = 0

        /// Moves `account` from the bucket of its old size to that of its new one.
        mutating func resize(_ account: String, from old: Int, to new: Int) {
            if old > 0 {
                accountsBySize[old]?.remove(account)
                if accountsBySize[old]?.isEmpty == true { accountsBySize[old] = nil }
            }
            if new > 0 { accountsBySize[new, default: []].insert(account) }
            if new > largestSize { largestSize = new }
            while largestSize > 0, accountsBySize[largestSize] == nil { largestSize -= 1 }
        }
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

    /// Records or replaces a delivery.
    func record(_ delivery: WebhookDelivery) {
        state.withLock { state in
            let account = delivery.accountId
            if let known = state.accounts[account]?.deliveries[delivery.deliveryId] {
                state.accounts[account]?.deliveries[delivery.deliveryId] = (known.sequence, delivery)
                return
            }
            state.accounts[account, default: AccountLog()].order.append(delivery.deliveryId)
            state.accounts[account]?.deliveries[delivery.deliveryId] = (state.nextSequence, delivery)
            let size = state.accounts[account]?.order.count ?? 0
            state.resize(account, from: size - 1, to: size)
            state.nextSequence += 1
            state.count += 1
            if size > capacity {
                Self.evictOldest(of: account, in: &state)
            }
            if state.count > serverCapacity, let largest = state.accountsBySize[state.largestSize]?.first {
                Self.evictOldest(of: largest, in: &state)
            }
        }
    }

    private static func evictOldest(of account: String, in state: inout State) {
        guard let evicted = state.accounts[account]?.order.popFirst() else { return }
        state.accounts[account]?.deliveries[evicted] = nil
        state.count -= 1
        let size = state.accounts[account]?.order.count ?? 0
        state.resize(account, from: size + 1, to: size)
        if size == 0 { state.accounts[account] = nil }
    }

    /// Deliveries matching the filters, oldest first, at most `limit` (the newest).
    func deliveries(accountId: String? = nil, registrationId: String?, eventType: String?, deliveryState: String?, limit: Int) -> [WebhookDelivery] {
        let all = state.withLock { state in
            let logs = accountId.map { state.accounts[$0].map { [$0] } ?? [] } ?? Array(state.accounts.values)
            return logs.flatMap(\.deliveries.values).sorted { $0.sequence < $1.sequence }.map(\.delivery)
        }
        let matching = all.filter {
            (registrationId == nil || $0.registrationId == registrationId) && (eventType == nil || $0.eventType == eventType)
                && (deliveryState == nil || $0.state == deliveryState)
        }
        return Array(matching.suffix(limit))
    }

    func clear() {
        state.withLock { $0 = State() }
    }

    /// Forgets the deliveries of one account (an account reset).
    func removeAll(accountId: String) {
        state.withLock { state in
            guard let size = state.accounts[accountId]?.order.count else { return }
            state.accounts[accountId] = nil
            state.count -= size
            state.resize(accountId, from: size, to: 0)
        }
    }
}
