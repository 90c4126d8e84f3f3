import Hummingbird

/// The anonymous ops routes (`/healthz`, `/readyz`, `/metrics`, `/openapi.json`) answer whatever
/// credentials come with the request: a probe or a scraper with a stale or malformed `Authorization`
/// header must still see the server's health, not a 401. Sits before the authentication middleware
/// and drops the credentials of those requests only.
struct AnonymousOpsMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    static let paths: Set<String> = ["/healthz", "/readyz", "/metrics", "/openapi.json"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, Self.paths.contains(request.uri.path),
            request.headers[.authorization] != nil || request.headers[.cookie] != nil
        else {
            return try await next(request, context)
        }
        var head = request.head
        head.headerFields[.authorization] = nil
        head.headerFields[.cookie] = nil
        return try await next(Request(head: head, body: request.body), context)
    }
}
