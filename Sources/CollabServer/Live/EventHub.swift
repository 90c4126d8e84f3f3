import CollabCore
import CollabStore
import CollabWire
import Foundation
import Metrics
import Synchronization

/// Who a live connection belongs to, and what it wants to see.
struct EventAudience: Sendable {
    var accountId: String
    var personId: String
    var isAgent: Bool
    /// Named areas an agent's queue is filtered on (`nil`: all).
    var namedAreaIds: Set<String>?
    /// The teams whose queue an agent sees (its team and the teams below), as they were when the
    /// connection opened: a change of team applies from the next connection.
    var teamIds: Set<String> = []
    /// The token the connection was opened with (a mobile client's, or an agent's session), so
    /// stopping that client or ending that session closes it.
    var sessionKey: String?
    /// The user behind an agent connection, so a changed role or a deletion closes it.
    var userId: String? = nil
    /// The public id of the started app the connection belongs to, for events meant for one client.
    var clientId: String? = nil

    /// Whether this audience receives `event`.
    func receives(_ event: DomainEvent) -> Bool {
        guard event.accountId == accountId else { return false }
        if let target = event.clientId { return target == clientId }
        if event.personIds.contains(personId) { return !event.agentsOnly || isAgent }
        guard isAgent else { return false }
        if event.kind == .agentPresenceChanged { return true }
        // Queue changes reach every agent whose queue shows (or showed) the conversation. Decliners
        // still get the update that takes the request out of their queue.
        return event.queueRecipients.contains { AccountState.queueShows($0, declinedBy: [], to: personId, filter: namedAreaIds, teams: teamIds) }
    }

    /// Whether an event may reach agents who are not among its persons (presence, queue changes).
    static func concernsAllAgents(_ event: DomainEvent) -> Bool {
        event.kind == .agentPresenceChanged || !event.queueRecipients.isEmpty
    }
}

/// A live event with its id and its wire form, encoded once for every subscriber and the replay window.
struct PublishedEvent: Sendable {
    var id: Int64
    var event: DomainEvent
    private let encoded = EncodedOnce()

    /// The `LiveEvent` JSON text sent to WebSockets: encoded when a connection first needs it (by the
    /// connection's writer, outside the hub's locks), then shared. An event nobody is connected to
    /// receive is never encoded.
    var text: String {
        encoded.value { String(decoding: (try? EventHub.encoder.encode(LiveEvent(id: id, event: event))) ?? Data(), as: UTF8.self) }
    }
}

/// A value made on first use, once, whoever asks first.
final class EncodedOnce: Sendable {
    private let cache = Mutex<String?>(nil)

    func value(_ make: () -> String) -> String {
        cache.withLock { cached in
            if let cached { return cached }
            let made = make()
            cached = made
            return made
        }
    }
}

/// Fans events out to live connections and keeps a bounded replay window for reconnects.
///
/// Each event is mapped and encoded once; the same text goes to every subscriber it concerns, found
/// through an index by account and person (agents of an account for queue and presence changes), so
/// publishing costs the connections an event reaches, not all of them.
///
/// Back-pressure policy: every connection has a bounded buffer. A connection that falls so far behind
/// that its buffer overflows is closed (close code 4008); the client reconnects with the last id it saw
/// and is replayed what it missed from the window. Publishing never waits for a connection.
///
/// Ids come with the events: the repository numbers live events in commit order (consecutively on one
/// server; from the log's sequence in a cluster, the same on every replica).
final class EventHub: Sendable {
    static let encoder = JSONEncoder()
    /// Open live connections, in `/metrics`.
    static let connectionGauge = Gauge(label: "mockcollab_live_connections")

    /// A live subscription.
    final class Subscription: Sendable {
        /// What a subscription's connection sends, in order.
        enum Item: Sendable {
            /// A published event.
            case event(PublishedEvent)
            /// A control message for this connection only (the answer to a client's `sync`), as text.
            case control(String)

            /// The text sent to the WebSocket.
            var text: String {
                switch self {
                case .event(let event): event.text
                case .control(let text): text
                }
            }
        }

        let id: Int
        let audience: EventAudience
        let stream: AsyncStream<Item>
        let continuation: AsyncStream<Item>.Continuation
        private let overflowed = Mutex(false)

        init(id: Int, audience: EventAudience, bufferSize: Int) {
            self.id = id
            self.audience = audience
            (stream, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingOldest(bufferSize))
        }

        /// Whether the connection fell behind and was cut off.
        var didOverflow: Bool { overflowed.withLock { $0 } }

        func deliver(_ event: PublishedEvent) {
            deliver(.event(event))
        }

        /// Queues a control message behind every event already delivered to this subscription. Events
        /// are delivered while they are published, before the request that caused them answers, so a
        /// client that receives the answer to its `sync` has received everything published before it.
        func deliverControl(_ text: String) {
            deliver(.control(text))
        }

        private func deliver(_ item: Item) {
            if case .dropped = continuation.yield(item) {
                overflowed.withLock { $0 = true }
                continuation.finish()
            }
        }
    }

    /// The subscriptions of one account, by person, with its agents apart.
    private struct AccountSubscribers {
        var byPerson: [String: Set<Int>] = [:]
        var agents: Set<Int> = []
        var all: Set<Int> = []
        var isEmpty: Bool { all.isEmpty }
    }

    /// One account's replay window: its last ``EventHub/windowSize`` events, oldest at `ringStart`.
    private struct Window {
        var ring: [PublishedEvent] = []
        var ringStart = 0
        /// The id of the newest event pushed out of the window: a client resuming from before it missed events.
        var lastEvicted: Int64

        mutating func append(_ event: PublishedEvent, size: Int) {
            if ring.count < size {
                ring.append(event)
            } else {
                lastEvicted = ring[ringStart].id
                ring[ringStart] = event
                ringStart = (ringStart + 1) % size
            }
        }

        /// The events after `id`, oldest first. Ids in a window increase (consecutive on one server, by
        /// log entry in a cluster), so a binary search finds the start.
        func events(after id: Int64) -> [PublishedEvent] {
            let count = ring.count
            func at(_ position: Int) -> PublishedEvent { ring[(ringStart + position) % count] }
            return ((0..<count).partitionIndex { at($0).id > id }..<count).map(at)
        }
    }

    private struct State {
        /// Each account's replay window, so one account's traffic never pushes out another's events.
        var windows: [String: Window] = [:]
        var nextId: Int64
        /// Where the stream stood when this server started: an account's window reaches back to it
        /// until it first drops an event.
        var startedAfter: Int64
        var nextSubscriptionId = 1
        var subscriptions: [Int: Subscription] = [:]
        var accounts: [String: AccountSubscribers] = [:]
        var bySessionKey: [String: Set<Int>] = [:]
        var byUser: [String: Set<Int>] = [:]
    }

    private let state: Mutex<State>
    /// Events held for replay, for each account.
    let windowSize: Int
    /// Events a connection may have pending before it is cut off.
    let bufferSize: Int
    /// Live connections one client and one account may hold.
    let socketLimits: LiveSocketLimits

    /// - Parameter firstId: The first id events will carry, until ``start(at:)`` says otherwise.
    init(firstId: Int64 = 1, windowSize: Int = 10_000, bufferSize: Int = 1_000, socketLimits: LiveSocketLimits = LiveSocketLimits()) {
        self.state = Mutex(State(nextId: firstId, startedAfter: firstId - 1))
        self.windowSize = max(1, windowSize)
        self.bufferSize = max(1, bufferSize)
        self.socketLimits = socketLimits
    }

    /// Starts at the committed stream's position (before anything is published): ids come from the
    /// repository, which numbers events in commit order.
    func start(at firstId: Int64) {
        state.withLock { state in
            state.nextId = firstId
            state.startedAfter = firstId - 1
        }
    }

    /// Publishes committed events, in commit order (the fan-out calls it from the commit path, before the
    /// write that committed them answers). Events no live client receives are skipped.
    func publish(_ events: [CommittedEvent]) {
        // Mapped once; encoded once, lazily, by the first connection that sends it.
        let live = events.compactMap { $0.event.isWebhookOnly ? nil : PublishedEvent(id: $0.id, event: $0.event) }
        guard let last = live.last else { return }
        state.withLock { state in
            state.nextId = max(state.nextId, last.id + 1)
            deliver(live, in: &state)
        }
    }

    /// Puts events in the replay window and hands them to the connections they concern.
    private func deliver(_ published: [PublishedEvent], in state: inout State) {
        for event in published {
            state.windows[event.event.accountId, default: Window(lastEvicted: state.startedAfter)].append(event, size: windowSize)
            guard let subscribers = state.accounts[event.event.accountId] else { continue }
            var candidates: Set<Int> = []
            for person in event.event.personIds { candidates.formUnion(subscribers.byPerson[person] ?? []) }
            if EventAudience.concernsAllAgents(event.event) { candidates.formUnion(subscribers.agents) }
            for id in candidates.sorted() {
                guard let subscription = state.subscriptions[id], subscription.audience.receives(event.event) else { continue }
                subscription.deliver(event)
            }
        }
    }

    /// Why `audience` may not open another live connection now (its client or its account holds as
    /// many as ``socketLimits`` allow), or `nil`: the check before a WebSocket upgrade.
    func refusal(for audience: EventAudience) -> CollabError? {
        state.withLock { state in refusal(for: audience, in: state) }
    }

    private func refusal(for audience: EventAudience, in state: State) -> CollabError? {
        let account = state.accounts[audience.accountId]
        // A client is its token (a started device, an agent's session); without one, its person.
        let clientCount = audience.sessionKey.map { state.bySessionKey[$0]?.count ?? 0 } ?? account?.byPerson[audience.personId]?.count ?? 0
        if clientCount >= socketLimits.perClient {
            return CollabError(
                .tooManyRequests, "this client holds \(clientCount) live sockets, the most it may (--max-live-per-client); close one first"
            )
        }
        if let count = account?.all.count, count >= socketLimits.perAccount {
            return CollabError(.tooManyRequests, "the account holds \(count) live sockets, the most it may (--max-live-per-account)")
        }
        return nil
    }

    /// Subscribes, replaying what the audience missed after `lastEventId`.
    /// - Returns: The subscription, the replayed events, and whether events were lost (the client
    ///   must resync), and the id the stream is at.
    /// - Throws: `TOO_MANY_REQUESTS` when the audience's client or account holds as many live
    ///   connections as it may (checked under the same lock that counts them).
    func subscribe(
        _ audience: EventAudience, after lastEventId: Int64?
    ) throws(CollabError) -> (subscription: Subscription, replay: [PublishedEvent], gap: Bool, position: Int64) {
        try state.withLock { state throws(CollabError) in
            if let refusal = refusal(for: audience, in: state) { throw refusal }
            let subscription = Subscription(id: state.nextSubscriptionId, audience: audience, bufferSize: bufferSize)
            state.nextSubscriptionId += 1
            state.subscriptions[subscription.id] = subscription
            var subscribers = state.accounts[audience.accountId] ?? AccountSubscribers()
            subscribers.all.insert(subscription.id)
            subscribers.byPerson[audience.personId, default: []].insert(subscription.id)
            if audience.isAgent { subscribers.agents.insert(subscription.id) }
            state.accounts[audience.accountId] = subscribers
            if let key = audience.sessionKey { state.bySessionKey[key, default: []].insert(subscription.id) }
            if let userId = audience.userId { state.byUser[userId, default: []].insert(subscription.id) }
            Self.connectionGauge.record(state.subscriptions.count)

            var replay: [PublishedEvent] = []
            var gap = false
            if let lastEventId {
                let window = state.windows[audience.accountId] ?? Window(lastEvicted: state.startedAfter)
                if lastEventId < window.lastEvicted { gap = true }
                if lastEventId >= state.nextId { gap = true }
                replay = window.events(after: lastEventId).filter { audience.receives($0.event) }
            }
            return (subscription, replay, gap, state.nextId - 1)
        }
    }

    /// Ends a subscription.
    func unsubscribe(_ subscription: Subscription) {
        state.withLock { state in Self.remove(subscription.id, from: &state) }
        subscription.continuation.finish()
    }

    /// Ends every subscription opened with a token (a stopped client, a closed or expired session).
    func disconnect(sessionKey: String) {
        end { state in state.bySessionKey[sessionKey] ?? [] }
    }

    /// Ends every subscription of a user (a changed role, a deletion, a new password).
    func disconnect(userId: String) {
        end { state in state.byUser[userId] ?? [] }
    }

    /// Ends every subscription of an account (its deletion).
    func disconnect(accountId: String) {
        end { state in state.accounts[accountId]?.all ?? [] }
    }

    private func end(_ select: (State) -> Set<Int>) {
        let ended: [Subscription] = state.withLock { state in
            let ids = select(state)
            let subscriptions = ids.compactMap { state.subscriptions[$0] }
            for id in ids { Self.remove(id, from: &state) }
            return subscriptions
        }
        for subscription in ended { subscription.continuation.finish() }
    }

    private static func remove(_ id: Int, from state: inout State) {
        guard let subscription = state.subscriptions.removeValue(forKey: id) else { return }
        connectionGauge.record(state.subscriptions.count)
        let audience = subscription.audience
        if var subscribers = state.accounts[audience.accountId] {
            subscribers.all.remove(id)
            subscribers.agents.remove(id)
            subscribers.byPerson[audience.personId]?.remove(id)
            if subscribers.byPerson[audience.personId]?.isEmpty == true { subscribers.byPerson[audience.personId] = nil }
            state.accounts[audience.accountId] = subscribers.isEmpty ? nil : subscribers
        }
        if let key = audience.sessionKey {
            state.bySessionKey[key]?.remove(id)
            if state.bySessionKey[key]?.isEmpty == true { state.bySessionKey[key] = nil }
        }
        if let userId = audience.userId {
            state.byUser[userId]?.remove(id)
            if state.byUser[userId]?.isEmpty == true { state.byUser[userId] = nil }
        }
    }

    /// Live connections.
    var connectionCount: Int { state.withLock { $0.subscriptions.count } }
}
