import AsyncHTTPClient
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// One HTTP client for one purpose, created on first use (a server that never calls out owns none) and
/// shut down once, with the server. Redirects are never followed: allowlists are checked for the
/// registered endpoint only, and a redirect could lead anywhere (a 3xx answer is the caller's to judge).
final class SharedHTTPClient: Sendable {
    private enum State {
        case idle
        case running(HTTPClient)
        case shutDown
    }

    private let state = Mutex(State.idle)

    /// Sends `request`, waiting at most `timeout`.
    /// - Throws: The client's errors, or `CancellationError` once the client is shut down.
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        let client: HTTPClient? = state.withLock { state in
            switch state {
            case .running(let client): return client
            case .shutDown: return nil
            case .idle:
                var configuration = HTTPClient.Configuration()
                configuration.redirectConfiguration = .disallow
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                state = .running(client)
                return client
            }
        }
        guard let client else { throw CancellationError() }
        return try await client.execute(request, timeout: timeout)
    }

    /// Shuts the client down (if it was ever created); later calls fail.
    func shutdown() async {
        let client: HTTPClient? = state.withLock { state in
            defer { state = .shutDown }
            if case .running(let client) = state { return client }
            return nil
        }
        try? await client?.shutdown()
    }
}

/// The server's outbound HTTP clients, one per purpose, shut down when the server stops. Listed first
/// among the services, so it stops last: after everything that calls out has finished.
final class OutboundClients: Service {
    /// Webhook deliveries (registrations' events, bots' events).
    let webhooks = SharedHTTPClient()
    /// Requests to dialog bots that wait for an answer (onboarding offers, pings).
    let bots = SharedHTTPClient()
    /// File-upload and message interceptors.
    let interceptors = SharedHTTPClient()

    func run() async throws {
        try? await gracefulShutdown()
        for client in [webhooks, bots, interceptors] { await client.shutdown() }
    }
}
