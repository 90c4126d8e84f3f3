import CollabClient
import CollabCore
import CollabWire
import Foundation
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Testing

/// An access token that expires or is revoked while the app runs, and tokens carried by a cookie.
@Suite("Authentication at run time")
struct RuntimeAuthorizationTests {
    /// A seed whose account takes access tokens from the `SSO_TOKEN` cookie too.
    static let cookieSeed = Seed(accounts: [
        .init(
            name: "bank", apiKeys: [.init(key: "bank-key")], namedAreas: [.init(siteId: "retail")],
            users: [.init(username: "teller", password: "pw", role: .registeredUser, displayName: "Teller")], jwt: .init(cookie: "SSO_TOKEN")
        )
    ])

    @Test(
        "a token that expires while the app runs: a non-fatal AUTHORIZATION event, close 4003, the next request refused; a new token starts again"
    )
    func expiry() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "expiring", lifetimeSeconds: 60)).token
            let app = visitor(server, device: "expiring-phone", accessToken: token)
            let started = try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            // A second socket of the same client, to read the close code itself.
            let (connected, closed) = Self.liveSocket(server, token: started.token)
            for await _ in connected { break }
            // A client of another person is not told.
            let bystander = visitor(server, device: "bystander")
            try await bystander.start()
            let bystanderEvents = EventCollector(bystander.events)

            try await server.control.changeClock(ClockChange(advanceMillis: 61_000))
            try await events.wait(for: "the non-fatal AUTHORIZATION error") {
                if case .error(let error) = $0 { return error.type == .authorization && !error.isFatal && error.message.contains("expired") }
                return false
            }
            #expect(try await closed.value == LiveCloseCode.authorizationEnded)
            do {
                _ = try await app.conversations()
                Issue.record("an ended client's request succeeded")
            } catch let error as CollabClientError {
                #expect(error.code == .authorization && error.type == "AUTHORIZATION")
            }
            try await bystanderEvents.sync(bystander.liveConnection)
            #expect(!bystanderEvents.events.contains { $0.type == "client.error" })

            // Stop, a new token, start: it works.
            try await app.stop()
            let renewed = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "expiring")).token
            let again = visitor(server, device: "expiring-phone", accessToken: renewed)
            #expect(try await again.start().person.id == started.person.id)
            #expect(try await again.conversations().isEmpty)
        }
    }

    @Test("a revoked token ends the apps it started, agents' included, and starts no more")
    func revocation() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "agent-a")).token
            let app = AgentAppTests.agentApp(server, device: "revoked-agent", accessToken: token)
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            let visitorToken = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "kept")).token
            let kept = visitor(server, device: "kept-phone", accessToken: visitorToken)
            try await kept.start(liveEvents: false)

            let answer = try await server.control.revokeToken(account: "desk", token)
            #expect(answer.endedClients == 1)
            try await events.wait(for: "revoked") {
                if case .error(let error) = $0 { return error.type == .authorization && !error.isFatal && error.message.contains("revoked") }
                return false
            }
            await #expect(throws: CollabClientError.self) { try await app.conversations() }
            try await app.stop()
            let restart = AgentAppTests.agentApp(server, device: "revoked-agent", accessToken: token)
            do {
                try await restart.start()
                Issue.record("a revoked token started an app")
            } catch let error as CollabClientError {
                #expect(error.code == .authorization)
            }
            #expect(try await kept.conversations().isEmpty, "another token's app runs on")
            // A token that is not the account's is a 400 that changes nothing.
            let bad = try await server.control.transport.raw(
                "POST", "/_mock/v1/accounts/desk/tokens/revoke", body: try JSONEncoder().encode(TokenRevocationRequest(token: "not.a.jwt"))
            )
            #expect(bad.status == 400)
        }
    }

    @Test("a revoked token ends the Web API sessions it opened, the one-time tokens minted in them and their sessions; it opens no more")
    func revocationEndsWebSessions() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "web-visitor")).token
            let browser = server.anonymous
            try await browser.authenticator.loginWithSecureToken(token, apiKey: "desk-key")
            let person = try await browser.authenticator.currentPerson()
            // Two one-time tokens minted in that session: one opens a second session, one is kept unused.
            let mint = "/app/rest/v4/authenticator/createAuthenticationTokenForCurrentUser"
            let redeemed: WebAuthenticationTokenResult = try await browser.transport.send("POST", mint)
            let unused: WebAuthenticationTokenResult = try await browser.transport.send("POST", mint)
            let second = server.anonymous
            try await second.authenticator.authenticate(withToken: try #require(redeemed.token))
            #expect(try await second.authenticator.currentPerson().id == person.id)
            // Another token's session stays.
            let otherToken = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "web-other")).token
            let other = server.anonymous
            try await other.authenticator.loginWithSecureToken(otherToken, apiKey: "desk-key")

            let answer = try await server.control.revokeToken(account: "desk", token)
            #expect(answer.endedSessions == 3 && answer.endedClients == 0)
            for client in [browser, second] {
                await #expect(throws: CollabClientError.self) { try await client.authenticator.currentPerson() }
            }
            let unusedToken = try #require(unused.token)
            do throws(CollabClientError) {
                try await server.anonymous.authenticator.authenticate(withToken: unusedToken)
                Issue.record("a one-time token minted in a revoked token's session opened a session")
            } catch {
                #expect(error.code == .authorization)
            }
            do throws(CollabClientError) {
                try await server.anonymous.authenticator.loginWithSecureToken(token, apiKey: "desk-key")
                Issue.record("a revoked token logged in")
            } catch {
                #expect(error.code == .authorization && error.message.contains("revoked"))
            }
            #expect(try await other.authenticator.currentPerson().sourceId == "web-other")
            // Revocation stops logins, not the backend's logout: the token still names the visitor whose sessions end.
            let logout = try await server.anonymous.transport.raw(
                "POST", "/app/rest/v4/authenticator/logoutWithSecureToken", query: [("x-unblu-apikey", "desk-key")],
                body: try JSONEncoder().encode(WebSecureTokenRequest(token: token)))
            #expect(logout.status == 204, "\(String(decoding: logout.body, as: UTF8.self))")
            // Revoking again answers as before, with nothing left to end.
            let again = try await server.control.revokeToken(account: "desk", token)
            #expect(again.endedSessions == 0 && again.revokedUntil == answer.revokedUntil)
        }
    }

    @Test("an account's token cookie identifies a visitor's and an agent's app; the journal names the cookie, never its value")
    func customCookie() async throws {
        try await InProcessServer.with(seed: Self.cookieSeed) { server in
            let token = try await server.control.issueToken(account: "bank", TestTokenRequest(subject: "customer-7")).token
            let app = VisitorClient(configuration: ClientConfiguration(
                baseURL: server.baseURL, apiKey: "bank-key", customCookies: ["SSO_TOKEN": token, "theme": "dark"], deviceId: "cookie-phone"
            ))
            let started = try await app.start(liveEvents: false)
            #expect(started.person.sourceId == "customer-7")

            let agentToken = try await server.control.issueToken(account: "bank", TestTokenRequest(subject: "teller")).token
            let desk = AgentClient(configuration: ClientConfiguration(
                baseURL: server.baseURL, apiKey: "bank-key", customCookies: ["SSO_TOKEN": agentToken], deviceId: "teller-phone"
            ))
            #expect(try await desk.start(liveEvents: false).person.displayName == "Teller")

            let journal = try await server.control.journal(JournalFilter(method: "POST", path: "/mobile/v1/clients"))
            let entry = try #require(journal.entries.last)
            #expect(entry.status == 201)
            #expect(entry.authenticatedBy == "cookie SSO_TOKEN")
            let agentEntry = try #require(try await server.control.journal(JournalFilter(method: "POST", path: "/agent/v1/clients")).entries.last)
            #expect(agentEntry.authenticatedBy == "cookie SSO_TOKEN")
            let everything = String(decoding: try JSONEncoder().encode(try await server.control.journal(JournalFilter())), as: UTF8.self)
            #expect(!everything.contains(token), "the cookie's value never reaches the journal")

            // A cookie that does not check out is AUTHORIZATION; an access token in the body wins over it.
            let forged = VisitorClient(configuration: ClientConfiguration(
                baseURL: server.baseURL, apiKey: "bank-key", customCookies: ["SSO_TOKEN": "forged"], deviceId: "forged-phone"
            ))
            await #expect(throws: CollabClientError.self) { try await forged.start(liveEvents: false) }
            let other = try await server.control.issueToken(account: "bank", TestTokenRequest(subject: "customer-8")).token
            let both = VisitorClient(configuration: ClientConfiguration(
                baseURL: server.baseURL, apiKey: "bank-key", accessToken: other, customCookies: ["SSO_TOKEN": token], deviceId: "both-phone"
            ))
            #expect(try await both.start(liveEvents: false).person.sourceId == "customer-8")
            let bodyEntry = try #require(try await server.control.journal(JournalFilter(method: "POST", path: "/mobile/v1/clients")).entries.last)
            #expect(bodyEntry.authenticatedBy == nil)
        }
    }

    /// Opens a live socket with `token`: `connected` yields once the server's hello arrived, `closed`
    /// answers the close code the server ended it with.
    static func liveSocket(_ server: TestServer, token: String) -> (connected: AsyncStream<Void>, closed: Task<UInt16?, any Error>) {
        let (connected, hello) = AsyncStream.makeStream(of: Void.self)
        let closed = Task {
            var logger = Logger(label: "close-code")
            logger.logLevel = .critical
            let frame = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/mobile/v1/events?token=\(token)", logger: logger) {
                inbound, _, _ in
                for try await _ in inbound.messages(maxSize: 1 << 20) { hello.yield() }
            }
            hello.finish()
            guard let code = frame?.closeCode, case .unknown(let number) = code else { return UInt16?.none }
            return number
        }
        return (connected, closed)
    }
}
