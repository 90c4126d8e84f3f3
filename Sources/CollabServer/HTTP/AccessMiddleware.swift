import CollabCore
import Hummingbird

/// The last step before a surface's routes: refuses a caller whose credentials the surface's
/// ``AuthenticationMiddleware`` did not accept, and one below the role every operation of the surface
/// needs. Inside the journal and the error middleware, so a refusal is recorded and answered in the
/// surface's body like any other failure.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    /// The role every operation of the surface needs (`anonymousUser`: none).
    let role: AuthorizationRole

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let failure = context.authenticationFailure { throw failure }
        try context.principal.require(role)
        return try await next(request, context)
    }
}
