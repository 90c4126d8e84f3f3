package import CollabClient
package import CollabWire
package import Foundation

/// What a test talks to through the client library: a server on a socket (``TestServer``) or one
/// driven in process through its router (the server tests' `InProcessServer`, whose base URL is an
/// `inprocess://` one). A test body written against this runs the same either way.
package protocol ServerUnderTest: Sendable {
    /// The root URL the client library takes: `http://127.0.0.1:PORT`, or `inprocess://…`.
    var baseURL: String { get }
}

extension ServerUnderTest {
    /// Whether live WebSockets reach this server (a server on a socket), so a visitor may open its events.
    package var carriesWebSockets: Bool { !baseURL.hasPrefix("inprocess:") }

    /// A Web API client with basic credentials.
    package func admin(_ username: String, _ password: String) -> AdminClient {
        AdminClient(baseURL: baseURL, credentials: .basic(username: username, password: password))
    }

    /// An unauthenticated Web API client.
    package var anonymous: AdminClient { AdminClient(baseURL: baseURL) }

    /// A control client using the control token.
    package var control: ControlClient { ControlClient(baseURL: baseURL, credentials: .bearer("test-control-token")) }

    /// Entity counts, without the journal (which grows with every request).
    package func entityStats(account: String? = nil) async throws -> StateStats {
        var stats = try await control.stats(account: account)
        stats.journalEntries = 0
        return stats
    }

    /// A raw transport for requests the client library would never send.
    package func transport(_ credentials: ClientCredentials = .basic(username: "admin", password: "admin")) -> HTTPTransport {
        HTTPTransport(baseURL: baseURL, credentials: credentials)
    }
}

/// Pushes from the control API.
extension ServerUnderTest {
    package func pushes(_ query: [(String, String)] = []) async throws -> [PushView] {
        try await control.transport.send("GET", "/_mock/v1/pushes", query: query, as: PushPage.self).pushes
    }

    /// Waits for a push matching `query`; the bound is generous (a loaded two-core CI machine) and under
    /// the control client's 30 s request timeout.
    package func waitForPush(_ query: [(String, String)], timeoutMs: Int = 25_000) async throws -> PushView {
        try await control.transport.send("GET", "/_mock/v1/pushes/wait", query: query + [("timeoutMs", String(timeoutMs))], as: PushView.self)
    }

    /// Waits until every push queued so far is in the outbox (the barrier for "no push was made").
    package func settlePushes() async throws {
        let response = try await control.transport.raw("GET", "/_mock/v1/pushes/settle", query: [("timeoutMs", "25000")])
        try HTTPTransport.check(response, method: "GET", path: "pushes/settle")
    }

    package func configurePush(account: String, _ body: Data) async throws {
        let response = try await control.transport.raw("PUT", "/_mock/v1/accounts/\(account)/push-settings", body: body)
        try HTTPTransport.check(response, method: "PUT", path: "push-settings")
    }
}
