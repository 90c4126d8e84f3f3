public import AsyncHTTPClient
public import NIOCore
import Synchronization

/// One HTTP client for one purpose, created on first use (a process that never calls out owns none,
/// so there is nothing to forget to shut down) and shut down once, by its owner's service.
public final class SharedHTTPClient: Sendable {
    private enum State {
        case idle
        case running(HTTPClient)
        case shutDown
    }

    private let state = Mutex(State.idle)
    private let configuration: HTTPClient.Configuration

    public init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
    }

    /// Sends `request`, waiting at most `timeout`.
    /// - Throws: The client's errors, or `CancellationError` once the client is shut down.
    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        let client: HTTPClient? = state.withLock { state in
            switch state {
            case .running(let client): return client
            case .shutDown: return nil
            case .idle:
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                state = .running(client)
                return client
            }
        }
        guard let client else { throw CancellationError() }
        return try await client.execute(request, timeout: timeout)
    }

    /// Shuts the client down (if it was ever created); later calls fail.
    public func shutdown() async {
        let client: HTTPClient? = state.withLock { state in
            defer { state = .shutDown }
            if case .running(let client) = state { return client }
            return nil
        }
        try? await client?.shutdown()
    }
}
