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

    /// The form of conversation views this audience is sent.
    var viewAudience: ViewAudience {
        isAgent ? .agent : .visitor
    }

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

/// A live event with its id and its wire forms, each encoded at most once for every subscriber and the
/// replay window (a visitors' form only where it differs).
struct PublishedEvent: Sendable {
    var id: Int64
    var event: DomainEvent
    private let encoded = EncodedOnce()
    /// The visitors' form, for an event whose conversation has hidden participants (the only events whose
    /// visitors' form differs).
    private let encodedForVisitors = EncodedOnce()

    /// The `LiveEvent` JSON text sent to `audience`'s WebSockets: encoded when a connection first needs it
    /// (by the connection's writer, outside the hub's locks), then shared by every connection that sees the
    /// same form. An event nobody is connected to receive is never encoded.
    func text(for audience: ViewAudience) -> String {
        guard audience == .visitor, event.conversation?.participants.contains(where: \.hidden) == true else {
            return encoded.value { encode(for: .agent) }
        }
        return encodedForVisitors.value { encode(for: .visitor) }
    }

    private func encode(for audience: ViewAudience) -> String {
        String(decoding: (try? EventHub.encoder.encode(LiveEvent(id: id, event: event, for: audience))) ?? Data(), as: UTF8.self)
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
/// Each event is mapped and encoded once per form (agents', and visitors' where a hidden participant
/// makes it differ); the same text goes to every subscriber of that form it concerns, found
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

            /// The text sent to a WebSocket of `audience`.
            func text(for audience: ViewAudience) -> String {
                switch self {
                case .event(let event): event.text(for: audience)
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

    /// One account's replay window: its last ``EventHub/windowSize`` events, oldest at `ringStart`.
    private struct Window {
        var ring: [PublishedEvent] = []
        var ringStart = 0
        /// The id of the newest event pushed out of the window (`nil` until one is: the window reaches
        /// back to where the stream stood when this server started): a client resuming from before it
        /// missed events.
        var lastEvicted: Int64?
        /// The id of the newest event in the window.
        var newest: Int64?

        mutating func append(_ event: PublishedEvent, size: Int) {
            newest = event.id
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

    /// One account's replay window and subscriptions, by person, with its agents apart, and by the token
    /// and the user they were opened with.
    private struct AccountPart {
        var window = Window()
        var subscriptions: [Int: Subscription] = [:]
        var byPerson: [String: Set<Int>] = [:]
        var agents: Set<Int> = []
        var bySessionKey: [String: Set<Int>] = [:]
        var byUser: [String: Set<Int>] = [:]

        mutating func add(_ subscription: Subscription) {
            let audience = subscription.audience
            subscriptions[subscription.id] = subscription
            byPerson[audience.personId, default: []].insert(subscription.id)
            if audience.isAgent { agents.insert(subscription.id) }
            if let key = audience.sessionKey { bySessionKey[key, default: []].insert(subscription.id) }
            if let userId = audience.userId { byUser[userId, default: []].insert(subscription.id) }
        }

        mutating func remove(_ id: Int) -> Subscription? {
            guard let subscription = subscriptions.removeValue(forKey: id) else { return nil }
            let audience = subscription.audience
            agents.remove(id)
            Self.remove(id, under: audience.personId, from: &byPerson)
            if let key = audience.sessionKey { Self.remove(id, under: key, from: &bySessionKey) }
            if let userId = audience.userId { Self.remove(id, under: userId, from: &byUser) }
            return subscription
        }

        private static func remove(_ id: Int, under key: String, from index: inout [String: Set<Int>]) {
            index[key]?.remove(id)
            if index[key]?.isEmpty == true { index[key] = nil }
        }
    }

    private final class AccountHub: Sendable {
        let part = Mutex(AccountPart())
    }

    /// The accounts a token's or a user's subscriptions are in, with how many each holds: so ending them
    /// visits those accounts alone. Touched when a connection opens or ends, never by publishing.
    private struct Owners {
        var bySessionKey: [String: [String: Int]] = [:]
        var byUser: [String: [String: Int]] = [:]

        mutating func change(_ audience: EventAudience, by delta: Int) {
            if let key = audience.sessionKey { Self.count(audience.accountId, under: key, by: delta, in: &bySessionKey) }
            if let userId = audience.userId { Self.count(audience.accountId, under: userId, by: delta, in: &byUser) }
        }

        private static func count(_ accountId: String, under key: String, by delta: Int, in index: inout [String: [String: Int]]) {
            let count = (index[key]?[accountId] ?? 0) + delta
            index[key, default: [:]][accountId] = count > 0 ? count : nil
            if index[key]?.isEmpty == true { index[key] = nil }
        }
    }

    /// Each account's part behind its own lock: publishing to one account never waits on another's.
    private let accounts = AccountShards { AccountHub() }
    private let owners = Mutex(Owners())
    /// The id the next event will carry at least.
    private let nextId: Atomic<Int64>
    /// Where the stream stood when this server started: an account's window reaches back to it until
    /// it first drops an event.
    private let startedAfter: Atomic<Int64>
    private let nextSubscriptionId = Atomic<Int>(1)
    /// Open connections. Counted and exported in one step: with the gauge set outside the count's lock,
    /// a connection closing as another opened could leave `/metrics` showing the older number.
    private let connections = Mutex(0)
    /// Events held for replay, for each account.
    let windowSize: Int
    /// Events a connection may have pending before it is cut off.
    let bufferSize: Int
    /// Live connections one client and one account may hold.
    let socketLimits: LiveSocketLimits

    /// - Parameter firstId: The first id events will carry, until ``start(at:)`` says otherwise.
    init(firstId: Int64 = 1, windowSize: Int = 10_000, bufferSize: Int = 1_000, socketLimits: LiveSocketLimits = LiveSocketLimits()) {
        self.nextId = Atomic(firstId)
        self.startedAfter = Atomic(firstId - 1)
        self.windowSize = max(1, windowSize)
        self.bufferSize = max(1, bufferSize)
        self.socketLimits = socketLimits
    }

    /// Starts at the committed stream's position (before anything is published): ids come from the
    /// repository, which numbers events in commit order.
    func start(at firstId: Int64) {
        nextId.store(firstId, ordering: .sequentiallyConsistent)
        startedAfter.store(firstId - 1, ordering: .sequentiallyConsistent)
    }

    /// Publishes committed events, in commit order (the fan-out calls it from the commit path, before the
    /// write that committed them answers). Events no live client receives are skipped.
    func publish(_ events: [CommittedEvent]) {
        // Mapped once; encoded once, lazily, by the first connection that sends it.
        let live = events.compactMap { $0.event.isWebhookOnly ? nil : PublishedEvent(id: $0.id, event: $0.event) }
        guard let last = live.last else { return }
        // The position moves on after delivery (a subscriber sees it only once every event below it is in
        // its account's window). A batch is one account's as a rule: each run of one account's events
        // takes that account's lock once.
        var start = live.startIndex
        while start < live.endIndex {
            let accountId = live[start].event.accountId
            let end = live[start...].firstIndex { $0.event.accountId != accountId } ?? live.endIndex
            accounts.shard(accountId).part.withLock { part in deliver(live[start..<end], in: &part) }
            start = end
        }
        nextId.max(last.id + 1, ordering: .sequentiallyConsistent)
    }

    /// Puts one account's events in its replay window and hands them to the connections they concern.
    private func deliver(_ published: ArraySlice<PublishedEvent>, in part: inout AccountPart) {
        for event in published {
            part.window.append(event, size: windowSize)
            guard !part.subscriptions.isEmpty else { continue }
            var candidates: Set<Int> = []
            for person in event.event.personIds { candidates.formUnion(part.byPerson[person] ?? []) }
            if EventAudience.concernsAllAgents(event.event) { candidates.formUnion(part.agents) }
            for id in candidates.sorted() {
                guard let subscription = part.subscriptions[id], subscription.audience.receives(event.event) else { continue }
                subscription.deliver(event)
            }
        }
    }

    /// Why `audience` may not open another live connection now (its client or its account holds as
    /// many as ``socketLimits`` allow), or `nil`: the check before a WebSocket upgrade.
    func refusal(for audience: EventAudience) -> CollabError? {
        accounts.existing(audience.accountId)?.part.withLock { part in refusal(for: audience, in: part) }
    }

    private func refusal(for audience: EventAudience, in part: AccountPart) -> CollabError? {
        // A client is its token (a started device, an agent's session); without one, its person.
        let clientCount = audience.sessionKey.map { part.bySessionKey[$0]?.count ?? 0 } ?? part.byPerson[audience.personId]?.count ?? 0
        if clientCount >= socketLimits.perClient {
            return CollabError(
                .tooManyRequests, "this client holds \(clientCount) live sockets, the most it may (--max-live-per-client); close one first"
            )
        }
        if part.subscriptions.count >= socketLimits.perAccount {
            let count = part.subscriptions.count
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
        let id = nextSubscriptionId.wrappingAdd(1, ordering: .relaxed).oldValue
        let subscription = Subscription(id: id, audience: audience, bufferSize: bufferSize)
        // Listed as an owner first, so ending the token's or user's subscriptions finds this account.
        owners.withLock { $0.change(audience, by: 1) }
        do {
            let (replay, gap, position) = try accounts.shard(audience.accountId).part.withLock { part throws(CollabError) in
                if let refusal = refusal(for: audience, in: part) { throw refusal }
                part.add(subscription)
                // Every event of the account up to here is in the window: the stream's position moves on
                // once a published batch has reached every account, and the window may hold one being published.
                let position = max(nextId.load(ordering: .sequentiallyConsistent) - 1, part.window.newest ?? .min)
                guard let lastEventId else { return ([PublishedEvent](), false, position) }
                let reachesBack = part.window.lastEvicted ?? startedAfter.load(ordering: .sequentiallyConsistent)
                let gap = lastEventId < reachesBack || lastEventId > position
                return (part.window.events(after: lastEventId).filter { audience.receives($0.event) }, gap, position)
            }
            countConnections(1)
            return (subscription, replay, gap, position)
        } catch {
            owners.withLock { $0.change(audience, by: -1) }
            throw error
        }
    }

    /// Ends a subscription.
    func unsubscribe(_ subscription: Subscription) {
        end(in: subscription.audience.accountId) { _ in [subscription.id] }
        subscription.continuation.finish()
    }

    /// Ends every subscription opened with a token (a stopped client, a closed or expired session).
    func disconnect(sessionKey: String) {
        for accountId in owners.withLock({ Array(($0.bySessionKey[sessionKey] ?? [:]).keys) }) {
            end(in: accountId) { $0.bySessionKey[sessionKey] ?? [] }
        }
    }

    /// Ends every subscription of a user (a changed role, a deletion, a new password).
    func disconnect(userId: String) {
        for accountId in owners.withLock({ Array(($0.byUser[userId] ?? [:]).keys) }) {
            end(in: accountId) { $0.byUser[userId] ?? [] }
        }
    }

    /// Ends every subscription of an account (its deletion).
    func disconnect(accountId: String) {
        end(in: accountId) { Set($0.subscriptions.keys) }
    }

    /// Ends every subscription of a deleted account and lets go of its part, replay window included.
    func forget(accountId: String) {
        disconnect(accountId: accountId)
        accounts.remove(accountId)
    }

    /// Whether the hub keeps a part for the account (made by its first subscription or event).
    func holdsPart(of accountId: String) -> Bool {
        accounts.existing(accountId) != nil
    }

    /// Ends the subscriptions of one account that `select` names.
    private func end(in accountId: String, _ select: (AccountPart) -> Set<Int>) {
        guard let hub = accounts.existing(accountId) else { return }
        let ended: [Subscription] = hub.part.withLock { part in select(part).compactMap { part.remove($0) } }
        guard !ended.isEmpty else { return }
        owners.withLock { owners in
            for subscription in ended { owners.change(subscription.audience, by: -1) }
        }
        countConnections(-ended.count)
        for subscription in ended { subscription.continuation.finish() }
    }

    private func countConnections(_ change: Int) {
        connections.withLock { count in
            count += change
            Self.connectionGauge.record(count)
        }
    }

    /// Live connections.
    var connectionCount: Int { connections.withLock { $0 } }
}
