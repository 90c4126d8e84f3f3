import CollabClient
import CollabCore
import CollabServer
import CollabWire
import Foundation
import HTTPTypes
import Testing

@Suite("Seeds and the control API")
struct SeedAndControlTests {
    static let exampleSeed: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/seed-example.yaml"), encoding: .utf8)) ?? ""
    }()

    @Test("the documented example seed applies, and applying it again changes nothing")
    func exampleSeedIsIdempotent() async throws {
        try await InProcessServer.with { server in
            let first = try await server.control.seed(Self.exampleSeed)
            #expect(first.created == 12, "account, 2 keys, 2 areas, 2 users, 1 person, 1 webhook, 1 bot, a team, a label... and \(first)")
            let stats = try await server.entityStats(account: "acme")
            let second = try await server.control.seed(Self.exampleSeed)
            #expect(second.created == 0)
            #expect(try await server.entityStats(account: "acme") == stats)

            let admin = server.admin("acme-admin", "change-me")
            let account = try await admin.accounts.current(expand: ["configuration", "metadata"])
            #expect(account.configuration == ["com.unblu.mobiledevice.iosMaxFpsRate": "4"])
            #expect(account.metadata == ["crmId": "ACME-1"])
            #expect(try await admin.apiKeys.getByKey("acme-ios-key").name == "iOS app")
            #expect(try await admin.users.getByUsername("acme-agent").teamId == "support-team")

            #expect(try await admin.persons.getBySource("VIRTUAL", sourceId: "crm-customer-17").email == "vera@customer.example")

            // A JWT signed with the seeded shared secret logs a visitor in.
            let token = try await server.control.issueToken(account: "acme", TestTokenRequest(subject: "app-user-1"))
            try await server.anonymous.authenticator.loginWithSecureToken(token.token, apiKey: "acme-ios-key")
        }
    }

    @Test("seeded webhooks and bots keep a given secret, get one when it is left out, and keep it when a seed leaves it out")
    func outboundSeeds() async throws {
        try await InProcessServer.with { server in
            let seed = """
                accounts:
                  - name: hooks
                    users: [{username: hooks-admin, password: pw, role: ADMIN}]
                    webhookRegistrations:
                      - {name: given, endpoint: "http://127.0.0.1:9/a", events: [conversation.created], secret: seeded-secret}
                      - {name: generated, endpoint: "http://127.0.0.1:9/b", events: ["*"], status: INACTIVE}
                    bots: [{name: Greeter, webhookEndpoint: "http://127.0.0.1:9/bot", onboardingFilter: VISITORS, onboardingOrder: 2}]
                """
            #expect(try await server.control.seed(seed).created == 5)
            let admin = server.admin("hooks-admin", "pw").transport
            func hook(_ name: String) async throws -> [String: Any] {
                try await admin.webAPI("GET", "webhookregistrations/getByName", query: [("name", name)])
            }
            #expect(try await hook("given")["secret"] as? String == "seeded-secret")
            let generated = try #require(try await hook("generated")["secret"] as? String)
            #expect(!generated.isEmpty)
            #expect(try await hook("generated")["status"] as? String == "INACTIVE")
            let bot = try await admin.webAPI("GET", "bots/getByName", query: [("name", "Greeter")])
            #expect(bot["onboardingFilter"] as? String == "VISITORS" && bot["onboardingOrder"] as? Int == 2)

            // The same seed without the given secret: nothing changes, secrets included.
            let again = try await server.control.seed(seed.replacingOccurrences(of: ", secret: seeded-secret", with: ""))
            #expect(again.created == 0 && again.updated == 0)
            #expect(try await hook("given")["secret"] as? String == "seeded-secret")
            #expect(try await hook("generated")["secret"] as? String == generated)
            // A changed field updates in place; a bad one is a 400 naming the entry.
            #expect(try await server.control.seed(seed.replacingOccurrences(of: "onboardingOrder: 2", with: "onboardingOrder: 3")).updated == 1)
            await #expect(throws: CollabClientError.self) {
                try await server.control.seed(seed.replacingOccurrences(of: "http://127.0.0.1:9/bot", with: "ftp://x"))
            }
        }
    }

    @Test("a changed seed updates in place: new password, new configuration, same ids")
    func seedUpdates() async throws {
        try await InProcessServer.with { server in
            try await server.control.seed(
                "accounts:\n  - name: t\n    users: [{username: u1, password: one, role: ADMIN}]\n    apiKeys: [{key: k1, name: first}]\n")
            let before = try await server.admin("u1", "one").users.getByUsername("u1")
            let result = try await server.control.seed(
                "{\"accounts\":[{\"name\":\"t\",\"configuration\":{\"x\":\"1\"},"
                    + "\"users\":[{\"username\":\"u1\",\"password\":\"two\",\"role\":\"ADMIN\"}],"
                    + "\"apiKeys\":[{\"key\":\"k1\",\"name\":\"renamed\"}]}]}"
            )
            #expect(result.created == 0)
            #expect(result.updated == 3)
            let admin = server.admin("u1", "two")
            #expect(try await admin.users.getByUsername("u1").id == before.id)
            #expect(try await admin.apiKeys.getByKey("k1").name == "renamed")
            #expect(try await admin.accounts.current(expand: ["configuration"]).configuration == ["x": "1"])
        }
    }

    @Test("an invalid seed is refused whole and changes nothing")
    func invalidSeed() async throws {
        try await InProcessServer.with { server in
            let before = try await server.entityStats()
            for text in [
                "accounts: [{name: ok}, {nameless: true}]", "accounts:\n  - name: ok2\n    apiKeys: [{key: demo-api-key}]\n", "{ not yaml: [",
                "accounts:\n  - name: ok3\n    users: [{username: agent, password: x}]\n",
                // A user's team that is no team of the account.
                "accounts:\n  - name: ok9\n    users: [{username: t9, password: x, teamId: no-such-team}]\n",
                // Refused after claiming: a new account's name and key, an existing account's new key.
                "accounts:\n  - name: ghost\n    apiKeys: [{key: fresh-key}, {key: demo-api-key}]\n",
                "accounts:\n  - name: demo\n    apiKeys: [{key: demo-fresh-key}]\n  - name: ghost2\n    apiKeys: [{key: demo-api-key}]\n",
            ] {
                do {
                    try await server.control.seed(text)
                    Issue.record("seed accepted: \(text)")
                } catch {
                    #expect((error as? CollabClientError)?.code == .badRequest || (error as? CollabClientError)?.code == .conflict, "\(error)")
                }
            }
            #expect(try await server.entityStats() == before)
            // Nothing a refused seed claimed stays claimed: the names and keys are free again.
            let names = try await server.admin("superadmin", "superadmin").accounts.search().items?.compactMap(\.name)
            #expect(names == ["demo"], "no account is left behind")
            let report = try await server.control.seed("accounts:\n  - name: ghost\n    apiKeys: [{key: fresh-key}, {key: demo-fresh-key}]\n")
            #expect(report.created == 3, "the account and both keys")
            #expect(try await server.admin("admin", "admin").apiKeys.search().items?.map(\.apiKey) == ["demo-api-key"])
        }
    }

    @Test("a misspelt key is refused, in YAML and in JSON, naming where it is", arguments: [
        ("accounts:\n  - name: ok5\n    webhookRegistrations: [{name: h, endpoint: 'https://hooks.example/in', events: ['*'], sekret: s}]\n",
         "accounts[0].webhookRegistrations[0].sekret"),
        (#"{"accounts": [{"name": "ok6", "namedAreas": [{"siteId": "a", "nmae": "A"}]}]}"#, "accounts[0].namedAreas[0].nmae"),
        ("acounts:\n  - name: ok7\n", "acounts"),
        (
            "accounts:\n  - name: ok8\n    faults: [{match: {surface: MOBILE, pathh: /x}, action: {type: ERROR}}]\n",
            "accounts[0].faults[0].match.pathh"
        ),
    ])
    func misspeltKey(text: String, path: String) async throws {
        try await InProcessServer.with { server in
            let before = try await server.entityStats()
            await #expect {
                try await server.control.seed(text)
            } throws: { error in
                let error = error as? CollabClientError
                return error?.code == .badRequest && error?.message == "invalid seed: unknown field '\(path)' (misspelt, or not part of the format)"
            }
            #expect(try await server.entityStats() == before)
        }
    }

    @Test("a misspelt field of a seeded entity is refused naming the item and the field, and nothing is seeded")
    func misspeltEntityField() async throws {
        try await InProcessServer.with { server in
            let before = try await server.entityStats()
            let text = "accounts:\n  - name: ok9\n    entities:\n      personLabels:\n        - {name: 'tier::gold', colour: gold}\n"
            await #expect {
                try await server.control.seed(text)
            } throws: { error in
                let error = error as? CollabClientError
                let expected = "seed: account 'ok9': entities.personLabels[0]: unknown field 'colour' (misspelt, or not a field of PersonLabel)"
                return error?.code == .badRequest && error?.message == expected
            }
            #expect(try await server.entityStats() == before)
            let fine = try await server.control.seed(text.replacingOccurrences(of: "colour", with: "color"))
            #expect(fine.created >= 2, "the account and its label")
        }
    }

    @Test("a value an enum does not have is refused naming the path and the values it has")
    func unknownEnumValue() async throws {
        _ = try await InProcessServer.with { server in
            await #expect {
                try await server.control.seed("accounts:\n  - name: e1\n    users: [{username: u, password: p, role: GOD}]\n")
            } throws: { error in
                let message = (error as? CollabClientError)?.message ?? ""
                return message.contains("accounts[0].users[0].role is invalid: 'GOD' is not one of ")
                    && AuthorizationRole.allCases.allSatisfy { message.contains($0.rawValue) }
            }
        }
    }

    @Test("a seed that names a thing twice is refused, naming both places", arguments: [
        (
            "accounts:\n  - name: d1\n    users: [{username: bob, password: a}, {username: bob, password: b}]\n",
            "accounts[0].users[1].username: the username 'bob' is already accounts[0].users[0].username"
        ),
        ("accounts: [{name: d2}, {name: d2}]", "accounts[1].name: the account name 'd2' is already accounts[0].name"),
        (
            "accounts:\n  - {name: d3, apiKeys: [{key: k3}]}\n  - {name: d4, apiKeys: [{key: k3}]}\n",
            "accounts[1].apiKeys[0].key: the API key 'k3' is already accounts[0].apiKeys[0].key"
        ),
        (
            "accounts:\n  - name: d5\n    namedAreas: [{siteId: s}, {siteId: s}]\n",
            "accounts[0].namedAreas[1].siteId: the siteId 's' is already accounts[0].namedAreas[0].siteId"
        ),
    ])
    func namedTwice(text: String, message: String) async throws {
        try await InProcessServer.with { server in
            let before = try await server.entityStats()
            await #expect {
                try await server.control.seed(text)
            } throws: { error in
                (error as? CollabClientError)?.message == "invalid seed: \(message); a seed names each once"
            }
            #expect(try await server.entityStats() == before)
            // Within its own account a siteId is unique; two accounts may share one.
            let twoAccounts = "accounts:\n  - {name: e1, namedAreas: [{siteId: s}]}\n  - {name: e2, namedAreas: [{siteId: s}]}\n"
            let shared = try await server.control.seed(twoAccounts)
            #expect(shared.created == 4)
        }
    }

    @Test("a seed may hold only global settings")
    func globalOnly() async throws {
        try await InProcessServer.with { server in
            let report = try await server.control.seed("global:\n  configuration: {com.example.global-only: 'yes'}\n")
            #expect(report.updated == 1 && report.created == 0)
        }
    }

    @Test("reset restores the startup tenant; resetting one account leaves the others alone")
    func reset() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alpha = server.admin("alpha-admin", "pw-a")
            let beta = server.admin("beta-admin", "pw-b")
            _ = try await alpha.namedAreas.create(WebNamedArea(name: "Extra", siteId: "extra"))
            _ = try await beta.namedAreas.create(WebNamedArea(name: "Extra", siteId: "extra"))
            _ = try await alpha.users.setPassword(try await alpha.users.getByUsername("alpha-agent").id!, password: "changed")

            try await server.control.reset(account: "alpha")
            #expect(try await alpha.namedAreas.search().items?.map(\.siteId) == ["alpha-area"])
            #expect(try await beta.namedAreas.search().items?.count == 2)
            #expect(try await server.admin("alpha-agent", "pw-a").accounts.current().name == "alpha", "seed password restored")

            _ = try await server.control.seed("accounts: [{name: gamma}]")
            try await server.control.reset()
            #expect(try await beta.namedAreas.search().items?.map(\.siteId) == ["beta-area"])
            let stats = try await server.entityStats()
            #expect(stats.accounts == 2, "gamma is gone, alpha and beta are back")
        }
    }

    @Test("a reset it does not understand is a 400 that resets nothing, never a full reset; ?account= is one account's")
    func resetIsStrict() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let beta = server.admin("beta-admin", "pw-b")
            _ = try await beta.namedAreas.create(WebNamedArea(name: "Extra", siteId: "extra"))
            let control = server.control.transport
            let refused: [(query: [(String, String)], body: String?)] = [
                ([], #"{"acount":"alpha"}"#), ([], #"{"account":null}"#), ([], #"{"account":""}"#), ([], #"{"account":5}"#),
                ([], "[]"), ([], "not json"), ([("acount", "alpha")], nil), ([("account", "")], nil),
                ([("account", "alpha")], #"{"account":"beta"}"#),
            ]
            for (query, body) in refused {
                let response = try await control.raw("POST", "/_mock/v1/reset", query: query, body: body.map { Data($0.utf8) })
                #expect(response.status == 400, "\(query) \(body ?? "-"): \(String(decoding: response.body, as: UTF8.self))")
            }
            #expect(try await beta.namedAreas.search().items?.count == 2, "nothing was reset")
            let byQuery = try await control.raw("POST", "/_mock/v1/reset", query: [("account", "alpha")])
            #expect(byQuery.status == 200)
            #expect(try await beta.namedAreas.search().items?.count == 2, "?account=alpha resets alpha only")
            let all = try await control.raw("POST", "/_mock/v1/reset", body: Data("{}".utf8))
            #expect(all.status == 200)
            #expect(try await beta.namedAreas.search().items?.map(\.siteId) == ["beta-area"], "{} resets everything")
        }
    }

    @Test("control bodies and filters refuse what they do not know: a misspelt key or parameter is a 400, never a silent no-op or a wider answer")
    func controlIsStrict() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let control = server.control.transport
            let before = try await server.control.clock().now
            let refused: [(String, String, [(String, String)], String?)] = [
                ("POST", "/_mock/v1/clock", [], #"{"advanceMilis": 60000}"#),
                ("POST", "/_mock/v1/accounts/alpha/tokens", [], #"{"subject": "v", "lifetimeSecond": 5}"#),
                ("POST", "/_mock/v1/accounts/alpha/tokens/revoke", [], #"{"token": "t", "reason": "x"}"#),
                ("GET", "/_mock/v1/journal", [("statuss", "4")], nil),
                ("GET", "/_mock/v1/pushes", [("kindd", "NEW_MESSAGE")], nil),
                ("GET", "/_mock/v1/pushes/wait", [("kindd", "NEW_MESSAGE"), ("timeoutMs", "0")], nil),
                ("GET", "/_mock/v1/webhooks/deliveries", [("evenType", "ping")], nil),
                ("GET", "/_mock/v1/webhooks/deliveries/wait", [("evenType", "ping"), ("timeoutMs", "0")], nil),
            ]
            for (method, path, query, body) in refused {
                let response = try await control.raw(method, path, query: query, body: body.map { Data($0.utf8) })
                let text = String(decoding: response.body, as: UTF8.self)
                #expect(response.status == 400, "\(method) \(path) \(query) \(body ?? ""): \(response.status) \(text)")
                #expect(text.contains("Milis") || text.contains("Second") || text.contains("reason") || text.contains("kindd")
                    || text.contains("statuss") || text.contains("evenType"), "the refusal names the key: \(text)")
            }
            #expect(try await server.control.clock().now - before < 60_000, "the clock did not move")
            #expect(try await control.raw("GET", "/_mock/v1/journal", query: [("status", "4"), ("limit", "5")]).status == 200)
        }
    }

    @Test("a reset forgets what was recorded: an account's with the account, everything and the clock with a full reset")
    func resetForgetsRecords() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "reset-phone", version: .notEncrypted)
            _ = try await scenario.agent.send("hello", in: scenario.conversationId)
            let accountId = try await server.waitForPush([("kind", "NEW_MESSAGE")]).accountId
            func journal(_ accountId: String? = nil) async throws -> [JournalEntry] {
                try await server.control.journal(JournalFilter(accountId: accountId)).entries
            }
            #expect(try await !journal(accountId).isEmpty)
            _ = try await server.control.changeClock(ClockChange(advanceMillis: 3_600_000, frozen: true))

            _ = try await server.control.reset(account: accountId)
            #expect(try await journal(accountId).isEmpty, "the account's requests are forgotten")
            #expect(try await server.pushes().isEmpty, "and its pushes")
            #expect(try await server.control.clock().frozen, "an account reset leaves the server's clock alone")
            #expect(try await !journal().isEmpty, "other requests are kept (the control API's own)")

            _ = try await server.control.reset()
            #expect(try await journal().map(\.path) == ["/_mock/v1/reset"], "only the reset itself, recorded after it")
            let clock = try await server.control.clock()
            #expect(!clock.frozen && abs(clock.offset) < 60_000, "the clock follows system time again")
        }
    }

    @Test("a request whose route identifies the caller (a client start by its API key, an agent's login) is journaled with the account")
    func journalNamesRouteIdentifiedCallers() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "journal-phone")
            _ = try await app.start(liveEvents: false)
            _ = try await agent(server, "agent-a")
            let accountId = try await server.admin("admin-d", "pw").accounts.current().id
            let entries = try await server.control.journal(JournalFilter(accountId: accountId)).entries
            #expect(entries.contains { $0.path == "/mobile/v1/clients" && $0.status == 201 })
            let login = try #require(entries.first { $0.path == "/agent/v1/login" })
            #expect(login.userId != nil, "the agent's user, too")
        }
    }

    @Test("a refused request is journaled under the account its credentials name, when the server knows it")
    func journalNamesRefusedCallers() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let started = try await visitor(server, device: "refused-phone").start(liveEvents: false)
            let wrongPassword = try await server.call(
                .get, "/app/rest/v4/accounts/getCurrentAccount", authorization: InProcessServer.basic("admin-d", "not-the-password"))
            #expect(wrongPassword.status == .unauthorized)
            let wrongSurface = try await server.call(.get, "/agent/v1/queue", authorization: "Bearer \(started.token)")
            #expect(wrongSurface.status == .unauthorized, "a visitor's token on the agent API")
            let nobody = try await server.call(
                .get, "/app/rest/v4/accounts/getCurrentAccount", authorization: InProcessServer.basic("nobody-at-all", "pw"))
            #expect(nobody.status == .unauthorized)
            // A call credential anyone could write for the account: its claims parse, but no call's secret signed it.
            let callId = "2F1D0C4E-3A5B-4C6D-8E7F-901A2B3C4D5E"
            let forged = CallCredential.prefix + "\(started.accountId).\(callId).\(Data("p:d".utf8).base64EncodedString()).forged"
            #expect(CallCredential.claims(of: forged)?.accountId == started.accountId)
            let forgedCall = try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount?junk", authorization: "Bearer \(forged)")
            #expect(forgedCall.status == .unauthorized)

            let entries = try await server.control.journal(JournalFilter(accountId: started.accountId)).entries.filter { $0.status == 401 }
            #expect(Set(entries.map(\.path)) == ["/app/rest/v4/accounts/getCurrentAccount", "/agent/v1/queue"])
            #expect(entries.count == 2, "neither the unknown user nor the forged credential names the account: \(entries.map(\.query))")
            #expect(try wrongPassword.decode(WebAPIError.self).errorMessage == "invalid username or password", "nothing more is said")
        }
    }

    @Test("the journal records requests, filters them, is bounded, and can be cleared")
    func journal() async throws {
        try await InProcessServer.with(journalCapacity: 20) { server in
            let admin = server.admin("admin", "admin")
            try await server.control.clearJournal()
            _ = try await admin.accounts.current()
            _ = try? await admin.namedAreas.read("missing")
            _ = try await server.transport(.none).raw("GET", "/app/rest/v4/accounts/getCurrentAccount")

            let notFound = try await server.control.journal(JournalFilter(status: 404))
            #expect(notFound.entries.map(\.path) == ["/app/rest/v4/namedareas/missing/read"])
            #expect(notFound.entries.first?.accountId != nil)
            let clientErrors = try await server.control.journal(JournalFilter(path: "/app/rest/v4", status: 4))
            #expect(clientErrors.entries.map(\.status) == [404, 401])
            let gets = try await server.control.journal(JournalFilter(method: "GET", path: "/app/rest/v4/accounts", limit: 1))
            #expect(gets.entries.count == 1)
            #expect(gets.entries.first?.status == 401, "the limit keeps the newest")
            #expect(gets.truncated, "and says an older match was left out")

            // Pages read on from the last id, oldest first, without a gap.
            let everything = try await server.control.journal().entries.map(\.id)
            var paged: [Int64] = []
            var page = try await server.control.journal(JournalFilter(limit: 2, after: 0))
            while true {
                paged += page.entries.map(\.id)
                guard page.truncated, let last = page.entries.last?.id else { break }
                page = try await server.control.journal(JournalFilter(limit: 2, after: last))
            }
            #expect(Array(paged.prefix(everything.count)) == everything, "the pages hold every entry, in order (then the paging's own)")
            for bad in ["0", "-1", "100001", "x"] {
                #expect(try await server.control.transport.raw("GET", "/_mock/v1/journal", query: [("limit", bad)]).status == 400, "limit=\(bad)")
            }

            for _ in 0..<30 { _ = try await server.transport(.none).raw("GET", "/healthz") }
            let all = try await server.control.journal()
            #expect(all.size == 22, "the requests that name no account keep their newest 20, the account its own 2")
            #expect(all.capacity == 20, "entries per account")
            #expect(all.entries.map(\.id) == all.entries.map(\.id).sorted())

            try await server.control.clearJournal()
            #expect(try await server.control.journal(JournalFilter(path: "/healthz")).entries.isEmpty)
        }
    }

    @Test("the virtual clock moves and freezes server time")
    func clock() async throws {
        try await InProcessServer.with { server in
            let frozen = try await server.control.changeClock(ClockChange(frozen: true))
            #expect(frozen.frozen)
            // No sleeping: read the clock until the server's own real time has moved on (the offset
            // from it changes), then the frozen time must still stand.
            var later = try await server.control.clock()
            for _ in 0..<10_000 where later.offset == frozen.offset { later = try await server.control.clock() }
            #expect(later.offset < frozen.offset, "real time moved on")
            #expect(later.now == frozen.now)
            let moved = try await server.control.changeClock(ClockChange(advanceMillis: 3_600_000))
            #expect(moved.now == frozen.now + 3_600_000)
            let created = try await server.admin("admin", "admin").namedAreas.create(WebNamedArea(name: "Later", siteId: "later"))
            #expect(created.creationTimestamp == moved.now, "entities take their timestamps from the server clock")
            let refused = try await server.control.transport.raw(
                "POST", "/_mock/v1/clock", body: Data(#"{"frozen": false, "advanceMillis": 9223372036854775807}"#.utf8))
            #expect(refused.status == 400)
            #expect(try await server.control.clock().frozen, "a refused change leaves the clock as it was, frozen")
            // Steps within the per-change bound still may not take the clock before 1970.
            var stepsBack = 0
            var answer = try await server.control.transport.raw("POST", "/_mock/v1/clock", body: Data(#"{"advanceMillis": -300000000000}"#.utf8))
            while answer.status == 200, stepsBack < 20 {
                stepsBack += 1
                answer = try await server.control.transport.raw("POST", "/_mock/v1/clock", body: Data(#"{"advanceMillis": -300000000000}"#.utf8))
            }
            #expect(answer.status == 400 && stepsBack >= 5, "refused once the clock would show a time before 1970, after \(stepsBack) steps")
            #expect(try await server.control.clock().now == moved.now - Int64(stepsBack) * 300_000_000_000, "the refused step moved nothing")
            for _ in 0..<stepsBack { _ = try await server.control.changeClock(ClockChange(advanceMillis: 300_000_000_000)) }
            #expect(try await server.control.clock().now == moved.now)
            let released = try await server.control.changeClock(ClockChange(frozen: false))
            #expect(!released.frozen)
            #expect(released.now >= moved.now, "time resumes from where it stood, it does not jump back")
            #expect(released.offset > 0 && released.offset <= 3_600_000)
        }
    }

    @Test("only super admins and the control token change state through the control API; admins read their own account")
    func controlAccess() async throws {
        try await InProcessServer.with { server in
            let asAdmin = ControlClient(baseURL: server.baseURL, credentials: .basic(username: "admin", password: "admin"))
            do {
                _ = try await asAdmin.reset()
                Issue.record("admin reset the server")
            } catch {
                #expect((error as? CollabClientError)?.code == .forbidden)
            }
            #expect(try await asAdmin.stats().accounts == 1, "admins read their own account's stats (the inspector)")
            let wrongToken = ControlClient(baseURL: server.baseURL, credentials: .bearer("nope"))
            do {
                _ = try await wrongToken.stats()
                Issue.record("wrong control token accepted")
            } catch {
                #expect((error as? CollabClientError)?.code == .authorization)
            }
            let asRoot = ControlClient(baseURL: server.baseURL, credentials: .basic(username: "superadmin", password: "superadmin"))
            let stats = try await asRoot.stats()
            #expect(stats.accounts == 1)
        }
    }
}
