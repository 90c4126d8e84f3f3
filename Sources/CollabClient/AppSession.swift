import CollabWire
import Synchronization

/// What a started app holds — the server's answer to its start and its live event stream — and the
/// steps every app takes to start and stop, shared by ``VisitorClient`` and ``AgentClient``.
final class AppSession: Sendable {
    private struct State {
        var start: ClientStartResponse?
        var live: LiveEventStream?
    }

    private let state = Mutex(State())
    /// The app's typed events.
    let events = ClientEventHub()

    /// What the server answered on start; `nil` before, and after a stop.
    var start: ClientStartResponse? { state.withLock { $0.start } }
    /// The live stream of the started app, if it opened one.
    var live: LiveEventStream? { state.withLock { $0.live } }

    /// Sends a start; a failed start is reported on the typed events too, as the SDK's delegate hears of it.
    func request<Body: Encodable & Sendable>(
        _ transport: HTTPTransport, path: String, body: Body
    ) async throws(CollabClientError) -> ClientStartResponse {
        do {
            return try await transport.send("POST", path, body: body)
        } catch {
            events.emit(.error(ClientError(error)))
            throw error
        }
    }

    /// Takes a start in: its token authenticates every later request; with `livePath` a live stream
    /// opens (connected when this returns) and feeds the typed events; an earlier stream closes.
    /// - Throws: ``CollabClientError`` (`.transport`) for a live stream through an in-process exchange.
    func begin(
        _ response: ClientStartResponse, transport: HTTPTransport, livePath: String?, tls: TLSOptions?
    ) async throws(CollabClientError) {
        if livePath != nil { try InProcessExchanges.requireSocket(transport.baseURL, for: "the live event stream") }
        transport.setCredentials(.bearer(response.token))
        let live = livePath.map { LiveEventStream(url: webSocketURL(transport.baseURL, path: $0, query: [("token", response.token)]), tls: tls) }
        let previous = state.withLock { state -> LiveEventStream? in
            defer { state = State(start: response, live: live ?? state.live) }
            return live == nil ? nil : state.live
        }
        previous?.close()
        guard let live else { return }
        events.forward(live)
        await live.waitUntilConnected()
        if Task.isCancelled, !live.isConnected {
            // Cancelled while the server refused the socket (or could not be reached): stop retrying.
            live.close()
            let last = live.lastFailure.map { "; the last attempt: \($0)" } ?? ""
            throw CollabClientError(code: .transport, status: nil, message: "cancelled before the live event stream connected\(last)")
        }
    }

    /// Stops the app: its live stream closes and the server forgets its client (`DELETE path`). A client
    /// the server ended already — its access token expired or was revoked — counts as stopped.
    func end(_ transport: HTTPTransport, path: String) async throws(CollabClientError) {
        let live = state.withLock { state -> LiveEventStream? in
            defer { state.live = nil }
            return state.live
        }
        live?.close()
        do {
            try await transport.sendWithoutResult("DELETE", path)
        } catch where error.code == .authorization {
            // Stopped at the server already.
        }
        state.withLock { $0.start = nil }
    }

    deinit {
        state.withLock { $0.live?.close() }
    }
}
