import CollabCore
import Hummingbird
import NIOHTTP1

/// The request faults of the rules in force (`/_mock/v1/faults`) on the surfaces rules can name (Web
/// API, mobile, agent): an injected error, empty answer or reset comes before any handler, so it
/// changes nothing. ``FaultRules`` counts injections by action for `/metrics`; live-socket, push and
/// webhook rules are asked where those happen (``LiveConnectionFaults``, the push pipeline, the
/// webhook dispatcher).
extension ObservationMiddleware {
    /// The fault injected into this request, if any. Never for credentials the surface refused: their
    /// 401 is the answer.
    func fault(for request: Request, context: Context) -> FaultRules.Injection? {
        guard let surfaceName = surface.faultName, environment.faults.isInForce, context.authenticationFailure == nil else { return nil }
        let faultable = FaultRules.Request(
            surface: surfaceName, method: request.method.rawValue, path: request.uri.path, accountId: context.principal.accountId,
            deviceId: context.client?.deviceId, clientId: context.client?.clientId
        )
        return environment.faults.injection(for: faultable, now: environment.clock.now())
    }

    /// The answer under `injection`: the handler's, delayed, replaced, cut or paced.
    func answer(
        _ request: Request, context: Context, under injection: FaultRules.Injection?, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let injection else { return try await next(request, context) }
        switch injection {
        case .latency(_, let millis):
            try await Task.sleep(for: .milliseconds(millis))
            return try await next(request, context)
        case .pushFailure, .webSocketClose, .dropEvent, .delayEvent, .webhookFailure:
            // Never chosen for a request (these rules are asked by the push pipeline, the live sockets
            // and the webhook dispatcher).
            return try await next(request, context)
        case .error(_, let status, let message):
            // With the standard reason phrase (NIO knows them): an `Error` body's `statusDescription` and
            // the status line read as the real server's would.
            let status = HTTPResponse.Status(code: status, reasonPhrase: HTTPResponseStatus(statusCode: status).reasonPhrase)
            return surface.errors.response(CollabError.Kind(status: status), status: status, message: message, request: request)
        case .emptyResponse:
            let limit = environment.configuration.maxBodySize
            return await FaultedConnection(channel: context.channel).closeWithoutAnswer(draining: request.body, limit: limit)
        case .connectionReset:
            return await FaultedConnection(channel: context.channel).reset()
        case .truncatedBody(_, let bytes, let fraction):
            // The real answer, an error's body included, is what gets cut.
            return FaultedConnection(channel: context.channel).truncate(try await next(request, context), bytes: bytes, fraction: fraction)
        case .bandwidth(_, let bytesPerSecond):
            // A live socket's upgrade: its co-browsing frames are read at the cap (see `stream`).
            var context = context
            context.bandwidthCap = bytesPerSecond
            var request = request
            request.body = RequestBody(asyncSequence: PacedBody(base: request.body, bytesPerSecond: bytesPerSecond))
            var response = try await next(request, context)
            response.body = BandwidthPacing.pace(response.body, bytesPerSecond: bytesPerSecond)
            return response
        }
    }
}
