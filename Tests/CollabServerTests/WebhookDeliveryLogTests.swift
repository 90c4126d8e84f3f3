import CollabWire
import Testing

@testable import CollabServer

/// The webhook delivery log keeps each account's deliveries apart, bounded per account and in all.
@Suite("Webhook delivery log")
struct WebhookDeliveryLogTests {
    static func delivery(_ id: String, account: String, state: String = "PENDING") -> WebhookDelivery {
        WebhookDelivery(
            deliveryId: id, registrationId: "r-\(account)", accountId: account, eventType: "conversation.created", endpoint: "http://hook.test",
            state: state, attempts: [], createdAt: 0, bodyBytes: 10
        )
    }

    @Test("an account keeps its newest deliveries; past the server's ceiling the one holding the most gives up its oldest, one log visited")
    func bounds() {
        let log = WebhookDeliveryLog(capacity: 10, serverCapacity: 20)
        for index in 0..<15 { log.record(Self.delivery("n\(index)", account: "noisy")) }
        #expect(log.deliveries(matching: .init(accountId: "noisy"), limit: 100).map(\.deliveryId) == (5..<15).map { "n\($0)" })
        #expect(log.count == 10 && log.trimVisits == 0)
        for account in 0..<10 { log.record(Self.delivery("q\(account)", account: "quiet\(account)")) }
        #expect(log.count == 20 && log.trimVisits == 0)
        for account in 0..<3 { log.record(Self.delivery("l\(account)", account: "late\(account)")) }
        #expect(log.count == 20 && log.trimVisits == 3, "one log visited per delivery past the ceiling, not the 14 accounts'")
        #expect(log.deliveries(matching: .init(accountId: "noisy"), limit: 100).map(\.deliveryId) == (8..<15).map { "n\($0)" })
        #expect((0..<10).allSatisfy { log.deliveries(matching: .init(accountId: "quiet\($0)"), limit: 10).count == 1 })
        // Replacing a delivery keeps its place and adds nothing.
        log.record(Self.delivery("q0", account: "quiet0", state: "DELIVERED"))
        #expect(log.count == 20 && log.deliveries(matching: .init(accountId: "quiet0", state: "DELIVERED"), limit: 10).count == 1)
        let all = log.deliveries(matching: .init(), limit: 4)
        #expect(all.map(\.deliveryId) == ["q9", "l0", "l1", "l2"], "a read naming no account merges the newest, oldest first")
    }

    @Test("a reset makes the account's deliveries stale and empties its log alone")
    func resetMovesTheEpoch() {
        let log = WebhookDeliveryLog()
        let epoch = log.epoch(of: "a")
        #expect(log.record(Self.delivery("a1", account: "a"), epoch: epoch))
        log.record(Self.delivery("b1", account: "b"))
        log.removeAll(accountId: "a")
        #expect(!log.record(Self.delivery("a1", account: "a", state: "DELIVERED"), epoch: epoch), "a delivery started before the reset stops")
        #expect(log.deliveries(matching: .init(accountId: "a"), limit: 10).isEmpty && log.count == 1)
        let later = log.epoch(of: "b")
        log.clear()
        #expect(!log.record(Self.delivery("b2", account: "b"), epoch: later) && log.count == 0)
        #expect(log.record(Self.delivery("b3", account: "b"), epoch: log.epoch(of: "b")) && log.count == 1)
    }

    @Test("waits answer with a delivery already logged or recorded later, for one account or any")
    func waits() async {
        let log = WebhookDeliveryLog()
        log.record(Self.delivery("a1", account: "a"))
        #expect(await log.wait(for: .init(accountId: "a"), timeout: .seconds(30))?.deliveryId == "a1")
        async let forB = log.wait(for: .init(accountId: "b", state: "FAILED"), timeout: .seconds(30))
        async let forAny = log.wait(for: .init(state: "FAILED"), timeout: .seconds(30))
        // Whether the waits parked before this or not, each finds the delivery: logged, or announced.
        log.record(Self.delivery("b1", account: "b", state: "FAILED"))
        #expect(await forB?.deliveryId == "b1")
        #expect(await forAny?.deliveryId == "b1")
        #expect(await log.wait(for: .init(accountId: "c"), timeout: .milliseconds(1)) == nil)
    }
}
