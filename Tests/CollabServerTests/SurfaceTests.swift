import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// Each surface answers with its own authenticator and its own error body, whatever the request
/// carries; a path outside every surface is a 404. In process, through HummingbirdTesting's router
/// mode.
@Suite("Surfaces")
struct SurfaceTests {
    /// What a request presents.
    enum Credential: String, Sendable {
        case none, agentBasic, adminBasic, clientToken, agentSession, controlToken, unknownBearer, malformed
    }

    /// The body an answer must have.
    enum Body: String, Sendable {
        /// The Web API `Error` body (`$_type: Error`).
        case webAPI
        /// The mobile and agent APIs' typed body.
        case typed
        /// Not an error: only the status is checked.
        case success
    }

    struct Case: Sendable, CustomStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var credential: Credential
        var status: HTTPResponse.Status
        var body: Body
        /// The typed body's `type`, where it matters.
        var type: String? = nil
        var description: String { "\(method) \(path) with \(credential.rawValue)" }
    }

    static let cases: [Case] = [
        // Web API: Basic, sessions, the control token; not a client's token, in its own body.
        .init(method: .get, path: "/app/rest/v4/accounts/getCurrentAccount", credential: .adminBasic, status: .ok, body: .success),
        .init(method: .get, path: "/unblu/rest/v4/accounts/getCurrentAccount", credential: .agentSession, status: .ok, body: .success),
        .init(method: .get, path: "/app/rest/v4/accounts/getCurrentAccount", credential: .clientToken, status: .unauthorized, body: .webAPI),
        .init(method: .get, path: "/app/rest/v4/accounts/getCurrentAccount", credential: .unknownBearer, status: .unauthorized, body: .webAPI),
        .init(method: .get, path: "/app/rest/v4/accounts/getCurrentAccount", credential: .none, status: .unauthorized, body: .webAPI),
        .init(method: .get, path: "/app/rest/v4/nothing/here", credential: .adminBasic, status: .notFound, body: .webAPI),
        .init(method: .delete, path: "/app/rest/v4/accounts/getCurrentAccount", credential: .adminBasic, status: .notFound, body: .webAPI),
        // Mobile: a client's token only, in the typed body.
        .init(method: .get, path: "/mobile/v1/clients/current", credential: .clientToken, status: .ok, body: .success),
        .init(method: .get, path: "/mobile/v1/clients/current", credential: .adminBasic, status: .unauthorized, body: .typed, type: "AUTHORIZATION"),
        .init(method: .get, path: "/mobile/v1/clients/current", credential: .agentSession, status: .unauthorized, body: .typed),
        .init(method: .get, path: "/mobile/v1/clients/current", credential: .controlToken, status: .unauthorized, body: .typed),
        .init(method: .get, path: "/mobile/v1/clients/current", credential: .malformed, status: .unauthorized, body: .typed, type: "AUTHORIZATION"),
        .init(method: .get, path: "/mobile/v1/nothing", credential: .clientToken, status: .notFound, body: .typed, type: "NOT_FOUND"),
        .init(method: .get, path: "/mobile/v1/clients", credential: .none, status: .notFound, body: .typed, type: "NOT_FOUND"),
        // Agent: Basic and sessions, not a client's token, in the typed body.
        .init(method: .get, path: "/agent/v1/me", credential: .agentBasic, status: .ok, body: .success),
        .init(method: .get, path: "/agent/v1/me", credential: .agentSession, status: .ok, body: .success),
        .init(method: .get, path: "/agent/v1/me", credential: .clientToken, status: .unauthorized, body: .typed, type: "AUTHORIZATION"),
        .init(method: .get, path: "/agent/v1/me", credential: .none, status: .unauthorized, body: .typed, type: "AUTHORIZATION"),
        .init(method: .post, path: "/agent/v1/conversations/x/nothing", credential: .agentBasic, status: .notFound, body: .typed, type: "NOT_FOUND"),
        // Control: admins and the control token, in the Web API body; the role is the group's.
        .init(method: .get, path: "/_mock/v1/clock", credential: .controlToken, status: .ok, body: .success),
        .init(method: .get, path: "/_mock/v1/clock", credential: .adminBasic, status: .ok, body: .success),
        .init(method: .get, path: "/_mock/v1/clock", credential: .agentBasic, status: .forbidden, body: .webAPI),
        .init(method: .get, path: "/_mock/v1/clock", credential: .clientToken, status: .unauthorized, body: .webAPI),
        .init(method: .get, path: "/_mock/v1/nothing", credential: .none, status: .unauthorized, body: .webAPI),
        .init(method: .get, path: "/_mock/v1/nothing", credential: .controlToken, status: .notFound, body: .webAPI),
        // Ops: whatever credentials come, the probes answer.
        .init(method: .get, path: "/healthz", credential: .malformed, status: .ok, body: .success),
        .init(method: .get, path: "/readyz", credential: .unknownBearer, status: .ok, body: .success),
        // Outside every surface: 404 in the Web API body, credentials or not.
        .init(method: .get, path: "/nothing/here", credential: .none, status: .notFound, body: .webAPI),
        .init(method: .get, path: "/nothing/here", credential: .unknownBearer, status: .notFound, body: .webAPI),
        .init(method: .get, path: "/mobile", credential: .clientToken, status: .notFound, body: .webAPI),
        .init(method: .post, path: "/index.html", credential: .none, status: .notFound, body: .webAPI),
    ]

    @Test("each surface: its own credentials and error body; nothing outside them", .serialized, arguments: cases)
    func surface(_ row: Case) async throws {
        try await InProcessServer.with { server in
            let authorization = try await Self.authorization(row.credential, server)
            let answer = try await server.call(row.method, row.path, authorization: authorization)
            #expect(answer.status == row.status, "\(row) answered \(answer.status.code) \(answer.text)")
            switch row.body {
            case .success:
                break
            case .webAPI:
                let body = try answer.decode(WebAPIError.self)
                #expect(body.type == "Error" && body.statusCode == row.status.code, "\(row): \(answer.text)")
            case .typed:
                let body = try answer.decode(APIErrorBody.self)
                #expect(body.status == row.status.code, "\(row): \(answer.text)")
                if let type = row.type { #expect(body.type == type, "\(row): \(answer.text)") }
            }
        }
    }

    @Test("a refused request is journaled with its surface's answer")
    func refusalsAreJournaled() async throws {
        try await InProcessServer.with { server in
            let refused = try await server.call(.get, "/mobile/v1/clients/current", authorization: InProcessServer.basic("admin", "admin"))
            #expect(refused.status == .unauthorized)
            _ = try await server.call(.get, "/nothing/here")
            let journal = try await server.call(.get, "/_mock/v1/journal", authorization: "Bearer test-control-token").decode(JournalPage.self)
            // Filed under the account whose user the basic credentials name (see the journal's refusals).
            #expect(journal.entries.contains { $0.path == "/mobile/v1/clients/current" && $0.status == 401 && $0.accountId != nil })
            #expect(journal.entries.contains { $0.path == "/nothing/here" && $0.status == 404 })
        }
    }

    /// The `Authorization` header for `credential`, starting a client or logging an agent in first.
    static func authorization(_ credential: Credential, _ server: InProcessServer) async throws -> String? {
        switch credential {
        case .none: return nil
        case .agentBasic: return InProcessServer.basic("agent", "agent")
        case .adminBasic: return InProcessServer.basic("admin", "admin")
        case .controlToken: return "Bearer test-control-token"
        case .unknownBearer: return "Bearer no-such-token"
        case .malformed: return "Basic"
        case .clientToken:
            let start = try await server.call(
                .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: "demo-api-key", deviceId: "surface-phone", device: .init(os: "iOS"))
            )
            return "Bearer " + (try start.decode(ClientStartResponse.self)).token
        case .agentSession:
            let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "agent", password: "agent"))
            return "Bearer " + (try login.decode(AgentLoginResponse.self)).token
        }
    }
}
