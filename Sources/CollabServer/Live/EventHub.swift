import CollabCore
import CollabWire
import Synchronization

/// Who a live connection belongs to, and what it wants to see.
struct EventAudience: Sendable {
    var accountId: String
    var personId: String
    var isAgent: Bool
    /// Named areas an agent's queue is filtered on (`nil`: all).
    var namedAreaIds: Set<String>?
    /// The mobile client token of a visitor connection, so stopping that client closes it.
    var sessionKey: String?

    /// Whether this audience receives `event`.
    func receives(_ event: DomainEvent) -> Bool {
        guard event.accountId == accountId else { return false }
        if event.personIds.contains(personId) { return !event.agentsOnly || isAgent }
        guard isAgent else { return false }
        if event.kind == .agentPresenceChanged { return true }
        // Queue changes reach every agent whose queue shows (or showed) the conversation. Decliners
        // still get the update that takes the request out of their queue.
        return event.queueRecipients.contains { CollabState.queueShows($0, declinedBy: [], to: personId, filter: namedAreaIds) }
    }
}

/// An event with its id, as held in the replay window.
struct PublishedEvent: Sendable {
    var id: Int64
    var event: DomainEvent
}

/// Fans events out to live connections and keeps a bounded replay window for reconnects.
///
/// Back-pressure policy: every connection has a bounded buffer. A connection that falls so far behind
/// that its buffer overflows is closed (close code 4008); the client reconnects with the last id it saw
/// and is replayed what it missed from the window. Publishing never waits for a connection.
final class EventHub: Sendable {
    /// A live subscription.
    final class Subscription: Sendable {
        let id: Int
        let audience: EventAudience
        let stream: AsyncStream<PublishedEvent>
        let continuation: AsyncStream<PublishedEvent>.Continuation
        private let overflowed = Mutex(false)

        init(id: Int, audience: EventAudience, bufferSize: Int) {
            self.id = id
            self.audience = audience
            (stream, continuation) = AsyncStream.makeStream(of: PublishedEvent.self, bufferingPolicy: .bufferingOldest(bufferSize))
        }

        /// Whether the connection fell behind and was cut off.
        var didOverflow: Bool { overflowed.withLock { $0 } }

        func deliver(_ event: PublishedEvent) {
            if case .dropped = continuation.yield(event) {
                overflowed.withLock { $0 = true }
                continuation.finish()
            }
        }
    }

    private struct State {
        var ring: [PublishedEvent] = []
        var ringStart = 0
        var nextId: Int64
        var nextSubscriptionId = 1
        var subscriptions: [Int: Subscription] = [:]
        var observers: [@Sendable (PublishedEvent) -> Void] = []
    }

    private let state: Mutex<State>
    /// Events held for replay.
    let windowSize: Int
    /// Events a connection may have pending before it is cut off.
    let bufferSize: Int

    /// - Parameter firstId: Ids start here; derived from the start time so they keep increasing across restarts.
    init(firstId: Int64, windowSize: Int = 10_000, bufferSize: Int = 1_000) {
        self.state = Mutex(State(nextId: firstId))
        self.windowSize = max(1, windowSize)
        self.bufferSize = max(1, bufferSize)
    }

    /// Publishes events in order. Called by the repository once the changes are durable.
    func publish(_ events: [DomainEvent]) {
        state.withLock { state in
            for event in events {
                let published = PublishedEvent(id: state.nextId, event: event)
                state.nextId += 1
                if state.ring.count < windowSize {
                    state.ring.append(published)
                } else {
                    state.ring[state.ringStart] = published
                    state.ringStart = (state.ringStart + 1) % windowSize
                }
                for subscription in state.subscriptions.values where subscription.audience.receives(event) {
                    subscription.deliver(published)
                }
                for observer in state.observers { observer(published) }
            }
        }
    }

    /// Calls `observer` for every published event, synchronously and in order (webhooks queue them).
    func observe(_ observer: @escaping @Sendable (PublishedEvent) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Subscribes, replaying what the audience missed after `lastEventId`.
    /// - Returns: The subscription, the replayed events, and whether events were lost (the client
    ///   must resync), and the id the stream is at.
    func subscribe(_ audience: EventAudience, after lastEventId: Int64?) -> (subscription: Subscription, replay: [PublishedEvent], gap: Bool, position: Int64) {
        state.withLock { state in
            let subscription = Subscription(id: state.nextSubscriptionId, audience: audience, bufferSize: bufferSize)
            state.nextSubscriptionId += 1
            state.subscriptions[subscription.id] = subscription
            var replay: [PublishedEvent] = []
            var gap = false
            if let lastEventId {
                let ordered = Array(state.ring[state.ringStart...] + state.ring[..<state.ringStart])
                if let oldest = ordered.first?.id, lastEventId < oldest - 1 { gap = true }
                if lastEventId >= state.nextId { gap = true }
                replay = ordered.filter { $0.id > lastEventId && audience.receives($0.event) }
            }
            return (subscription, replay, gap, state.nextId - 1)
        }
    }

    /// Ends a subscription.
    func unsubscribe(_ subscription: Subscription) {
        state.withLock { _ = $0.subscriptions.removeValue(forKey: subscription.id) }
        subscription.continuation.finish()
    }

    /// Ends every subscription of a stopped client.
    func disconnect(sessionKey: String) {
        let ended: [Subscription] = state.withLock { state in
            let matching = state.subscriptions.values.filter { $0.audience.sessionKey == sessionKey }
            for subscription in matching { state.subscriptions[subscription.id] = nil }
            return matching
        }
        for subscription in ended { subscription.continuation.finish() }
    }

    /// Live connections.
    var connectionCount: Int { state.withLock { $0.subscriptions.count } }
}
