@testable import CollabCore
import CollabPush
@testable import CollabServer
import CollabTestSupport
import CollabWire
import Foundation
import Logging
import Synchronization
import Testing

/// An upload whose request is cancelled while an interceptor reviews its file (its client went away,
/// the server shuts down) stops waiting for the decision: nothing else would end that wait.
@Suite("File interception: cancelled uploads")
struct FileInterceptionCancelTests {
    /// `task`'s value, or `nil` once `limit` passed first.
    static func value<Value: Sendable>(of task: Task<Value, Never>, within limit: Duration) async -> Value? {
        let once = Once()
        return await withCheckedContinuation { continuation in
            Task {
                let value = await task.value
                if once.first() { continuation.resume(returning: value) }
            }
            Task {
                try? await Task.sleep(for: limit)
                if once.first() { continuation.resume(returning: nil) }
            }
        }
    }

    @Test("a review cancelled while the interceptor decides ends, rejected, and leaves nothing pending")
    func cancelledReview() async throws {
        let scanner = try await WebhookReceiver()
        let clients = OutboundClients()
        let call = InterceptorCall(client: clients.interceptors, allowedHosts: nil, logger: Logger(label: "interception-test"))
        let interception = FileInterception(call: call, clock: ContinuousClock())
        let interceptor = FileUploadInterceptor(
            id: "i", accountId: "a", name: "scanner", order: 0, mimeTypeRegex: nil, status: .active, endpoint: scanner.url, apiVersion: "V4",
            secret: "s", creationTimestamp: 0, modificationTimestamp: 0, version: 1)
        let file = FileAttachment(id: "f", name: "scan-me.png", mimeType: "image/png", size: 4, sha256: "")
        let review = Task {
            await interception.review(
                file, accountId: "a", conversationId: "c", uploader: nil, interceptor: interceptor, reviewer: .account,
                baseURL: "http://127.0.0.1", now: 0, timeout: .seconds(600))
        }
        // The interceptor has the event: the review waits for its decision, which never comes.
        _ = try await scanner.wait(count: 1)
        review.cancel()
        // Raced against a deadline: a wait that ignores the cancellation must fail this test, not hang it.
        let decision = await Self.value(of: review, within: .seconds(30))
        guard case .rejected? = decision else {
            Issue.record("a cancelled review is rejected, not \(decision)")
            return
        }
        #expect(interception.pendingCount == 0)
        await clients.interceptors.shutdown()
        try await scanner.stop()
    }
}

/// Whether a race has been decided: the first to ask wins.
private final class Once: Sendable {
    private let done = Mutex(false)

    func first() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
