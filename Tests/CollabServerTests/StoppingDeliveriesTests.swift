import AsyncHTTPClient
import CollabCore
import CollabPush
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

    static func deliveries(_ dispatcher: WebhookDispatcher) -> [WebhookDelivery] {
        dispatcher.log.deliveries(registrationId: nil, eventType: nil, deliveryState: nil, limit: 10)
    }
}
