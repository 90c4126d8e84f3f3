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
    @Test("a graceful shutdown during a push's backoff fails the push after the attempt it made", .timeLimit(.minutes(1)))
    func backoffEndsAtShutdown() async throws {
        // Nothing listens on port 9 here: each attempt fails at once and asks for a retry.
        let unreachable = try PushFairnessTests.fcm("gone", tokenURL: "http://127.0.0.1:9/token", endpoint: "http://127.0.0.1:9")
        // A backoff of an hour: without the pause ending at shutdown, the service would not stop within the time limit.
        let pipeline = PushPipeline(
            clock: PushPipelineTests.FixedClock(), settings: .init(maxAttempts: 5, initialBackoff: .seconds(3_600)),
            logger: PushPipelineTests.logger()
        )
        let group = ServiceGroup(configuration: .init(services: [pipeline], gracefulShutdownSignals: [], logger: PushPipelineTests.logger()))
        let running = Task { try await group.run() }
        pipeline.enqueue([try PushFairnessTests.push(account: "gone", index: 0, fcm: unreachable)])
        let deadline = ContinuousClock.now + .seconds(30)
        while pipeline.outbox.entries(matching: OutboxFilter()).first?.attempts.count != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await group.triggerGracefulShutdown()
        try await running.value

        let entry = try #require(pipeline.outbox.entries(matching: OutboxFilter()).first)
        #expect(entry.attempts.count == 1, "the one attempt made before the shutdown, no retry after it")
        #expect(entry.state == .failed)
        #expect(entry.attempts[0].error?.hasSuffix(DeliveryShutdown.notRetried) == true)
    }
}
