public import CollabWire
import Crypto
public import Foundation
import Synchronization

/// Uploads co-browsing frames like the SDK does: only when the screen changed, and never faster than
/// the session's rate limit (the same `FrameRateLimiter` rule the server enforces).
///
/// The uploader does not mask private areas in the image (it has no image codec); it declares them
/// with every frame, and the server keeps the declarations so tests can check them.
public final class CoBrowsingUploader: Sendable {
    /// What became of a submitted frame.
    public enum Outcome: Sendable, Equatable {
        /// Sent; the server's answer.
        case sent(FrameAck)
        /// Not sent: identical to the last sent frame.
        case unchanged
        /// Not sent: the rate limit says wait this long (ms).
        case tooEarly(Int64)
    }

    /// The started visitor client whose live socket carries the frames.
    public let client: VisitorClient
    /// The co-browsing session the frames belong to.
    public let sessionId: String
    private let state: Mutex<State>
    private let now: @Sendable () -> Int64

    private struct State {
        var limiter = FrameRateLimiter()
        var maxFps: Int
        var lastHash: SHA256.Digest?
        var sequence: UInt32 = 0
    }

    /// Creates an uploader for one session; nothing is sent before ``submit(image:width:height:privateAreas:)``.
    /// - Parameters:
    ///   - client: The started visitor client.
    ///   - sessionId: The co-browsing session, accepted or started by the visitor.
    ///   - maxFps: The session's limit (`CoBrowsingSessionView.maxFps`).
    ///   - now: Milliseconds since the epoch; the system clock by default.
    public init(
        client: VisitorClient, sessionId: String, maxFps: Int, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.client = client
        self.sessionId = sessionId
        self.state = Mutex(State(maxFps: maxFps))
        self.now = now
    }

    /// Follows a changed rate limit.
    public func setMaxFps(_ fps: Int) {
        state.withLock { $0.maxFps = fps }
    }

    /// Sends `image` (JPEG or PNG) if it changed and is due.
    public func submit(image: Data, width: Int, height: Int, privateAreas: [PrivateArea] = []) async throws(CollabClientError) -> Outcome {
        let hash = SHA256.hash(data: image)
        let time = now()
        enum Decision { case send(UInt32), skip(Outcome) }
        let decision: Decision = state.withLock { state in
            if state.lastHash == hash { return .skip(.unchanged) }
            if let wait = state.limiter.admit(at: time, fps: state.maxFps) { return .skip(.tooEarly(wait)) }
            state.lastHash = hash
            state.sequence &+= 1
            return .send(state.sequence)
        }
        let sequence: UInt32
        switch decision {
        case .skip(let outcome): return outcome
        case .send(let value): sequence = value
        }
        var headers = [
            ("x-frame-sequence", String(sequence)), ("x-frame-capture-time", String(time)), ("x-frame-width", String(width)),
            ("x-frame-height", String(height)),
        ]
        if !privateAreas.isEmpty, let json = try? JSONEncoder().encode(privateAreas) {
            headers.append(("x-private-areas", String(decoding: json, as: UTF8.self)))
        }
        let contentType = FrameImageFormat(signatureOf: image)?.rawValue ?? "application/octet-stream"
        let response = try await client.transport.raw(
            "POST", "/mobile/v1/cobrowsing/\(sessionId)/frames", body: image, contentType: contentType, headers: headers
        )
        if response.status == 429, let ack = try? JSONDecoder().decode(FrameAck.self, from: response.body) {
            return .sent(ack)
        }
        try HTTPTransport.check(response, method: "POST", path: "frames")
        guard let ack = try? JSONDecoder().decode(FrameAck.self, from: response.body) else {
            throw CollabClientError(code: .decoding, status: response.status, message: "cannot decode the frame acknowledgement")
        }
        return .sent(ack)
    }
}

extension VisitorClient {
    /// Starts sharing the screen in a conversation.
    public func startCoBrowsing(in conversationId: String) async throws(CollabClientError) -> CoBrowsingSessionView {
        try await transport.send("POST", "/mobile/v1/conversations/\(conversationId)/cobrowsing")
    }

    /// Accepts an agent's co-browsing request.
    public func acceptCoBrowsing(_ sessionId: String) async throws(CollabClientError) -> CoBrowsingSessionView {
        try await transport.send("POST", "/mobile/v1/cobrowsing/\(sessionId)/accept")
    }

    /// Stops sharing.
    public func stopCoBrowsing(_ sessionId: String) async throws(CollabClientError) -> CoBrowsingSessionView {
        try await transport.send("POST", "/mobile/v1/cobrowsing/\(sessionId)/stop")
    }

    /// A session, with its current rate limit.
    public func coBrowsingSession(_ sessionId: String) async throws(CollabClientError) -> CoBrowsingSessionView {
        try await transport.send("GET", "/mobile/v1/cobrowsing/\(sessionId)")
    }

    /// The session of this visitor's screen in a conversation that has not ended (requested or active),
    /// `nil` when none is: how an app started after an agent's request finds the session to accept.
    public func openCoBrowsingSession(in conversationId: String) async throws(CollabClientError) -> CoBrowsingSessionView? {
        try await transport.sendForOptional("GET", "/mobile/v1/conversations/\(conversationId)/cobrowsing")
    }
}

extension AgentClient {
    /// Asks the visitor of a conversation to share the screen.
    public func requestCoBrowsing(in conversationId: String) async throws(CollabClientError) -> CoBrowsingSessionView {
        try await transport.send("POST", "/agent/v1/conversations/\(conversationId)/cobrowsing")
    }

    /// The session of a conversation that has not ended (requested or active), `nil` when none is.
    public func openCoBrowsingSession(in conversationId: String) async throws(CollabClientError) -> CoBrowsingSessionView? {
        try await transport.sendForOptional("GET", "/agent/v1/conversations/\(conversationId)/cobrowsing")
    }

    /// A co-browsing session of the account.
    public func coBrowsingSession(_ sessionId: String) async throws(CollabClientError) -> CoBrowsingSessionView {
        try await transport.send("GET", "/agent/v1/cobrowsing/\(sessionId)")
    }

    /// Stops a co-browsing session (the visitor's frame stream ends).
    public func stopCoBrowsing(_ sessionId: String) async throws(CollabClientError) -> CoBrowsingSessionView {
        try await transport.send("POST", "/agent/v1/cobrowsing/\(sessionId)/stop")
    }

    /// The latest frame, if any: image bytes and its sequence.
    public func latestFrame(_ sessionId: String) async throws(CollabClientError) -> (image: Data, sequence: UInt32)? {
        let response = try await transport.raw("GET", "/agent/v1/cobrowsing/\(sessionId)/frame")
        if response.status == 404 { return nil }
        try HTTPTransport.check(response, method: "GET", path: "frame")
        return (response.body, response.header("x-frame-sequence").flatMap { UInt32($0) } ?? 0)
    }
}
