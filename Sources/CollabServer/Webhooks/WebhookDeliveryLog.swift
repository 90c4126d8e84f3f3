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
        var count = 0
        var nextSequence = 0
    }

    private let state = Mutex(State())
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
            state.nextSequence += 1
            state.count += 1
            if (state.accounts[account]?.order.count ?? 0) > capacity {
                Self.evictOldest(of: account, in: &state)
            }
            if state.count > serverCapacity, let largest = state.accounts.max(by: { $0.value.order.count < $1.value.order.count })?.key {
                Self.evictOldest(of: largest, in: &state)
            }
        }
    }

    private static func evictOldest(of account: String, in state: inout State) {
        guard let evicted = state.accounts[account]?.order.popFirst() else { return }
        state.accounts[account]?.deliveries[evicted] = nil
        state.count -= 1
        if state.accounts[account]?.order.isEmpty == true { state.accounts[account] = nil }
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
}
