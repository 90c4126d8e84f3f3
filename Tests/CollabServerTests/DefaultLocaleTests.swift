import CollabCore
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// `authenticator/setDefaultLocale` (router mode): the locale comes back in MockCollab's cookie; a
/// logged-in user keeps it over a restart and gets it again at the next login; bad tags are a 400 naming
/// `locale` and change nothing.
@Suite("Default locale")
struct DefaultLocaleTests {
    @Test("anyone gets the cookie; a user keeps the locale over a restart, per user, and later logins answer it")
    func storedPerUser() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        try await InProcessServer.with(storage: storage, seed: twoAccountSeed) { server in
            let before = try server.stats()
            let anonymous = try await server.call(.post, "/app/rest/v4/authenticator/setDefaultLocale", body: #"{"locale":"fr"}"#)
            #expect(anonymous.status == .noContent)
            #expect(anonymous.headers[.setCookie]?.hasPrefix("\(localeCookieName)=fr;") == true, "\(anonymous.headers)")
            #expect(try server.stats() == before, "an anonymous caller's locale is only in the cookie")
            let agent = try await server.call(
                .post, "/app/rest/v4/authenticator/setDefaultLocale", authorization: InProcessServer.basic("alpha-agent", "pw-a"),
                body: #"{"locale":"de_CH"}"#
            )
            #expect(agent.status == .noContent)
            #expect(agent.headers[.setCookie]?.hasPrefix("\(localeCookieName)=de-CH;") == true)
        }
        try await InProcessServer.with(storage: storage, seed: twoAccountSeed) { server in
            func agentLogin(_ username: String, _ password: String) async throws -> AgentLoginResponse {
                try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: username, password: password)).decode()
            }
            #expect(try await agentLogin("alpha-agent", "pw-a").locale == "de-CH", "kept over the restart")
            #expect(try await agentLogin("beta-agent", "pw-b").locale == nil, "another user's is its own")
            let login = try await server.call(.post, "/app/rest/v4/authenticator/login", body: #"{"username":"alpha-agent","password":"pw-a"}"#)
            #expect(login.headers[values: .setCookie].contains { $0.hasPrefix("\(localeCookieName)=de-CH;") }, "a later session gets the cookie")
        }
    }

    @Test("a bad locale is a 400 naming locale and changes nothing", arguments: ["{}", #"{"locale":""}"#, #"{"locale":"e"}"#, #"{"locale":"en--US"}"#,
        #"{"locale":"en US"}"#, #"{"locale":"ünï"}"#, #"{"locale":"en-\#(String(repeating: "a", count: 40))"}"#, #"{"locale":"en-abcdefghi"}"#])
    func badLocale(body: String) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let before = try server.stats()
            let answer = try await server.call(
                .post, "/app/rest/v4/authenticator/setDefaultLocale", authorization: InProcessServer.basic("alpha-agent", "pw-a"), body: body
            )
            #expect(answer.status == .badRequest && answer.text.contains("locale"), "\(body) → \(answer.status) \(answer.text)")
            #expect(answer.headers[.setCookie] == nil)
            #expect(try server.stats() == before)
        }
    }
}
