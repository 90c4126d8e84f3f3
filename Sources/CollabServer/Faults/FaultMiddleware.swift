import CollabCore
import CollabWire
import Hummingbird

/// Injects the faults of the rules in force (`/_mock/v1/faults`) into the Web API, mobile and agent
/// surfaces: after authentication (rules can match an account, a device or a client), before any
/// handler, so an injected error, empty answer or reset changes nothing. The journal records the
/// rule's id and action; ``FaultRules`` counts injections by action for `/metrics`. Live-socket,
/// push and webhook rules are asked where those happen (``LiveConnectionFaults``, the push pipeline,
/// the webhook dispatcher).
struct FaultMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let environment: CollabEnvironment

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let surface = Self.surface(of: request.uri.path), environment.faults.isInForce else { return try await next(request, context) }
        var accountId = context.principal.accountId
        var client = context.client
        // A live socket may authenticate with `?token=` (browsers cannot set headers on a WebSocket):
        // its rules match by the account and device of that token all the same.
        if accountId == nil, let token = request.uri.queryParameters.get("token"), request.uri.path.hasSuffix("/events") {
            // Read only: the socket's route authenticates (and notes the client's activity) itself.
            if token.count <= 128, let owner = environment.accountId(for: .client(token)) {
                client = (try? environment.read(account: owner) { $0.clientSession(token: token) }) ?? nil
            }
            accountId = client?.accountId ?? AuthenticationMiddleware(environment: environment).principal(forSession: token)?.accountId
        }
        let faultable = FaultRules.Request(
            surface: surface, method: request.method.rawValue, path: request.uri.path, accountId: accountId, deviceId: client?.deviceId,
            clientId: client?.clientId
        )
        guard let injection = environment.faults.injection(for: faultable, now: environment.clock.now()) else {
            return try await next(request, context)
        }
        context.trace.faultRuleId = injection.ruleId
        context.trace.faultAction = injection.actionType
        switch injection {
        case .latency(_, let millis):
            try await Task.sleep(for: .milliseconds(millis))
            return try await next(request, context)
        case .pushFailure, .webSocketClose, .dropEvent, .delayEvent, .webhookFailure:
            // Never chosen for a request (these rules are asked by the push pipeline, the live sockets
            // and the webhook dispatcher).
            return try await next(request, context)
        case .error(_, let status, let message):
            let status = HTTPResponse.Status(code: status)
            if ErrorBody.usesTypedBody(request.uri.path) {
                return JSONBody.response(APIErrorBody(type: Self.typeName(status.code), message: message, status: status.code), status: status)
            }
            return ErrorBody.response(status: status, message: message)
        case .emptyResponse:
            return await FaultedConnection(channel: context.channel).closeWithoutAnswer(draining: request.body, limit: environment.configuration.maxBodySize)
        case .connectionReset:
            return await FaultedConnection(channel: context.channel).reset()
        case .truncatedBody(_, let bytes, let fraction):
            // The real answer, an error's typed body included, is what gets cut.
            let answer = try await ErrorMiddleware().handle(request, context: context, next: next)
            return FaultedConnection(channel: context.channel).truncate(answer, bytes: bytes, fraction: fraction)
        case .bandwidth(_, let bytesPerSecond):
            // A live socket's upgrade: its co-browsing frames are read at the cap (see `stream`).
            context.trace.bandwidthCap = bytesPerSecond
            var request = request
            request.body = RequestBody(asyncSequence: PacedBody(base: request.body, bytesPerSecond: bytesPerSecond))
            var response = try await next(request, context)
            response.body = BandwidthPacing.pace(response.body, bytesPerSecond: bytesPerSecond)
            return response
        }
    }

    /// The faultable surface a path belongs to; `nil` for the control API and the operational routes.
    static func surface(of path: String) -> String? {
        if path.hasPrefix("/app/rest/v4/") || path.hasPrefix("/unblu/rest/v4/") { return "WEB_API" }
        if path.hasPrefix("/mobile/v1/") { return "MOBILE" }
        if path.hasPrefix("/agent/v1/") { return "AGENT" }
        return nil
    }

    /// The mobile and agent APIs' error type for a status.
    static func typeName(_ status: Int) -> String {
        switch status {
        case 400: "BAD_REQUEST"
        case 401: "AUTHORIZATION"
        case 403: "FORBIDDEN"
        case 404: "NOT_FOUND"
        case 409: "CONFLICT"
        case 413: "PAYLOAD_TOO_LARGE"
        case 429: "RATE_LIMITED"
        case 503: "UNAVAILABLE"
        case 500...599: "INTERNAL"
        default: "BAD_REQUEST"
        }
    }
}
