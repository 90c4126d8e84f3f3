import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import CollabServer

/// Tenants without seed files: a super admin's session switches accounts and impersonates; users get,
/// lose and report passwords. In process (router mode), against the two-account seed.
@Suite("Tenants through the Web API")
struct TenantSwitchingTests {
    /// A small Web API caller over HummingbirdTesting's client.
    struct Caller {
        let client: any TestClientProtocol

        func call(
            _ method: String, _ path: String, _ body: String? = nil, auth: String?
        ) async throws -> (status: HTTPResponse.Status, json: [String: Any], headers: HTTPFields) {
            var headers = HTTPFields()
            if let auth { headers[.authorization] = auth }
            if body != nil { headers[.contentType] = "application/json" }
            let response = try await client.execute(
                uri: "/app/rest/v4/" + path, method: HTTPRequest.Method(method)!, headers: headers, body: body.map { ByteBuffer(string: $0) }
            )
            let json = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
            return (response.status, json, response.headers)
        }

        /// Logs in and returns the session as a bearer credential.
        func login(_ username: String, _ password: String) async throws -> String {
            let answer = try await call("POST", "authenticator/login", #"{"username":"\#(username)","password":"\#(password)"}"#, auth: nil)
            #expect(answer.status == .ok)
            let cookie = try #require(answer.headers[.setCookie])
            let token = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
            return "Bearer \(token)"
        }
    }

    static func basic(_ username: String, _ password: String) -> String { "Basic " + Data("\(username):\(password)".utf8).base64EncodedString() }

    func withServer(_ body: @escaping @Sendable (Caller, MockCollabServer) async throws -> Void) async throws {
        let server = try await MockCollabServer(
            configuration: ServerConfiguration(port: 0, storage: .memory, seed: twoAccountSeed, passwordHashCost: 4), logger: TestServer.logger
        )
        try await server.buildApplication().test(.router) { client in try await body(Caller(client: client), server) }
    }

    @Test("a super admin creates a tenant, gives its admin a password and works inside it, through the Web API alone")
    func tenantScript() async throws {
        try await withServer { api, _ in
            let root = try await api.login("root", "root")
            let created = try await api.call(
                "POST", "accounts/createAccountWithNewAdmin", #"{"account":{"name":"gamma"},"adminUser":{"username":"gamma-admin"}}"#, auth: root
            )
            #expect(created.status == .ok)
            let gammaId = try #require((created.json["account"] as? [String: Any])?["id"] as? String)
            let adminId = try #require((created.json["adminUser"] as? [String: Any])?["id"] as? String)

            // Acting in its own account, the super admin cannot reach the new admin.
            #expect(try await api.call("POST", "users/\(adminId)/setPassword", #"{"password":"gamma-pw"}"#, auth: root).status == .notFound)
            let switched = try await api.call("POST", "authenticator/switchToAccount", #"{"accountId":"\#(gammaId)"}"#, auth: root)
            #expect(switched.status == .ok)
            #expect(switched.json["$_type"] as? String == "LoginResult" && switched.json["success"] as? Bool == true)
            #expect(try await api.call("GET", "accounts/getCurrentAccount", auth: root).json["id"] as? String == gammaId)
            #expect(try await api.call("GET", "users/\(adminId)/hasPassword", auth: root).json["hasPassword"] as? Bool == false)
            #expect(try await api.call("POST", "users/\(adminId)/setPassword", #"{"password":"gamma-pw"}"#, auth: root).status == .ok)
            let has = try await api.call("GET", "users/\(adminId)/hasPassword", auth: root)
            #expect(has.json["$_type"] as? String == "HasPasswordData" && has.json["hasPassword"] as? Bool == true)

            // The new admin works in the tenant with its own credentials.
            let admin = Self.basic("gamma-admin", "gamma-pw")
            #expect(try await api.call("GET", "accounts/getCurrentAccount", auth: admin).json["id"] as? String == gammaId)
            #expect(try await api.call("POST", "namedareas/create", #"{"name":"Gamma","siteId":"gamma-area"}"#, auth: admin).status == .ok)
            #expect(try await api.call("POST", "apikeys/create", #"{"name":"gamma-key"}"#, auth: admin).status == .ok)
            let random = try await api.call(
                "POST", "users/createWithRandomPassword", #"{"username":"gamma-agent","authorizationRole":"REGISTERED_USER"}"#, auth: admin)
            #expect(random.status == .ok)
            #expect(random.json["password"] == nil, "the random password is never shown")
            let agentId = try #require(random.json["id"] as? String)
            #expect(try await api.call("GET", "users/\(agentId)/hasPassword", auth: admin).json["hasPassword"] as? Bool == true)
            let removed = try await api.call("POST", "users/\(agentId)/removePassword", auth: admin)
            #expect(removed.status == .ok && removed.json["$_type"] as? String == "User")
            #expect(try await api.call("GET", "users/\(agentId)/hasPassword", auth: admin).json["hasPassword"] as? Bool == false)

            // Impersonation: the super admin acts as the tenant's admin, with its role, then resets.
            #expect(try await api.call("POST", "authenticator/impersonate", #"{"username":"gamma-admin"}"#, auth: root).status == .ok)
            #expect(try await api.call("GET", "authenticator/getCurrentPerson", auth: root).json["username"] as? String == "gamma-admin")
            #expect(
                try await api.call("POST", "accounts/search", "{}", auth: root).status == .forbidden,
                "the impersonated admin's role, not the super admin's")
            #expect(try await api.call("POST", "authenticator/switchToAccount", #"{"accountId":"\#(gammaId)"}"#, auth: root).status == .forbidden)
            #expect(try await api.call("POST", "authenticator/resetImpersonation", auth: root).status == .ok)
            #expect(try await api.call("POST", "accounts/search", "{}", auth: root).status == .ok)
            #expect(try await api.call("GET", "accounts/getCurrentAccount", auth: root).json["id"] as? String == gammaId, "the switch stays")
            #expect(try await api.call("POST", "authenticator/impersonate", #"{"username":"gamma-admin","keepRole":true}"#, auth: root).status == .ok)
            #expect(try await api.call("POST", "accounts/search", "{}", auth: root).status == .ok, "keepRole keeps SUPER_ADMIN")

            // Switching to its own account switches back (and ends the impersonation).
            let home = try #require(try await api.call("GET", "accounts/getCurrentAccount", auth: Self.basic("root", "root")).json["id"] as? String)
            #expect(try await api.call("POST", "authenticator/switchToAccount", #"{"accountId":"\#(home)"}"#, auth: root).status == .ok)
            #expect(try await api.call("GET", "accounts/getCurrentAccount", auth: root).json["id"] as? String == home)
            #expect(try await api.call("GET", "authenticator/getCurrentPerson", auth: root).json["username"] as? String == "root")
        }
    }

    @Test("switching and impersonating keep isolation exact: sessions only, super admins only, one session at a time")
    func isolation() async throws {
        try await withServer { api, server in
            let betaId = try #require(server.environment.repository.directory.account(named: "beta")?.id)
            let alphaArea = try #require(
                try await api.call("POST", "namedareas/search", "{}", auth: Self.basic("alpha-admin", "pw-a")).json["items"] as? [[String: Any]])
            let alphaAreaId = try #require(alphaArea.first?["id"] as? String)
            let alphaAgentId = try #require(
                try await api.call("GET", "users/getByUsername?username=alpha-agent", auth: Self.basic("alpha-admin", "pw-a")).json["id"] as? String)
            let switchBody = #"{"accountId":"\#(betaId)"}"#

            // Roles: anonymous callers get 401, everyone below SUPER_ADMIN 403 (resetImpersonation needs REGISTERED_USER).
            for path in ["authenticator/switchToAccount", "authenticator/impersonate", "authenticator/resetImpersonation"] {
                #expect(try await api.call("POST", path, "{}", auth: nil).status == .unauthorized, "\(path)")
            }
            let adminSession = try await api.login("alpha-admin", "pw-a")
            #expect(try await api.call("POST", "authenticator/switchToAccount", switchBody, auth: adminSession).status == .forbidden)
            #expect(try await api.call("POST", "authenticator/impersonate", #"{"username":"beta-admin"}"#, auth: adminSession).status == .forbidden)
            #expect(
                try await api.call("POST", "authenticator/resetImpersonation", "{}", auth: Self.basic("alpha-webuser", "pw-a")).status == .forbidden)
            for path in ["users/\(alphaAgentId)/hasPassword", "users/\(alphaAgentId)/removePassword"] {
                let method = path.hasSuffix("hasPassword") ? "GET" : "POST"
                #expect(try await api.call(method, path, auth: Self.basic("alpha-agent", "pw-a")).status == .forbidden, "\(path)")
                #expect(
                    try await api.call(method, path, auth: Self.basic("beta-admin", "pw-b")).status == .notFound, "another account's user: \(path)")
            }
            #expect(
                try await api.call("POST", "users/createWithRandomPassword", #"{"username":"x"}"#, auth: Self.basic("alpha-agent", "pw-a")).status
                    == .forbidden)

            // Only a login session switches: basic auth is refused, so is an unknown account.
            #expect(try await api.call("POST", "authenticator/switchToAccount", switchBody, auth: Self.basic("root", "root")).status == .badRequest)
            let root = try await api.login("root", "root")
            #expect(try await api.call("POST", "authenticator/switchToAccount", #"{"accountId":"nope"}"#, auth: root).status == .notFound)
            #expect(try await api.call("POST", "authenticator/switchToAccount", "{}", auth: root).status == .badRequest)
            #expect(try await api.call("POST", "authenticator/impersonate", #"{"userId":"nope"}"#, auth: root).status == .notFound)
            #expect(try await api.call("POST", "authenticator/impersonate", "{}", auth: root).status == .badRequest)
            #expect(try await api.call("POST", "authenticator/resetImpersonation", "{}", auth: root).status == .ok, "nothing to reset is fine")

            // Switched into beta, the session sees beta only; other sessions and basic auth are unchanged.
            let other = try await api.login("root", "root")
            #expect(try await api.call("POST", "authenticator/switchToAccount", switchBody, auth: root).status == .ok)
            #expect(try await api.call("GET", "namedareas/\(alphaAreaId)/read", auth: root).status == .notFound)
            #expect(try await api.call("GET", "users/\(alphaAgentId)/hasPassword", auth: root).status == .notFound)
            let betaAreas = try #require(try await api.call("POST", "namedareas/search", "{}", auth: root).json["items"] as? [[String: Any]])
            #expect(betaAreas.map { $0["siteId"] as? String } == ["beta-area"])
            #expect(try await api.call("GET", "namedareas/\(alphaAreaId)/read", auth: other).status == .ok)
            #expect(try await api.call("GET", "namedareas/\(alphaAreaId)/read", auth: Self.basic("root", "root")).status == .ok)
            // By id, impersonation looks in the account the session acts in.
            #expect(try await api.call("POST", "authenticator/impersonate", #"{"userId":"\#(alphaAgentId)"}"#, auth: root).status == .notFound)
            #expect(try await api.call("POST", "authenticator/impersonate", #"{"username":"beta-agent"}"#, auth: root).status == .ok)
            #expect(
                try await api.call("POST", "namedareas/create", #"{"name":"x","siteId":"x"}"#, auth: root).status == .forbidden,
                "an agent's role now")
            // A logout ends it all.
            _ = try await api.call("POST", "authenticator/logout", auth: root)
            #expect(try await api.call("GET", "accounts/getCurrentAccount", auth: root).status == .unauthorized)
        }
    }
}
