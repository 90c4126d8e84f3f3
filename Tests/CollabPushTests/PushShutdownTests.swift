import CollabCore
import CollabTestSupport
import CollabWire
import Foundation
import ServiceLifecycle
import Testing

@testable import CollabPush

/// A stopping pipeline does not wait out a push's backoff: the attempt made stands, the push fails, and
/// the pipeline stops at once (a graceful shutdown used to last as long as the backoffs, up to its deadline).
@Suite("Push pipeline at shutdown")
struct PushShutdownTests {
    @Test("a graceful shutdown during a push's backoff fails the push after the attempt it made", .timeLimit(.minutes(5)))
    func backoffEndsAtShutdown() async throws {
        // An OAuth token endpoint that answers 500: each attempt fails at once and asks for a retry.
        let failing = try await WebhookReceiver(failFirst: 1_000)
        let unreachable = try PushFairnessTests.fcm("gone", tokenURL: failing.url, endpoint: failing.url)
        // A backoff of an hour: without the pause ending at shutdown, the service would not stop within the time limit
        // (which is there to fail a regression instead of hanging the suite; a passing run takes well under a second).
        let pipeline = PushPipeline(
            clock: PushPipelineTests.FixedClock(), settings: .init(maxAttempts: 5, initialBackoff: .seconds(3_600)),
            logger: PushPipelineTests.logger()
        )
        let group = ServiceGroup(configuration: .init(services: [pipeline], gracefulShutdownSignals: [], logger: PushPipelineTests.logger()))
        let running = Task { try await group.run() }
        pipeline.enqueue([try PushFairnessTests.push(account: "gone", index: 0, fcm: unreachable)])
        let deadline = ContinuousClock.now + .seconds(120)
        while pipeline.outbox.entries(matching: OutboxFilter()).first?.attempts.count != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await group.triggerGracefulShutdown()
        try await running.value
        try await failing.stop()

        let entry = try #require(pipeline.outbox.entries(matching: OutboxFilter()).first)
        #expect(entry.attempts.count == 1, "the one attempt made before the shutdown, no retry after it")
        #expect(entry.state == .failed)
        #expect(entry.attempts[0].error?.hasSuffix(DeliveryShutdown.notRetried) == true)
    }
}
