import Hummingbird
import Synchronization

/// The routes whose paths name no parameter or wildcard (most of them: every Web API operation but
/// those with an id in the path), each with its responder behind its surface's middleware stack — the
/// same responder the router holds for it.
///
/// The router's trie visits a level's routes one by one, comparing strings, and `/app/rest/v4` has
/// about sixty; ``StaticRoutesFirst`` finds these routes with one hash look-up instead. Filled while
/// the surfaces register (``SurfaceRoutes``), read once it is frozen.
final class StaticRoutes: Sendable {
    typealias Context = CollabRequestContext

    /// A route: its responder, and the path the request metrics name it by (as the router's does).
    struct Route: Sendable {
        var endpoint: String
        var responder: any HTTPResponder<Context>
    }

    /// Routes by path (`/app/rest/v4/accounts/getCurrentAccount`), then method.
    typealias Table = [String: [HTTPRequest.Method: Route]]

    private let table = Mutex<Table>([:])

    /// Notes the route at `path` (from the root) for `method`, if its path is fixed: only then is its
    /// responder chained.
    func note(_ path: RouterPath, method: HTTPRequest.Method, responder: () -> any HTTPResponder<Context>) {
        // A fixed component is the path element its own text makes (`:id`, `*` and `{id}` are not).
        let names = path.components.map(\.description)
        guard zip(path.components, names).allSatisfy({ $0 == RouterPath.Element.path(Substring($1)) }) else { return }
        let key = "/" + names.joined(separator: "/")
        let route = Route(endpoint: path.description, responder: responder())
        table.withLock { $0[key, default: [:]][method] = route }
    }

    /// The routes noted.
    var frozen: Table { table.withLock { $0 } }
}

/// The application's responder: a request for one of the ``StaticRoutes`` (its exact path and method)
/// goes straight to the route's responder; anything else — a path with an id in it, a trailing slash,
/// an unknown path or method — goes through the router, as every request would without this.
struct StaticRoutesFirst: HTTPResponder {
    typealias Context = CollabRequestContext

    let routes: StaticRoutes.Table
    let router: RouterResponder<Context>

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let route = routes[request.uri.path]?[request.method] else { return try await router.respond(to: request, context: context) }
        do {
            context.coreContext.endpointPath.value = route.endpoint
            return try await route.responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            // What the router does with an error that escapes a route.
            return try error.response(from: request, context: context)
        }
    }
}

/// A middleware in front of a responder, as a router group chains them.
struct MiddlewareChain: HTTPResponder {
    typealias Context = CollabRequestContext

    let middleware: any MiddlewareProtocol<Request, Response, Context>
    let next: any HTTPResponder<Context>

    func respond(to request: Request, context: Context) async throws -> Response {
        try await middleware.handle(request, context: context) { request, context in try await next.respond(to: request, context: context) }
    }
}
