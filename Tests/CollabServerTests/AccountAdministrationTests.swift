import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import Testing

@testable import CollabServer

/// The account operations beyond the record, the secure-token logout, one-time tokens for the current
/// user, `users/readMultiple` and bot persons, over real sockets; every body is checked against the
/// vendor's schema.
@Suite("Accounts, authenticator, users and bot persons: the vendor's behaviour")
struct AccountAdministrationTests {
    @Test("the account secret, ingress and quota usage: stored, per account, seen only by the roles the spec allows; kept over a restart")
    func secretIngressQuota() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let (alphaId, secret) = try await TestServer.with(storage: storage, seed: twoAccountSeed) { server in
            let root = server.admin("root", "root").transport
            let admin = server.admin("alpha-admin", "pw-a").transport
            let alpha = try await root.webAPI("GET", "accounts/getByName", query: [("name", "alpha")], schema: "Account")
            let beta = try await root.webAPI("GET", "accounts/getByName", query: [("name", "beta")], schema: "Account")
            let alphaId = try #require(alpha["id"] as? String)
            let betaId = try #require(beta["id"] as? String)

            let list = try await root.webAPI("POST", "accounts/readMultiple", #"["\#(betaId)","missing","\#(alphaId)"]"#, schema: "AccountList")
            #expect((list["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["beta", "alpha"], "order kept, missing left out")

            let secret = try await admin.webAPI("GET", "accounts/\(alphaId)/getAccountSecret", schema: "AccountSecret")
            let key = try #require(secret["secretKey"] as? String)
            #expect(key.count >= 32 && secret["accountId"] as? String == alphaId)
            #expect(try await admin.webAPI("GET", "accounts/\(alphaId)/getAccountSecret")["secretKey"] as? String == key, "the same on every read")
            let betaSecret = try await root.webAPI("GET", "accounts/\(betaId)/getAccountSecret", schema: "AccountSecret")
            #expect(betaSecret["secretKey"] as? String != key, "each account has its own")
            _ = try await server.admin("alpha-supervisor", "pw-a").transport.webAPI("GET", "accounts/\(alphaId)/getAccountSecret", status: 403)
            _ = try await admin.webAPI("GET", "accounts/\(betaId)/getAccountSecret", status: 404)
            let current = try await server.admin("alpha-agent", "pw-a").transport.webAPI("GET", "accounts/getCurrentAccount", schema: "Account")
            #expect(!String(describing: current).contains(key), "the account's record does not carry its secret")

            let initial = try await admin.webAPI("GET", "accounts/\(alphaId)/getIngressStatus", schema: "AccountIngressStatus")
            #expect(initial["enabled"] as? Bool == false && initial["ingressStatus"] as? String == "GLOBAL")
            #expect(initial["migrationStatus"] as? String == "DONE_INGRESS_INACTIVE")
            _ = try await admin.webAPI("POST", "accounts/\(alphaId)/enableAccountIngress", status: 403)
            _ = try await root.webAPI("POST", "accounts/\(alphaId)/enableAccountIngress", status: 204)
            let enabled = try await admin.webAPI("GET", "accounts/\(alphaId)/getIngressStatus", schema: "AccountIngressStatus")
            #expect(enabled["enabled"] as? Bool == true && enabled["ingressStatus"] as? String == "ACCOUNT")
            #expect(enabled["migrationStatus"] as? String == "DONE_INGRESS_ACTIVE")
            _ = try await root.webAPI("POST", "accounts/\(alphaId)/restartIngressMigration", status: 204)
            let betaIngress = try await root.webAPI("GET", "accounts/\(betaId)/getIngressStatus")
            #expect(betaIngress["enabled"] as? Bool == false, "beta's ingress is its own")

            _ = try await admin.webAPI("POST", "teams/create", #"{"$_type":"Team","name":"Counted"}"#)
            let quota = try await server.admin("alpha-supervisor", "pw-a").transport.webAPI(
                "GET", "accounts/getQuotaUsage", schema: "AccountQuotaUsageData")
            #expect((quota["users"] as? [String: Any])?["current"] as? Int == 5)
            #expect((quota["apiKeys"] as? [String: Any])?["current"] as? Int == 1)
            #expect((quota["teams"] as? [String: Any])?["limit"] as? String == "UNLIMITED")
            #expect((quota["teams"] as? [String: Any])?["current"] as? Int == 1, "the team just made")
            _ = try await server.admin("alpha-agent", "pw-a").transport.webAPI("GET", "accounts/getQuotaUsage", status: 403)

            let minutes = try await admin.webAPI(
                "GET", "accounts/\(alphaId)/getRecordedMinutes", query: [("fromTime", "0")], schema: "RecordedMinutesData")
            #expect(minutes["recordedMinutes"] as? Int == 0)
            _ = try await admin.webAPI("GET", "global/getRecordedMinutes", schema: "RecordedMinutesData")
            let global = try await root.webAPI("GET", "global/read", query: [("expand", "configuration")], schema: "GlobalData")
            #expect((global["currentLicense"] as? [String: Any])?["state"] as? String == "ACTIVE" && global["configuration"] != nil)
            _ = try await admin.webAPI("GET", "global/read", status: 403)
            let installed = try await root.webAPI("POST", "global/installLicense", "LICENSE-CONTENT-A", schema: "GlobalData")
            let licenseId = GlobalRoutes.licenseId(of: "LICENSE-CONTENT-A")
            #expect((installed["currentLicense"] as? [String: Any])?["licenseId"] as? String == licenseId)
            let updated = try await root.webAPI(
                "POST", "global/update", #"{"$_type":"GlobalData","configuration":{"com.unblu.mockcollab.example":"global"}}"#,
                query: [("expand", "configuration")], schema: "GlobalData"
            )
            #expect((updated["configuration"] as? [String: String])?["com.unblu.mockcollab.example"] == "global")
            let reread = try await root.webAPI("GET", "global/read", query: [("expand", "configuration")])
            #expect((reread["configuration"] as? [String: String]) == ["com.unblu.mockcollab.example": "global"], "the GLOBAL level is replaced")
            #expect((reread["currentLicense"] as? [String: Any])?["licenseId"] as? String == licenseId, "global/update keeps the licence")
            return (alphaId, key)
        }
        try await TestServer.with(storage: storage, seed: twoAccountSeed) { server in
            let admin = server.admin("alpha-admin", "pw-a").transport
            let stored = try await admin.webAPI("GET", "accounts/\(alphaId)/getAccountSecret")
            let ingress = try await admin.webAPI("GET", "accounts/\(alphaId)/getIngressStatus")
            #expect(stored["secretKey"] as? String == secret, "the secret is stored")
            #expect(ingress["ingressStatus"] as? String == "ACCOUNT", "ingress is stored")
            let global = try await server.admin("root", "root").transport.webAPI("GET", "global/read", query: [("expand", "configuration")])
            #expect((global["configuration"] as? [String: String])?["com.unblu.mockcollab.example"] == "global", "the GLOBAL level is stored")
            let license = global["currentLicense"] as? [String: Any]
            #expect(license?["licenseId"] as? String == GlobalRoutes.licenseId(of: "LICENSE-CONTENT-A") && license?["state"] as? String == "ACTIVE")
            let removed = try await server.admin("root", "root").transport.webAPI("POST", "global/removeLicense", schema: "GlobalData")
            let none = removed["currentLicense"] as? [String: Any]
            #expect(none?["state"] as? String == "NO_LICENSE" && none?["licenseId"] == nil, "removeLicense leaves none")
            let reread = try await server.admin("root", "root").transport.webAPI("GET", "global/read", query: [("expand", "configuration")])
            #expect((reread["currentLicense"] as? [String: Any])?["state"] as? String == "NO_LICENSE")
            #expect((reread["configuration"] as? [String: String])?["com.unblu.mockcollab.example"] == "global", "removing keeps the configuration")
        }
    }

    @Test("logoutWithSecureToken ends the SSO visitor's sessions; a token for the current user logs in once")
    func secureTokenLogoutAndCurrentUserToken() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let issued = try await server.control.issueToken(account: "alpha", TestTokenRequest(subject: "sso-visitor"))
            let visitor = server.anonymous
            try await visitor.authenticator.loginWithSecureToken(issued.token, apiKey: "alpha-key")
            #expect(try await visitor.authenticator.currentPerson().sourceId == "sso-visitor")

            let backend = server.anonymous.transport
            _ = try await backend.webAPI(
                "POST", "authenticator/logoutWithSecureToken", #"{"token":"\#(issued.token)"}"#, query: [("x-unblu-apikey", "beta-key")],
                status: 401)
            _ = try await backend.webAPI(
                "POST", "authenticator/logoutWithSecureToken", #"{"token":"\#(issued.token)","type":"JWT"}"#,
                query: [("x-unblu-apikey", "alpha-key")], status: 204)
            do throws(CollabClientError) {
                _ = try await visitor.authenticator.currentPerson()
                Issue.record("the visitor's session outlived the backend's logout")
            } catch {
                #expect(error.code == .authorization)
            }

            let agent = server.admin("alpha-agent", "pw-a").transport
            let created = try await agent.webAPI(
                "POST", "authenticator/createAuthenticationTokenForCurrentUser", schema: "AuthenticationTokenCreationResult")
            let token = try #require(created["token"] as? String)
            let browser = server.anonymous
            _ = try await browser.transport.webAPI(
                "GET", "authenticator/authenticateWithToken", query: [("authenticationToken", token)], schema: "LoginResult")
            #expect(try await browser.authenticator.currentPerson().username == "alpha-agent")
            _ = try await server.anonymous.transport.webAPI(
                "GET", "authenticator/authenticateWithToken", query: [("authenticationToken", token)], status: 401)
            _ = try await server.anonymous.transport.webAPI("POST", "authenticator/createAuthenticationTokenForCurrentUser", status: 401)
        }
    }

    @Test(
        "users/readMultiple keeps order, leaves out missing and other accounts' ids; bot persons are created, updated, searched; visitors by state"
    )
    func usersAndBotPersons() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let agent = server.admin("alpha-agent", "pw-a").transport
            let admin = server.admin("alpha-admin", "pw-a").transport
            func userId(_ transport: HTTPTransport, _ name: String) async throws -> String {
                try #require(try await transport.webAPI("GET", "users/getByUsername", query: [("username", name)])["id"] as? String)
            }
            let ids = [
                try await userId(agent, "alpha-admin"), "missing", try await userId(server.admin("beta-admin", "pw-b").transport, "beta-agent"),
                try await userId(agent, "alpha-agent"),
            ]
            let body = String(data: try JSONEncoder().encode(ids), encoding: .utf8)
            let users = try await agent.webAPI("POST", "users/readMultiple", body, schema: "UserList")
            #expect((users["items"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["alpha-admin", "alpha-agent"])

            let created = try await admin.webAPI(
                "POST", "persons/createOrUpdateBot", #"{"$_type":"PersonData","sourceId":"faq-bot","firstName":"Faq"}"#, schema: "PersonData")
            #expect(created["personType"] as? String == "BOT")
            let updated = try await admin.webAPI(
                "POST", "persons/createOrUpdateBot", #"{"sourceId":"faq-bot","firstName":"Helper"}"#, schema: "PersonData")
            #expect(updated["id"] as? String == created["id"] as? String && updated["firstName"] as? String == "Helper")
            let found = try await agent.webAPI("POST", "persons/searchBots", #"{"$_type":"PersonTypedQuery"}"#, schema: "PersonResult")
            #expect((found["items"] as? [[String: Any]])?.compactMap { $0["sourceId"] as? String } == ["faq-bot"])
            let visitors = try await agent.webAPI("POST", "persons/searchVisitors", "{}")
            #expect((visitors["items"] as? [[String: Any]])?.contains { $0["sourceId"] as? String == "faq-bot" } == false)
            let beta = try await server.admin("beta-agent", "pw-b").transport.webAPI("POST", "persons/searchBots", "{}")
            #expect((beta["items"] as? [[String: Any]])?.isEmpty == true, "beta sees none of alpha's bots")

            // Visitors by state: online while their app is started.
            let app = visitor(server, device: "state-phone", apiKey: "alpha-key")
            try await app.start()
            func visitorsBy(_ state: String) async throws -> [String] {
                let body =
                    #"{"$_type":"VisitorStateQuery","searchFilters":[{"field":"ONLINE_STATE","operator":{"type":"EQUALS","value":"\#(state)"}}]}"#
                let page = try await admin.webAPI("POST", "persons/searchVisitorsByState", body, schema: "VisitorPersonStateResult")
                return (page["items"] as? [[String: Any]])?.compactMap { $0["personId"] as? String } ?? []
            }
            let online = try await visitorsBy("ONLINE")
            #expect(online.count == 1, "the started app's visitor")
            let offline = try await visitorsBy("OFFLINE")
            let seeded = try await agent.webAPI("GET", "persons/getBySource", query: [("personSource", "VIRTUAL"), ("sourceId", "alpha-visitor")])
            #expect(offline.contains(try #require(seeded["id"] as? String)), "the seeded visitor has no app started")
            #expect(!offline.contains(online.first ?? ""))
            _ = try await server.admin("alpha-agent", "pw-a").transport.webAPI("POST", "persons/searchVisitorsByState", "{}", status: 403)
        }
    }
}
