import CollabWire
import Synchronization

/// The bounded log of webhook deliveries the control API shows, newest last.
final class WebhookDeliveryLog: Sendable {
    private struct State {
        var order: [String] = []
        var deliveries: [String: WebhookDelivery] = [:]
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 1_000) {
        self.capacity = max(1, capacity)
    }

    /// Records or replaces a delivery.
    func record(_ delivery: WebhookDelivery) {
        state.withLock { state in
            if state.deliveries[delivery.deliveryId] == nil {
                state.order.append(delivery.deliveryId)
                if state.order.count > capacity {
                    let evicted = state.order.removeFirst()
                    state.deliveries[evicted] = nil
                }
            }
            state.deliveries[delivery.deliveryId] = delivery
        }
    }

    /// Deliveries matching the filters, oldest first, at most `limit` (the newest).
    func deliveries(accountId: String? = nil, registrationId: String?, eventType: String?, deliveryState: String?, limit: Int) -> [WebhookDelivery] {
        let all = state.withLock { state in state.order.compactMap { state.deliveries[$0] } }
        let matching = all.filter {
            (accountId == nil || $0.accountId == accountId) && (registrationId == nil || $0.registrationId == registrationId) && (eventType == nil || $0.eventType == eventType)
                && (deliveryState == nil || $0.state == deliveryState)
        }
        return Array(matching.suffix(limit))
    }

    func clear() {
        state.withLock { $0 = State() }
    }
}
