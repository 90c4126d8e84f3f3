import AsyncHTTPClient
import CollabPush
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// One signed POST to an interceptor's endpoint, as message and file-upload interceptors are both
/// called: the allowed-hosts check, the `x-unblu-signature-256` signature over the body, a timeout and
/// an answer read up to a bound. What the answer means is the caller's to decide.
struct InterceptorCall: Sendable {
    /// What became of a call.
    enum Outcome: Sendable {
        /// Not sent: the endpoint's host is not among the allowed webhook hosts.
        case refusedHost(String)
        /// Not sent: the body could not be encoded.
        case unencodable
        /// Sent, but no answer came in time (or the connection failed).
        case unreachable
        /// The endpoint answered: its status and its body (empty when longer than ``maximumAnswerBytes``).
        case answered(status: UInt, body: ByteBuffer)
    }

    /// The most of an answer that is read; an interceptor's decision is a small JSON object.
    static let maximumAnswerBytes = 64 * 1024

    let client: SharedHTTPClient
    /// The webhook hosts an interceptor may be called at; `nil` allows every host.
    let allowedHosts: Set<String>?
    let logger: Logger

    /// POSTs `body` as the `event` to an interceptor's `endpoint`, signed with its `secret`, and waits
    /// at most `timeout` for the answer.
    func post(_ body: some Encodable, event: String, endpoint: String, secret: String, timeout: Duration) async -> Outcome {
        if let host = SignedOutboundRequest.refusedHost(endpoint, allowedHosts: allowedHosts) { return .refusedHost(host) }
        guard let data = try? JSONBody.encoder.encode(body) else { return .unencodable }
        let request = SignedOutboundRequest.post(
            data, to: endpoint, event: event, signature: WebhookDispatcher.signature(of: data, secret: secret), userAgent: "mock-collab-interceptors"
        )
        do {
            let nanoseconds = Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            let response = try await client.execute(request, timeout: .nanoseconds(nanoseconds))
            let answer = try? await response.body.collect(upTo: Self.maximumAnswerBytes)
            return .answered(status: response.status.code, body: answer ?? ByteBuffer())
        } catch {
            logger.notice("interceptor did not answer", metadata: ["event": "\(event)", "endpoint": "\(RedactedURL.string(endpoint))"])
            return .unreachable
        }
    }
}
