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
/// of its surface's routes.
struct SurfaceStack {
    typealias Context = CollabRequestContext

    let environment: CollabEnvironment
    /// Whether connections may carry client certificates (mutual TLS).
    let clientCertificates: Bool

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
        for middleware in middlewares(for: surface) { group.add(middleware: middleware) }
        return SurfaceRoutes(group: group)
    }

    /// Answers what no surface serves — the router's own not-found answer — with a journaled 404 in
    /// the Web API `Error` body. Called last: router middleware applies only to the routes added after
    /// it, and to the not-found answer.
    func answerOutsideEverySurface(on router: Router<Context>) {
        for middleware in middlewares(for: .outside) { router.add(middleware: middleware) }
    }
}
