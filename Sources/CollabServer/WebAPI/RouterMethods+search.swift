import CollabCore
import CollabWire
import Hummingbird

extension RouterMethods where Context == CollabRequestContext {
    /// Registers a Web API search (`POST …/search` and its kind): decodes the vendor's query body, which
    /// must be a `queryType` (a `$_type` of another query is refused), and answers the `…Result` that
    /// `answer` makes of it under one read of the caller's account's state.
    /// - Parameters:
    ///   - answer: Runs the search on the state and maps its page to the wire (given the query, the request
    ///     for its `expand` parameters, and the caller's context).
    @discardableResult
    func searchOperation<Wire: Codable & Sendable>(
        _ path: RouterPath = "search", role: AuthorizationRole, queryType: String, environment env: CollabEnvironment,
        _ answer: @escaping @Sendable (
            _ state: borrowing AccountState, _ query: SearchQuery, _ request: Request, _ context: CollabRequestContext
        ) throws(CollabError) -> WebResult<Wire>
    ) -> Self {
        operation(.post, path, role: role) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: queryType)
            let page = try env.read(context.principal) { state throws(CollabError) in try answer(state, query, request, context) }
            return JSONBody.response(page)
        }
    }
}
