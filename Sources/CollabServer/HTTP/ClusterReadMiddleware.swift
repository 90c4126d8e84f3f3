import CollabStore
import Hummingbird
import Logging

/// On a cluster replica, every request first takes in what the other replicas committed before it
/// arrived (``StateRepository/catchUpBarrier()``), so a load balancer may send each request anywhere:
/// a client reads its own writes whichever replica answers. Concurrent requests share one read of the
/// change log. Sits before authentication: a session opened on another replica must be known here.
/// Not in the ops surface's stack: a probe answers from this replica alone.
///
/// When the database does not answer, the request goes on with what this replica has (reads may be
/// stale; writes fail on their own, 503).
struct ClusterReadMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let repository: StateRepository

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            try await repository.catchUpBarrier()
        } catch {
            context.logger.debug("cluster catch-up failed; serving from this replica's state", metadata: ["error": "\(error)"])
        }
        return try await next(request, context)
    }
}
