import AsyncHTTPClient
import CollabClient

/// What every simulated device shares: the configuration, the metrics, the HTTP client, the stop
/// signals and the in-flight send times.
struct LoadContext: Sendable {
    let configuration: LoadConfiguration
    /// TLS options for an `https://` server.
    let tls: TLSOptions?
    let metrics: LoadMetrics
    let http: HTTPClient
    /// Visitors stop starting new work when this fires.
    let visitorsStop: StopSignal
    /// Agents stop when this fires (after the visitors are done).
    let agentsStop: StopSignal
    /// Message send times by client message id.
    let messages: PendingTimes
    /// Call start times by conversation id.
    let rings: PendingTimes
    /// The limits of the devices' waits for events and acknowledgements.
    let timeouts: TimeoutWheel

    var now: ContinuousClock.Instant { .now }
    var eventTimeout: Duration { .milliseconds(Int64(configuration.eventTimeoutSeconds * 1_000)) }

    /// A device's queue of what arrives on its socket, its waits limited by ``timeouts``.
    func inbox<Element: Sendable>(of _: Element.Type = Element.self) -> Inbox<Element> { Inbox(timeouts: timeouts) }

    /// Runs one request step, recording its latency or its error; `nil` on failure.
    @discardableResult
    func timed<T: Sendable>(_ operation: LoadOperation, _ body: () async throws -> T) async -> T? {
        let start = ContinuousClock.now
        do {
            let value = try await body()
            metrics.record(operation, .now - start, at: .now)
            return value
        } catch {
            fail(operation, error)
            return nil
        }
    }

    /// Records a failed step by the client error's code.
    func fail(_ operation: LoadOperation, _ error: any Error) {
        if Task.isCancelled || error is CancellationError {
            metrics.fail(operation, type: "cancelled", message: "cancelled at the end of the drain time", at: .now)
        } else if let error = error as? CollabClientError {
            metrics.fail(operation, type: error.code.description, message: error.description, at: .now)
        } else {
            metrics.fail(operation, type: "transport", message: "\(error)", at: .now)
        }
    }

    /// Records the live stream's failed connection attempts after the first `counted` as `live.connect`
    /// errors, and returns how many it has counted now.
    @discardableResult
    func noteLiveFailures(of stream: LiveEventStream?, counted: Int = 0) -> Int {
        guard let stream else { return counted }
        let failed = stream.failedAttemptCount
        if failed > counted {
            let reason = stream.lastFailure ?? "the connection failed"
            for _ in counted..<failed {
                metrics.fail(.liveConnect, type: "live socket", message: reason + "; the server's journal has each refused upgrade", at: .now)
            }
        }
        return max(failed, counted)
    }

    /// Records an expected event that did not arrive in time.
    func timeout(_ operation: LoadOperation, _ what: String) {
        metrics.fail(operation, type: "timeout", message: "\(what) did not arrive within \(configuration.eventTimeoutSeconds) s", at: .now)
    }
}
