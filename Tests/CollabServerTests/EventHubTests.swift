import CollabCore
import CollabStore
import Testing

@testable import CollabServer

@Suite("Event hub")
struct EventHubTests {
    static func event(
        _ kind: DomainEvent.Kind = .newMessage, account: String = "acc", persons: Set<String> = ["visitor"], queue: Set<ConversationRecipient> = []
    ) -> DomainEvent {
        DomainEvent(kind: kind, accountId: account, timestamp: 1, personIds: persons, queueRecipients: queue)
    }

    /// `count` events numbered from `first`, as the repository commits them.
    static func committed(_ count: Int, from first: Int64) -> [CommittedEvent] {
        (0..<count).map { CommittedEvent(id: first + Int64($0), event: event()) }
    }

    /// Whether the subscription's stream was finished (a probe is refused).
    static func ended(_ subscription: EventHub.Subscription) -> Bool {
        if case .terminated = subscription.continuation.yield(.control("probe")) { return true }
        return false
    }

    let visitor = EventAudience(accountId: "acc", personId: "visitor", isAgent: false, namedAreaIds: nil, sessionKey: "token")

    @Test("a slow consumer is cut off when its buffer overflows, and resumes from the window without loss")
    func slowConsumer() async throws {
        let hub = EventHub(firstId: 100, windowSize: 1_000, bufferSize: 5)
        let (subscription, replay, gap, position) = try hub.subscribe(visitor, after: nil)
        #expect(replay.isEmpty)
        #expect(!gap)
        #expect(position == 99)
        hub.publish(Self.committed(20, from: 100))
        #expect(subscription.didOverflow, "publishing never waits: the reader that fell behind is cut off")
        var received: [Int64] = []
        for await item in subscription.stream {
            if case .event(let event) = item { received.append(event.id) }
        }
        #expect(received == [100, 101, 102, 103, 104], "the buffered events are still delivered, then the stream ends")
        hub.unsubscribe(subscription)

        let resumed = try hub.subscribe(visitor, after: received.last)
        #expect(!resumed.gap)
        #expect(resumed.replay.map(\.id) == Array(105...119))
        hub.unsubscribe(resumed.subscription)
    }

    @Test("live sockets are capped per client and per account, counted under the account's lock; closing one frees its place")
    func socketLimits() throws {
        let hub = EventHub(firstId: 1, socketLimits: LiveSocketLimits(perClient: 2, perAccount: 3))
        let first = try hub.subscribe(visitor, after: nil)
        _ = try hub.subscribe(visitor, after: nil)
        #expect(hub.refusal(for: visitor)?.kind == .tooManyRequests)
        #expect(throws: CollabError.self) { _ = try hub.subscribe(visitor, after: nil) }
        let other = EventAudience(accountId: "acc", personId: "other", isAgent: false, namedAreaIds: nil, sessionKey: "other-token")
        _ = try hub.subscribe(other, after: nil)
        let third = EventAudience(accountId: "acc", personId: "third", isAgent: false, namedAreaIds: nil, sessionKey: "third-token")
        #expect(hub.refusal(for: third)?.message.contains("--max-live-per-account") == true)
        let elsewhere = EventAudience(accountId: "elsewhere", personId: "x", isAgent: false, namedAreaIds: nil, sessionKey: "x-token")
        #expect(hub.refusal(for: elsewhere) == nil, "another account has its own budget")
        hub.unsubscribe(first.subscription)
        #expect(hub.refusal(for: visitor) == nil && hub.refusal(for: third) == nil)
    }

    @Test("resuming from before the window reports a gap")
    func gap() throws {
        let hub = EventHub(firstId: 1, windowSize: 10, bufferSize: 100)
        hub.publish(Self.committed(25, from: 1))
        let late = try hub.subscribe(visitor, after: 3)
        #expect(late.gap)
        #expect(late.replay.map(\.id) == Array(16...25))
        let fine = try hub.subscribe(visitor, after: 20)
        #expect(!fine.gap)
        #expect(fine.replay.map(\.id) == [21, 22, 23, 24, 25])
        let future = try hub.subscribe(visitor, after: 999)
        #expect(future.gap, "an id the server never issued (a restart) also means resync")
    }

    @Test("each account has its own replay window: another account's flood pushes out none of its events")
    func windowPerAccount() throws {
        let hub = EventHub(firstId: 1, windowSize: 10, bufferSize: 100)
        hub.publish([CommittedEvent(id: 1, event: Self.event()), CommittedEvent(id: 2, event: Self.event())])
        hub.publish((3...102).map { CommittedEvent(id: Int64($0), event: Self.event(account: "noisy")) })
        let resumed = try hub.subscribe(visitor, after: 0)
        #expect(!resumed.gap, "the quiet account's window still reaches back to the start")
        #expect(resumed.replay.map(\.id) == [1, 2])
        let caughtUp = try hub.subscribe(visitor, after: 2)
        #expect(!caughtUp.gap && caughtUp.replay.isEmpty, "the noisy account's events are not this account's gap")
        let noisy = EventAudience(accountId: "noisy", personId: "visitor", isAgent: false, namedAreaIds: nil, sessionKey: "noisy-token")
        let behind = try hub.subscribe(noisy, after: 50)
        #expect(behind.gap && behind.replay.map(\.id) == Array(93...102), "the noisy account keeps its own last 10")
    }

    @Test("audiences: participants, queue agents by area filter, other accounts never")
    func audiences() {
        let areaA = ConversationRecipient(type: .namedArea, id: "A")
        let agentOnA = EventAudience(accountId: "acc", personId: "agent1", isAgent: true, namedAreaIds: ["A"], sessionKey: nil)
        let agentOnB = EventAudience(accountId: "acc", personId: "agent2", isAgent: true, namedAreaIds: ["B"], sessionKey: nil)
        let foreignAgent = EventAudience(accountId: "other", personId: "agent3", isAgent: true, namedAreaIds: nil, sessionKey: nil)
        let queued = Self.event(.conversationQueued, persons: ["visitor"], queue: [areaA])
        #expect(visitor.receives(queued))
        #expect(agentOnA.receives(queued))
        #expect(!agentOnB.receives(queued))
        #expect(!foreignAgent.receives(queued))
        var internalNote = Self.event(persons: ["visitor", "agent1"])
        internalNote.agentsOnly = true
        #expect(!visitor.receives(internalNote))
        #expect(agentOnA.receives(internalNote))
        let otherVisitor = EventAudience(accountId: "acc", personId: "someone", isAgent: false, namedAreaIds: nil, sessionKey: "t2")
        #expect(!otherVisitor.receives(queued))
    }

    @Test("ending a token's or a user's connections ends theirs alone, in whichever account they are; an account's deletion ends its own")
    func disconnects() throws {
        let hub = EventHub(firstId: 1)
        let agent = EventAudience(accountId: "acc", personId: "agent", isAgent: true, namedAreaIds: nil, sessionKey: "session", userId: "user")
        let elsewhere = EventAudience(
            accountId: "other", personId: "agent", isAgent: true, namedAreaIds: nil, sessionKey: "session-2", userId: "user-2")
        let subscriptions = try [visitor, visitor, agent, elsewhere].map { try hub.subscribe($0, after: nil).subscription }
        #expect(hub.connectionCount == 4)
        hub.disconnect(sessionKey: "token")
        #expect(hub.connectionCount == 2 && Self.ended(subscriptions[0]) && !Self.ended(subscriptions[2]))
        hub.disconnect(userId: "user")
        #expect(hub.connectionCount == 1 && Self.ended(subscriptions[2]) && !Self.ended(subscriptions[3]))
        hub.publish([CommittedEvent(id: 1, event: Self.event(.agentPresenceChanged, account: "other", persons: []))])
        hub.disconnect(accountId: "acc")
        #expect(hub.connectionCount == 1, "another account's deletion ends nothing here")
        hub.disconnect(accountId: "other")
        #expect(hub.connectionCount == 0)
        #expect(try hub.subscribe(visitor, after: nil).position == 1, "the position counts every account's events")
    }
}
