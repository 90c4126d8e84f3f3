import AsyncHTTPClient
import CollabClient
import CollabCore
import CollabPush
import CollabSeed
import CollabTestSupport
import CollabWire
import Foundation
import NIOCore
import ServiceLifecycle
import Testing

@testable import CollabServer

/// A stopping server does not wait out the backoff of a failing webhook endpoint: the attempt made
/// stands, the delivery is failed with the reason, and the dispatcher stops at once. Before, a graceful
/// shutdown lasted as long as the backoffs (up to the shutdown deadline), once per stop of a test suite
/// whose seed registers an endpoint that does not answer.
@Suite("Deliveries when the server stops")
struct StoppingDeliveriesTests {
    @Test("a graceful shutdown during a webhook's backoff ends the delivery as FAILED after the attempt it made", .timeLimit(.minutes(5)))
    func webhookBackoffEndsAtShutdown() async throws {
        let endpoint = try await WebhookReceiver(failFirst: 100)
        let client = SharedHTTPClient(configuration: .init())
        let faults = FaultInjection(rules: FaultRules(), journal: RequestJournal(capacity: 10), clock: AdjustableClock())
        // A backoff of an hour: without the pause ending at shutdown, the service would not stop within the time limit.
        let settings = WebhookDispatcher.Settings(maxAttempts: 5, initialBackoff: .seconds(3_600))
        let dispatcher = WebhookDispatcher(settings: settings, client: client, botClient: client, faults: faults, logger: TestServer.logger)
        let group = ServiceGroup(configuration: .init(services: [dispatcher], gracefulShutdownSignals: [], logger: TestServer.logger))
        let running = Task { try await group.run() }
        dispatcher.enqueue(WebhookFairnessTests.deliveries(account: "acc", endpoint: endpoint.url, count: 1))
        _ = try await endpoint.wait(count: 1, timeout: .seconds(120))
        // The first attempt is logged before the backoff begins.
        let deadline = ContinuousClock.now + .seconds(120)
        while Self.deliveries(dispatcher).first?.attempts.count != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await group.triggerGracefulShutdown()
        try await running.value
        await client.shutdown()
        try await endpoint.stop()

        let delivery = try #require(Self.deliveries(dispatcher).first)
        #expect(delivery.state == "FAILED")
        #expect(delivery.attempts.map(\.status) == [500], "the one attempt made before the shutdown, no retry after it")
        #expect(delivery.attempts.last?.error?.contains("not retried: the server is stopping") == true)
        #expect(endpoint.all.count == 1)
    }

    @Test(
        "at shutdown an attempt in flight to an endpoint that never answers is cancelled after the grace, and queued ones are not started",
        .timeLimit(.minutes(5))
    )
    func hangingAttemptEndsAtShutdown() async throws {
        let silent = try await SilentEndpoint()
        let client = SharedHTTPClient(configuration: .init())
        let faults = FaultInjection(rules: FaultRules(), journal: RequestJournal(capacity: 10), clock: AdjustableClock())
        // A request timeout of an hour: without the cancellation, the service would not stop within the time limit.
        let settings = WebhookDispatcher.Settings(maxAttempts: 5, requestTimeout: .hours(1), maxConcurrentPerEndpoint: 2)
        let dispatcher = WebhookDispatcher(settings: settings, client: client, botClient: client, faults: faults, logger: TestServer.logger)
        let group = ServiceGroup(configuration: .init(services: [dispatcher], gracefulShutdownSignals: [], logger: TestServer.logger))
        let running = Task { try await group.run() }
        dispatcher.enqueue(WebhookFairnessTests.deliveries(account: "acc", endpoint: silent.url, count: 6))
        try await WebhookFairnessTests.waitForConnections(silent, 2)
        await group.triggerGracefulShutdown()
        try await running.value
        await client.shutdown()
        try await silent.stop()

        let deliveries = Self.deliveries(dispatcher)
        #expect(deliveries.count == 6 && deliveries.allSatisfy { $0.state == "FAILED" && $0.attempts.count == 1 })
        let errors = deliveries.compactMap { $0.attempts.first?.error }
        #expect(errors.filter { $0.hasSuffix(DeliveryShutdown.notRetried) }.count == 2, "the two in flight: cancelled, not retried")
        #expect(errors.filter { $0 == "\(DeliveryShutdown.Stopping())" }.count == 4, "the four queued: not started")
        #expect(silent.connectionCount == 2)
    }

    @Test(
        "a reset of the account stops its deliveries: waiting ones are dropped, one being retried makes no further attempt",
        .timeLimit(.minutes(5))
    )
    func resetStopsDeliveries() async throws {
        let failing = try await WebhookReceiver(failFirst: 100)
        let answering = try await WebhookReceiver()
        let client = SharedHTTPClient(configuration: .init())
        let faults = FaultInjection(rules: FaultRules(), journal: RequestJournal(capacity: 10), clock: AdjustableClock())
        let clock = ManualClock()
        let settings = WebhookDispatcher.Settings(maxAttempts: 5, initialBackoff: .seconds(30), maxConcurrentPerEndpoint: 1, retryClock: clock)
        let dispatcher = WebhookDispatcher(settings: settings, client: client, botClient: client, faults: faults, logger: TestServer.logger)
        let group = ServiceGroup(configuration: .init(services: [dispatcher], gracefulShutdownSignals: [], logger: TestServer.logger))
        let running = Task { try await group.run() }
        dispatcher.enqueue(WebhookFairnessTests.deliveries(account: "acc", endpoint: failing.url, count: 4))
        // The first is being retried (its first attempt logged), the other three wait behind it.
        let firstAttempt = await dispatcher.log.wait(for: .init(accountId: "acc", state: "PENDING"), timeout: .seconds(60))
        #expect(firstAttempt != nil)
        _ = try await failing.wait(count: 1, timeout: .seconds(60))
        try await clock.waitForSleepers(1, what: "the first delivery's backoff")
        #expect(dispatcher.counts(accountId: "acc").queued == 3)

        dispatcher.forget(accountId: "acc")
        #expect(dispatcher.counts(accountId: "acc").queued == 0, "the waiting deliveries are dropped")
        #expect(dispatcher.log.deliveries(matching: .init(accountId: "acc"), limit: 100).isEmpty)
        // The one in its backoff wakes, sees the reset and ends: nothing runs for the account any more.
        clock.advance(by: .seconds(30))
        let deadline = ContinuousClock.now + .seconds(60)
        while dispatcher.counts(accountId: "acc").running > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(dispatcher.counts(accountId: "acc").running == 0)
        #expect(failing.all.count == 1, "no attempt after the reset")
        #expect(dispatcher.log.deliveries(matching: .init(accountId: "acc"), limit: 100).isEmpty, "nor a record of one")

        // Another account's deliveries go on; a wait finds the delivery once it is logged as delivered.
        dispatcher.enqueue(WebhookFairnessTests.deliveries(account: "other", endpoint: answering.url, count: 1))
        let delivered = await dispatcher.log.wait(for: .init(accountId: "other", state: "DELIVERED"), timeout: .seconds(60))
        #expect(delivered?.attempts.map(\.status) == [204])
        #expect(await dispatcher.log.wait(for: .init(accountId: "acc"), timeout: .milliseconds(1)) == nil)

        await group.triggerGracefulShutdown()
        try await running.value
        await client.shutdown()
        try await failing.stop()
        try await answering.stop()
    }

    @Test("a seed announces nothing: neither the startup seed nor a reset sends the fixture's modification events")
    func seedsAnnounceNothing() async throws {
        let receiver = try await WebhookReceiver()
        let seed = try SeedLoader.parse(
            """
            accounts:
              - name: quiet
                users: [{username: quiet-admin, password: pw, role: ADMIN}]
                webhookRegistrations: [{name: all, endpoint: "\(receiver.url)", events: ["*"]}]
                entities: {teams: [{id: seeded-team, name: Seeded}]}
            """)
        try await TestServer.with(seed: seed) { server in
            _ = try await server.control.reset()
            _ = try await server.control.reset(account: "quiet")
            _ = try await server.admin("quiet-admin", "pw").transport.webAPI("POST", "teams/create", #"{"$_type":"Team","name":"After"}"#)
            // The barrier: the test's own change, delivered. Deliveries start in the order they were
            // queued, and each is logged as it starts, so a fixture's event would be logged by now.
            let delivered = try await server.control.waitForWebhookDelivery(account: "quiet", eventType: "team", state: "DELIVERED")
            let logged = try await server.control.webhookDeliveries(account: "quiet")
            #expect(logged.map(\.deliveryId) == [delivered.deliveryId], "only the test's own change: \(logged.map(\.eventType))")
            #expect(receiver.all.count == 1 && receiver.all.first?.headers["x-unblu-event"] == "team")
            let body = try JSONSerialization.jsonObject(with: try #require(receiver.all.first).body) as? [String: Any]
            #expect((body?["entity"] as? [String: Any])?["name"] as? String == "After" && body?["action"] as? String == "CREATE")
        }
        try await receiver.stop()
    }

    @Test("a webhook retry waits out its backoff on the delivery clock: one attempt until the clock passes it, the retry then")
    func retryWaitsOnTheDeliveryClock() async throws {
        let endpoint = try await WebhookReceiver(failFirst: 1)
        let client = SharedHTTPClient(configuration: .init())
        let faults = FaultInjection(rules: FaultRules(), journal: RequestJournal(capacity: 10), clock: AdjustableClock())
        let clock = ManualClock()
        let settings = WebhookDispatcher.Settings(maxAttempts: 5, initialBackoff: .seconds(30), retryClock: clock)
        let dispatcher = WebhookDispatcher(settings: settings, client: client, botClient: client, faults: faults, logger: TestServer.logger)
        let group = ServiceGroup(configuration: .init(services: [dispatcher], gracefulShutdownSignals: [], logger: TestServer.logger))
        let running = Task { try await group.run() }
        dispatcher.enqueue(WebhookFairnessTests.deliveries(account: "acc", endpoint: endpoint.url, count: 1))
        // The first attempt failed and is logged; the delivery waits on the clock for its retry.
        try await clock.waitForSleepers(1, what: "the delivery's backoff")
        #expect(Self.deliveries(dispatcher).first?.attempts.map(\.status) == [500])
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1, "29 s into a 30 s backoff, the retry still waits")
        #expect(endpoint.all.count == 1)
        clock.advance(by: .seconds(1))
        let delivered = await dispatcher.log.wait(for: .init(accountId: "acc", state: "DELIVERED"), timeout: .seconds(60))
        #expect(delivered?.attempts.map(\.status) == [500, 204])
        await group.triggerGracefulShutdown()
        try await running.value
        await client.shutdown()
        try await endpoint.stop()
    }

    static func deliveries(_ dispatcher: WebhookDispatcher) -> [WebhookDelivery] {
        dispatcher.log.deliveries(matching: .init(), limit: 10)
    }
}
