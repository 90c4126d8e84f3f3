import AsyncHTTPClient
import CollabCore
import CollabPush
import CollabWire
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Asks file-upload interceptors for their decision, the vendor's way: a signed
/// `file_upload_interceptor.new_file` event carries a token; the backend answers later with
/// `approveFileUpload` or `rejectFileUpload` and that token. The upload waits for the decision, at most
/// the review timeout on the injected upload clock, after which it is rejected. Runs as a service so
/// uploads still waiting are rejected when the server stops.
final class FileInterception: Service {
    enum Decision: Sendable, Equatable {
        case approved
        case rejected(String)
    }

    /// Whose interceptor reviews a file: one of the upload's account, or a global one. Each answers
    /// through its own `approveFileUpload` / `rejectFileUpload`.
    enum Reviewer: Sendable, Equatable {
        case account
        case global
    }

    /// A file waiting for an interceptor's decision.
    struct Pending: Sendable {
        var accountId: String
        var reviewer: Reviewer
        var conversationId: String
        var file: FileAttachment
        var decision: Decision?
        var waiter: CheckedContinuation<Decision, Never>?
    }

    private let pending = Mutex<[String: Pending]>([:])
    private let call: InterceptorCall
    /// The clock the decision timeout runs on (``ServerConfiguration/uploadClock``).
    private let clock: any Clock<Duration>

    init(call: InterceptorCall, clock: any Clock<Duration>) {
        self.call = call
        self.clock = clock
    }

    /// Files waiting for a decision now.
    var pendingCount: Int { pending.withLock { $0.count } }

    /// Sends the new-file event to `interceptor` and waits for its decision, at most `timeout`.
    func review(
        _ file: FileAttachment, accountId: String, conversationId: String, uploader: WebPerson?, interceptor: FileUploadInterceptor,
        reviewer: Reviewer, baseURL: String, now: Int64, timeout: Duration
    ) async -> Decision {
        let token = EntityIDGenerator.system.makeSecret()
        pending.withLock { $0[token] = Pending(accountId: accountId, reviewer: reviewer, conversationId: conversationId, file: file) }
        defer { _ = pending.withLock { $0.removeValue(forKey: token) } }
        var event = WebInterceptorNewFileEvent(
            "file_upload_interceptor.new_file", timestamp: now, accountId: accountId, WebInterceptorNewFileFields()
        )
        event.apiToken = token
        event.name = file.name
        event.mimeType = file.mimeType
        event.length = file.size
        // The token goes in the query, which the journal and logs redact (`token`), never in the path.
        event.downloadLink = "\(baseURL)/app/rest/v4/fileuploadinterceptors/files?token=\(token)"
        event.source = "CONVERSATION"
        event.person = uploader
        event.conversationId = conversationId
        let clock = self.clock
        return await withTaskGroup(of: Void.self) { timer in
            // The timeout is a child task. A decision that comes first cancels it, and its resolve below
            // then finds the decision and does nothing; the upload's own cancellation (a client gone, a
            // shutdown) cancels it too, and then it ends the wait, which nothing else would.
            timer.addTask {
                let timedOut = (try? await clock.sleep(for: timeout)) != nil
                self.resolve(
                    token,
                    .rejected(
                        timedOut
                            ? "the interceptor '\(interceptor.name)' did not decide in time"
                            : "the upload was cancelled before the interceptor '\(interceptor.name)' decided"))
            }
            defer { timer.cancelAll() }
            if let failure = await send(event, to: interceptor) {
                return .rejected(failure)
            }
            return await decision(token)
        }
    }

    /// Waits for the decision on `token` (a pending entry must exist).
    private func decision(_ token: String) async -> Decision {
        await withCheckedContinuation { continuation in
            let ready: Decision? = pending.withLock { all in
                if let decision = all[token]?.decision { return decision }
                all[token]?.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Records a decision for a token whose pending file `decides` lets the caller decide; `false` when
    /// no such file waits.
    @discardableResult
    func resolve(_ token: String, _ decision: Decision, if decides: (Pending) -> Bool = { _ in true }) -> Bool {
        let waiter: CheckedContinuation<Decision, Never>?? = pending.withLock { all in
            guard var entry = all[token], decides(entry), entry.decision == nil else { return nil }
            entry.decision = decision
            let waiter = entry.waiter
            entry.waiter = nil
            all[token] = entry
            return .some(waiter)
        }
        guard let waiter else { return false }
        waiter?.resume(returning: decision)
        return true
    }

    /// The file a token lets an interceptor read, while its decision is pending.
    func pendingFile(_ token: String) -> Pending? {
        pending.withLock { all in all[token].flatMap { $0.decision == nil ? $0 : nil } }
    }

    /// POSTs the signed event; a failure message when it did not reach the endpoint with a 2xx.
    private func send(_ event: WebInterceptorNewFileEvent, to interceptor: FileUploadInterceptor) async -> String? {
        switch await call.post(event, event: event.eventType, endpoint: interceptor.endpoint, secret: interceptor.secret, timeout: .seconds(10)) {
        case .refusedHost(let host): "the interceptor's host '\(host)' is not in the allowed webhook hosts"
        case .unencodable: "the event could not be encoded"
        case .unreachable: "the interceptor '\(interceptor.name)' could not be reached"
        case .answered(let status, _) where !(200..<300).contains(status): "the interceptor '\(interceptor.name)' answered \(status)"
        case .answered: nil
        }
    }

    func run() async throws {
        try? await gracefulShutdown()
        // Uploads still waiting are rejected, so their requests can finish.
        let waiting = pending.withLock { all in Array(all.keys) }
        for token in waiting { resolve(token, .rejected("the server is shutting down")) }
    }
}
