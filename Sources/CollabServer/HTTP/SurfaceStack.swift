import CollabCore
import CollabStore
import Hummingbird

/// Builds each surface's router group with its middleware stack, outermost first:
///
/// 1. ``RefusedUpgradeMiddleware``: a refused WebSocket upgrade answers what the stack answered;
/// 2. ``ClusterReadMiddleware``: on a cluster replica, the other replicas' commits come first;
/// 3. ``AuthenticationMiddleware``: the surface's credentials, resolved once into the context;
/// 4. ``ObservationMiddleware``: the journal, the request metrics and the fault rules;
/// 5. ``ErrorMiddleware``: every failure in the surface's error body;
/// 6. ``AccessMiddleware``: refused credentials, and the role every operation of the surface needs.
///
/// Nothing in the stack looks at the path: a request reaches a stack because the router matched one
/// of its surface's routes — on the main router, or, for a request it has no route for, on the
/// unrouted router, which holds each surface's prefix with `**` behind the same stack.
struct SurfaceStack {
    typealias Context = CollabRequestContext

    let environment: CollabEnvironment
    /// Whether connections may carry client certificates (mutual TLS).
    let clientCertificates: Bool
    /// The requests the main router has no route for: each surface's prefix answers them with its 404
    /// through its stack, and what is under no surface gets the ``Surface/outside`` stack.
    let unrouted = Router(context: Context.self)
    /// The routes with fixed paths, each behind its surface's stack (``StaticRoutesFirst``).
    let statics = StaticRoutes()

    /// The middlewares of `surface`, outermost first.
    func middlewares(for surface: Surface) -> [any MiddlewareProtocol<Request, Response, Context>] {
        var stack: [any MiddlewareProtocol<Request, Response, Context>] = [RefusedUpgradeMiddleware()]
        if surface.readsClusterState, environment.repository.isClusterReplica {
            stack.append(ClusterReadMiddleware(repository: environment.repository))
        }
        let authenticator = Authenticator(environment: environment)
        stack.append(AuthenticationMiddleware(authenticator: authenticator, accepts: surface.credentials, readsCertificates: clientCertificates))
        stack.append(ObservationMiddleware(environment: environment, surface: surface))
        stack.append(ErrorMiddleware(format: surface.errors))
        stack.append(AccessMiddleware(role: surface.role))
        return stack
    }

    /// The routes of `surface` under `prefix`, behind its stack.
    func routes(_ surface: Surface, under prefix: RouterPath, on router: Router<Context>) -> SurfaceRoutes {
        let group = router.group(prefix)
        let unroutedGroup = unrouted.group(prefix)
        let stack = middlewares(for: surface)
        for middleware in stack {
            group.add(middleware: middleware)
            unroutedGroup.add(middleware: middleware)
        }
        return SurfaceRoutes(group: group, unrouted: unroutedGroup, prefix: prefix, middlewares: stack, statics: statics)
    }

    /// Hands what the main router has no route for (its not-found answer) to the unrouted router: a
    /// surface's prefix answers with the surface's 404, anything else with a journaled 404 in the Web
    /// API `Error` body. Called last: router middleware applies only to the routes added after it, and
    /// to the not-found answer.
    func answerOutsideEverySurface(on router: Router<Context>) {
        for middleware in middlewares(for: .outside) { unrouted.add(middleware: middleware) }
        router.add(middleware: UnroutedRequests(responder: unrouted.buildResponder()))
    }
}

/// The main router's not-found answer: the request goes to the unrouted router instead.
private struct UnroutedRequests: RouterMiddleware {
    typealias Context = CollabRequestContext
    let responder: RouterResponder<Context>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await responder.respond(to: request, context: context)
    }
}
