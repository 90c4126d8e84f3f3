import Hummingbird
import Metrics
import Synchronization

/// The request metrics of `/metrics` — the series Hummingbird's `MetricsMiddleware` exports
/// (`hb_requests`, `hb_request_errors`, `http_server_request_duration`, `http_server_active_requests`),
/// with the same names and labels — recorded when the handler's response is ready.
///
/// Hummingbird's middleware records after the body is written by wrapping the body in a closure, and a
/// wrapped body loses the writer's fast path for a single buffer: head, body and end then leave as three
/// writes, each a hop to the event loop and a system call, instead of one. Here the body is left as it
/// is, so a request's duration ends when its answer is ready rather than when it is on the socket.
final class RequestMetrics: Sendable {
    private struct EndpointKey: Hashable {
        let endpoint: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status
    }

    private struct Series: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter

        init(_ key: EndpointKey) {
            let labels = [
                ("http.route", key.endpoint), ("http.request.method", key.method.description),
                ("http.response.status_code", key.status.code.description),
            ]
            requests = Counter(label: "hb.requests", dimensions: labels)
            duration = Timer(label: "http.server.request.duration", dimensions: labels, preferredDisplayUnit: .seconds)
            errors = Counter(
                label: "hb.request.errors",
                dimensions: [
                    ("http.route", key.endpoint), ("http.request.method", key.method.description), ("error.type", key.status.code.description),
                ]
            )
        }
    }

    /// The methods named in a label; any other counts as `_OTHER`, as OpenTelemetry's HTTP conventions
    /// have it. HTTP/2 takes any token as a method, and a series per method made up by a client would
    /// grow `/metrics` and the registry without bound.
    static let namedMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options, .connect, .trace]
    static let otherMethod = HTTPRequest.Method("_OTHER")!

    /// The method as its label names it.
    static func label(_ method: HTTPRequest.Method) -> HTTPRequest.Method {
        namedMethods.contains(method) ? method : otherMethod
    }

    private let active = Mutex<[HTTPRequest.Method: Meter]>([:])
    private let series = Mutex<[EndpointKey: Series]>([:])

    /// Runs `answer`, counting the request as active meanwhile, then counts and times it under its
    /// route, method and status (a thrown error counts as its status, or 500, and as an error).
    /// - Parameter start: When the request arrived: its duration counts from there, as the journal's does.
    func measure<Context: RequestContext>(
        _ request: Request, context: Context, since start: ContinuousClock.Instant, _ answer: () async throws -> Response
    ) async throws -> Response {
        let method = Self.label(request.method)
        let meter = activeMeter(method)
        meter.increment()
        defer { meter.decrement() }
        do {
            let response = try await answer()
            let series = series(EndpointKey(endpoint: context.endpointPath ?? "Unknown", method: method, status: response.status))
            series.requests.increment()
            series.duration.record(duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let series = series(EndpointKey(endpoint: context.endpointPath ?? "NotFound", method: method, status: status))
            series.requests.increment()
            series.errors.increment()
            throw error
        }
    }

    private func activeMeter(_ method: HTTPRequest.Method) -> Meter {
        active.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.description)])
            meters[method] = meter
            return meter
        }
    }

    private func series(_ key: EndpointKey) -> Series {
        series.withLock { all in
            if let found = all[key] { return found }
            let made = Series(key)
            all[key] = made
            return made
        }
    }
}
