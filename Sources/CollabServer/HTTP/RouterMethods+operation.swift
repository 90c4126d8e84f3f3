import CollabCore
import Foundation
import Hummingbird

extension RouterMethods where Context == CollabRequestContext {
    /// Registers a handler that runs only for callers whose role is at least `role` (the operation's
    /// `x-required-role` in the vendor's spec).
    @discardableResult
    func operation(
        _ method: HTTPRequest.Method, _ path: RouterPath, role: AuthorizationRole,
        _ handler: @escaping @Sendable (Request, CollabRequestContext) async throws -> Response
    ) -> Self {
        on(path, method: method) { request, context in
            try context.principal.require(role)
            return try await handler(request, context)
        }
    }
}

extension Request {
    /// All values of a query parameter, comma lists split (`expand=a,b&expand=c`).
    func queryList(_ name: String) -> [String] {
        let parameters = uri.queryParameters
        // Most requests have no query: asking an empty dictionary still hashes the name.
        guard !parameters.isEmpty else { return [] }
        return parameters.getAll(name).flatMap { $0.split(separator: ",").map { String($0) } }
    }

    /// A query parameter's value.
    func query(_ name: String) -> String? {
        uri.queryParameters[name[...]].map(String.init)
    }

    /// An integer query parameter of at least `minimum` (0 or 1), `nil` when absent.
    /// - Throws: `badRequest` naming the parameter for anything else.
    func integerQuery(_ name: String, atLeast minimum: Int) throws(CollabError) -> Int? {
        try query(name).map { text throws(CollabError) in
            guard let value = Int(text), value >= minimum else {
                throw .badRequest("\(name) must be a \(minimum > 0 ? "positive" : "non-negative") integer")
            }
            return value
        }
    }

    /// How long a control API wait may take: `timeoutMs`, 0 to 60,000 ms, 10,000 when absent.
    /// - Throws: `badRequest` for anything else.
    func waitTimeoutMillis() throws(CollabError) -> Int64 {
        try query("timeoutMs").map { text throws(CollabError) -> Int64 in
            guard let value = Int64(text), value >= 0, value <= 60_000 else { throw .badRequest("timeoutMs must be 0 to 60000") }
            return value
        } ?? 10_000
    }

    /// Refuses a query parameter the route does not take: a misspelt filter would otherwise widen the
    /// answer (`journal?statuss=4` answered the whole journal, a misspelt `pushes/wait` filter any push).
    func refuseUnknownQuery(_ allowed: Set<String>) throws(CollabError) {
        guard let unknown = uri.queryParameters.map({ String($0.key) }).filter({ !allowed.contains($0) }).sorted().first else { return }
        throw .badRequest("\(unknown): not a query parameter of \(uri.path) (it takes \(allowed.sorted().joined(separator: ", ")))")
    }

    /// A required query parameter.
    func requireQuery(_ name: String) throws(CollabError) -> String {
        guard let value = query(name), !value.isEmpty else { throw .badRequest("the query parameter '\(name)' is required") }
        return value
    }
}

extension CollabRequestContext {
    /// A path parameter that the route guarantees, percent-decoded (`Acme%20Corp` is the account `Acme
    /// Corp`, and an error names the id as it was meant, not as it was encoded).
    func pathParameter(_ name: String) throws(CollabError) -> String {
        guard let value = parameters.get(name) else { throw .badRequest("missing path parameter '\(name)'") }
        guard value.contains("%") else { return value }
        guard let decoded = value.removingPercentEncoding else {
            throw .badRequest("the path parameter '\(name)' is not valid percent-encoding")
        }
        return decoded
    }
}
