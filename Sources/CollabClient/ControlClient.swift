public import AsyncHTTPClient
public import CollabWire
import Foundation

/// A client for the control API (`/_mock/v1`): what tests and tools use to reset, seed, inspect the
/// request journal, issue test access tokens and move the virtual clock.
public struct ControlClient: Sendable {
    /// The HTTP transport (a super admin's or admin's credentials, or the control token).
    public let transport: HTTPTransport

    /// Creates a control client; use a super admin's credentials or the server's control token.
    public init(baseURL: String, credentials: ClientCredentials, client: HTTPClient = .collab, tls: TLSOptions? = nil) {
        self.transport = HTTPTransport(baseURL: baseURL, credentials: credentials, client: client, tls: tls)
    }

    /// Resets everything (then re-applies the startup seed), or one account by id or name.
    @discardableResult
    public func reset(account: String? = nil) async throws(CollabClientError) -> SeedResult {
        try await transport.send("POST", "/_mock/v1/reset", body: ResetRequest(account: account))
    }

    /// Applies a seed given as YAML or JSON text.
    @discardableResult
    public func seed(_ text: String) async throws(CollabClientError) -> SeedResult {
        let response = try await transport.raw("POST", "/_mock/v1/seed", body: Data(text.utf8), contentType: "application/yaml")
        try HTTPTransport.check(response, method: "POST", path: "/_mock/v1/seed")
        do {
            return try JSONDecoder().decode(SeedResult.self, from: response.body)
        } catch {
            throw CollabClientError(code: .decoding, status: response.status, message: "cannot decode the seed result")
        }
    }

    /// Journal entries matching the filter.
    public func journal(_ filter: JournalFilter = JournalFilter()) async throws(CollabClientError) -> JournalPage {
        var query: [(String, String)] = []
        if let method = filter.method { query.append(("method", method)) }
        if let path = filter.path { query.append(("path", path)) }
        if let status = filter.status { query.append(("status", String(status))) }
        if let since = filter.since { query.append(("since", String(since))) }
        if let until = filter.until { query.append(("until", String(until))) }
        if let accountId = filter.accountId { query.append(("accountId", accountId)) }
        if let limit = filter.limit { query.append(("limit", String(limit))) }
        if let after = filter.after { query.append(("after", String(after))) }
        return try await transport.send("GET", "/_mock/v1/journal", query: query)
    }

    /// Empties the journal.
    public func clearJournal() async throws(CollabClientError) {
        try await transport.sendWithoutResult("DELETE", "/_mock/v1/journal")
    }

    /// A test access token for a visitor of `account` (id or name).
    public func issueToken(account: String, _ request: TestTokenRequest) async throws(CollabClientError) -> TestTokenResponse {
        try await transport.send("POST", "/_mock/v1/accounts/\(pathSegment: account)/tokens", body: request)
    }

    /// Revokes an access token of an account: it starts no app and opens no Web API session any more;
    /// the apps it started end now (a `client.error` event, then their live sockets close with 4003),
    /// and so do the Web API sessions a `loginWithSecureToken` with it opened.
    @discardableResult
    public func revokeToken(account: String, _ token: String) async throws(CollabClientError) -> TokenRevocationResponse {
        try await transport.send("POST", "/_mock/v1/accounts/\(pathSegment: account)/tokens/revoke", body: TokenRevocationRequest(token: token))
    }

    /// The server clock.
    public func clock() async throws(CollabClientError) -> ClockState {
        try await transport.send("GET", "/_mock/v1/clock")
    }

    /// Moves or freezes the server clock.
    @discardableResult
    public func changeClock(_ change: ClockChange) async throws(CollabClientError) -> ClockState {
        try await transport.send("POST", "/_mock/v1/clock", body: change)
    }

    /// Entity counts, overall or for one account.
    /// - Parameters:
    ///   - account: An account's id or name; `nil` for the whole server.
    ///   - cluster: Sum the per-replica figures (journal, pushes, frames) over every replica of
    ///     a cluster; on a single server the same as without.
    public func stats(account: String? = nil, cluster: Bool = false) async throws(CollabClientError) -> StateStats {
        var query = account.map { [("account", $0)] } ?? []
        if cluster { query.append(("scope", "cluster")) }
        return try await transport.send("GET", "/_mock/v1/stats", query: query)
    }
}
