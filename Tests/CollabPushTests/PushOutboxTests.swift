
import CollabCore
@testable import CollabPush
import CollabWire
import Testing

/// The outbox on its own: a bounded ring with increasing ids, filters, waits and streams.
@Suite("Push outbox")
struct PushOutboxTests {
    static func entry(account: String = "acc", person: String = "person", device: String = "device", conversation: String = "conv") -> OutboxEntry {
        OutboxEntry(
            id: 0, pushId: "push", accountId: account, personId: person, deviceRecordId: "record-\(device)", deviceId: device, kind: .newMessage,
            transport: .apns, version: .notEncrypted, token: "token", topic: "com.example.app", pushType: "alert", priority: 10, collapseId: nil,
            keyId: nil, content: PushContent(type: .newMessage, title: "Agent", text: "hello", conversationId: conversation, timestamp: 1),
            payload: "{}", payloadBytes: 2, truncated: false, state: .recorded, attempts: [], createdAt: 1
        )
    }

    @Test("ids increase from 1; each account keeps its newest `capacity`; the count per account survives trimming and clearing")
    func ring() {
        let outbox = PushOutbox(capacity: 3)
        let ids = (0..<5).map { outbox.record(Self.entry(account: $0 < 4 ? "a" : "b")).id }
        #expect(ids == [1, 2, 3, 4, 5])
        #expect(outbox.entries(matching: OutboxFilter()).map(\.id) == [2, 3, 4, 5], "a's oldest went, b's one stays")
        #expect(outbox.count == 4 && outbox.count(accountId: "a") == 3)
        outbox.clear()
        #expect(outbox.count == 0)
        #expect(outbox.recordedCount(accountId: "a") == 4 && outbox.recordedCount(accountId: "b") == 1 && outbox.recordedCount(accountId: nil) == 5)
        #expect(outbox.record(Self.entry()).id == 6, "ids keep increasing after a clear")
        #expect(PushOutbox(capacity: 0).capacity == 1)
    }

    @Test("filters: account, person, device by its id or record id, conversation, state, after; a limit keeps the newest")
    func filters() {
        let outbox = PushOutbox()
        outbox.record(Self.entry(account: "a", person: "p1", device: "d1", conversation: "c1"))
        outbox.record(Self.entry(account: "a", person: "p2", device: "d2", conversation: "c2"))
        outbox.record(Self.entry(account: "b", person: "p1", device: "d1", conversation: "c1"))
        func ids(_ filter: OutboxFilter, limit: Int = 1_000) -> [Int64] { outbox.entries(matching: filter, limit: limit).map(\.id) }
        #expect(ids(OutboxFilter(accountId: "a")) == [1, 2])
        #expect(ids(OutboxFilter(accountId: "a", personId: "p1")) == [1])
        #expect(ids(OutboxFilter(deviceId: "record-d2")) == [2])
        #expect(ids(OutboxFilter(deviceId: "d1")) == [1, 3])
        #expect(ids(OutboxFilter(conversationId: "c2")) == [2])
        #expect(ids(OutboxFilter(after: 1)) == [2, 3])
        #expect(ids(OutboxFilter(), limit: 2) == [2, 3])
        #expect(ids(OutboxFilter(), limit: -1).isEmpty)
        outbox.update(id: 2, accountId: "a") { $0.state = .delivered }
        #expect(ids(OutboxFilter(state: .delivered)) == [2])
        #expect(ids(OutboxFilter(transport: .fcm)).isEmpty)
    }

    @Test("updates and `after` pages find entries by id across trimming and an account's removal; a trimmed id is a no-op")
    func lookupById() {
        let outbox = PushOutbox(capacity: 3)
        for number in 0..<8 { outbox.record(Self.entry(account: number.isMultiple(of: 2) ? "a" : "b")) }
        outbox.removeAll(accountId: "a")  // b's even ids are left: 4, 6, 8 (2 was trimmed)
        for id: Int64 in [4, 6, 8] { outbox.update(id: id, accountId: "b") { $0.state = .delivered } }
        outbox.update(id: 2, accountId: "b") { $0.state = .failed }  // trimmed
        outbox.update(id: 5, accountId: "a") { $0.state = .failed }  // removed
        outbox.update(id: 99, accountId: "b") { $0.state = .failed }  // never recorded
        #expect(outbox.entries(matching: OutboxFilter()).map(\.state) == [.delivered, .delivered, .delivered])
        #expect(outbox.entries(matching: OutboxFilter(after: 0)).map(\.id) == [4, 6, 8])
        #expect(outbox.entries(matching: OutboxFilter(after: 5)).map(\.id) == [6, 8])
        #expect(outbox.entries(matching: OutboxFilter(after: 6), limit: 1).map(\.id) == [8])
        #expect(outbox.entries(matching: OutboxFilter(after: 8)).isEmpty)
    }

    @Test("a wait returns an entry already there, one recorded later, or one an update brings to the state asked for")
    func waits() async {
        let outbox = PushOutbox()
        outbox.record(Self.entry(account: "a"))
        #expect(await outbox.wait(for: OutboxFilter(accountId: "a"), timeout: .seconds(30))?.id == 1)

        // Whether a wait parks before or after the entry arrives, it answers with it.
        async let later = outbox.wait(for: OutboxFilter(accountId: "b"), timeout: .seconds(30))
        async let delivered = outbox.wait(for: OutboxFilter(accountId: "a", state: .delivered), timeout: .seconds(30))
        outbox.record(Self.entry(account: "b"))
        outbox.update(id: 1, accountId: "a") { $0.state = .delivered }
        let (laterEntry, deliveredEntry) = await (later, delivered)
        #expect(laterEntry?.accountId == "b" && laterEntry?.id == 2)
        #expect(deliveredEntry?.id == 1 && deliveredEntry?.state == .delivered)
    }

    @Test("a wait with nothing to match ends after its timeout with nothing")
    func waitTimesOut() async {
        let outbox = PushOutbox()
        #expect(await outbox.wait(for: OutboxFilter(accountId: "nobody"), timeout: .milliseconds(1)) == nil)
    }

    @Test("a stream sees new and updated entries; unsubscribing and finishing end streams")
    func streams() async throws {
        let outbox = PushOutbox()
        let (id, stream) = try outbox.subscribe(accountId: nil)
        let (_, other) = try outbox.subscribe(accountId: "acc")
        #expect(outbox.subscriberCount == 2)
        outbox.record(Self.entry())
        outbox.update(id: 1, accountId: "acc") { $0.state = .pending }
        outbox.unsubscribe(id)
        var seen: [OutboxEntry.State] = []
        for await entry in stream { seen.append(entry.state) }
        #expect(seen == [.recorded, .pending])
        outbox.finishAll()
        #expect(outbox.subscriberCount == 0)
        var count = 0
        for await _ in other { count += 1 }
        #expect(count == 2)
    }

    @Test("an account's stream sees that account's entries alone; an account holds at most its share of streams")
    func streamsPerAccount() async throws {
        let outbox = PushOutbox()
        let (mine, stream) = try outbox.subscribe(accountId: "acc")
        outbox.record(Self.entry(account: "other"))
        outbox.record(Self.entry(account: "acc", person: "mine"))
        outbox.unsubscribe(mine)
        var seen: [String] = []
        for await entry in stream { seen.append(entry.personId) }
        #expect(seen == ["mine"], "the other account's push never reached it")

        let held = try (0..<PushOutbox.maxStreamsPerAccount).map { _ in try outbox.subscribe(accountId: "busy").id }
        #expect(throws: CollabError.self) { try outbox.subscribe(accountId: "busy") }
        #expect(try outbox.subscribe(accountId: "quiet").id >= 0, "another account has its own share")
        outbox.unsubscribe(held[0])
        #expect(try outbox.subscribe(accountId: "busy").id >= 0, "closing one frees a place")
        outbox.finishAll()
        #expect(outbox.subscriberCount == 0)
    }

    @Test("one account's flood never pushes out another's pushes; past four accounts' worth the largest gives up its oldest")
    func perAccount() {
        let outbox = PushOutbox(capacity: 10)
        outbox.record(Self.entry(account: "quiet"))
        for _ in 0..<100 { outbox.record(Self.entry(account: "noisy")) }
        #expect(outbox.entries(matching: OutboxFilter(accountId: "quiet")).map(\.id) == [1])
        #expect(outbox.count(accountId: "noisy") == 10 && outbox.recordedCount(accountId: "noisy") == 100)
        for account in 0..<5 {
            for _ in 0..<10 { outbox.record(Self.entry(account: "big\(account)")) }
        }
        #expect(outbox.count <= outbox.totalCapacity)
        #expect(outbox.count(accountId: "quiet") == 1, "the smallest account lost nothing")
        let newest = outbox.entries(matching: OutboxFilter(), limit: 15)
        #expect(newest.count == 15 && newest.map(\.id) == newest.map(\.id).sorted() && newest.last?.accountId == "big4")
        outbox.removeAll(accountId: "noisy")
        #expect(outbox.count(accountId: "noisy") == 0 && outbox.count(accountId: "quiet") == 1)
    }

    @Test("past the ceiling each push visits the one ring holding the most, however many accounts hold pushes")
    func trimVisitsTheLargestOnly() {
        let outbox = PushOutbox(capacity: 10)
        for account in 0..<30 { outbox.record(Self.entry(account: "small\(account)")) }
        let big = (0..<10).map { _ in outbox.record(Self.entry(account: "big")).id }
        #expect(outbox.count == outbox.totalCapacity && outbox.trimVisits == 0)
        // A push into a full ring drops that ring's oldest itself: the total does not grow.
        let newest = outbox.record(Self.entry(account: "big")).id
        #expect(outbox.trimVisits == 0 && outbox.count(accountId: "big") == 10)
        for account in 0..<5 { outbox.record(Self.entry(account: "late\(account)")) }
        #expect(outbox.trimVisits == 5, "one ring visited per push past the ceiling, not the 36 accounts'")
        #expect(outbox.count == outbox.totalCapacity)
        #expect(outbox.entries(matching: OutboxFilter(accountId: "big")).map(\.id) == Array(big[6...]) + [newest], "the largest gave up its oldest")
        #expect((0..<30).allSatisfy { outbox.count(accountId: "small\($0)") == 1 })
        #expect((0..<5).allSatisfy { outbox.count(accountId: "late\($0)") == 1 })
        // A reset account leaves the ranking: the next largest gives up its oldest.
        outbox.removeAll(accountId: "big")
        for _ in 0..<4 { outbox.record(Self.entry(account: "small0")) }
        outbox.record(Self.entry(account: "other"))
        #expect(outbox.count == outbox.totalCapacity && outbox.trimVisits == 5)
        outbox.record(Self.entry(account: "other2"))
        #expect(outbox.count(accountId: "small0") == 4 && outbox.count == outbox.totalCapacity && outbox.trimVisits == 6)
    }

    @Test("a wait naming no account answers with the oldest match already there, or a push of any account recorded or updated later")
    func waitAcrossAccounts() async {
        let outbox = PushOutbox()
        outbox.record(Self.entry(account: "a", person: "p1"))
        outbox.record(Self.entry(account: "b", person: "p1"))
        #expect(await outbox.wait(for: OutboxFilter(personId: "p1"), timeout: .seconds(30))?.id == 1)
        #expect(await outbox.wait(for: OutboxFilter(personId: "p1", after: 1), timeout: .seconds(30))?.id == 2)

        async let later = outbox.wait(for: OutboxFilter(personId: "p2"), timeout: .seconds(30))
        async let delivered = outbox.wait(for: OutboxFilter(state: .delivered), timeout: .seconds(30))
        outbox.record(Self.entry(account: "c", person: "p2"))
        outbox.update(id: 2, accountId: "b") { $0.state = .delivered }
        let (laterEntry, deliveredEntry) = await (later, delivered)
        #expect(laterEntry?.accountId == "c" && laterEntry?.id == 3)
        #expect(deliveredEntry?.id == 2 && deliveredEntry?.state == .delivered)
        #expect(await outbox.wait(for: OutboxFilter(personId: "nobody"), timeout: .milliseconds(1)) == nil)
    }
}
