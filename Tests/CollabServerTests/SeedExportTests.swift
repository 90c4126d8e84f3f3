import CollabClient
import CollabCore
import CollabSeed
import CollabSeedExport
import CollabTestSupport
import Foundation
import Synchronization
import Testing

/// `mock-collab seed export` against real servers: an account filled through the Web API is exported,
/// the seed is loaded into a second server, and the two answer the same Web API searches.
@Suite("Seed export")
struct SeedExportTests {
    static let userPassword = "Exported-User-Pw-41"
    static let webhookSecret = "webhook-secret-never-exported-7f3a"
    static let botSecret = "bot-secret-never-exported-9c2e"

    /// The Web API searches compared, with the fields each comparison ignores beside the bookkeeping.
    static let searches: [(path: String, queryType: String, ignored: Set<String>)] = [
        ("namedareas/search", "NamedAreaQuery", []),
        ("users/search", "UserQuery", []),
        ("teams/search", "TeamQuery", []),
        ("conversationtemplates/search", "ConversationTemplateQuery", []),
        ("cannedresponses/search", "CannedResponseQuery", ["ownerId"]),
        ("personlabels/search", "PersonLabelQuery", []),
        ("bots/search", "DialogBotQuery", ["botPersonId"]),
        ("webhookregistrations/search", "WebhookRegistrationQuery", ["secret"]),
    ]

    @Test("an account filled through the Web API exports to a seed that loads into a second server with the same shape and no secret")
    func roundTrip() async throws {
        let bot = try await BotReceiver()
        let hooks = try await WebhookReceiver()
        try await TestServer.with { source in
            let admin = source.transport()
            try await Self.fill(admin, botURL: bot.url, hookURL: hooks.url)

            let progress = ProgressLines()
            let exporter = SeedExporter(
                options: SeedExportOptions(baseURL: source.baseURL, credentials: .user(username: "admin", password: "admin"), pageSize: 2)
            ) {
                progress.append($0)
            }
            let result = try await exporter.export()
            let yaml = try result.yaml(source: source.baseURL)

            for secret in [Self.userPassword, Self.webhookSecret, Self.botSecret, "demo-api-key"] {
                #expect(!yaml.contains(secret), "the seed holds '\(secret)'")
                #expect(!progress.lines.contains { $0.contains(secret) }, "the progress shows '\(secret)'")
            }
            let keys = yaml.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(!keys.contains { $0.hasPrefix("password:") || $0.hasPrefix("secret:") || $0.hasPrefix("webhookSecret:") })
            #expect(result.exported.first { $0.kind == "users" }?.count == 4)
            #expect(result.skipped.contains { $0.hasPrefix("webhookRegistrations: 1 webhook secrets, never exported") })
            #expect(result.skipped.contains { $0.hasPrefix("apiKeys: 1 API keys, never exported") })
            #expect(progress.lines.contains("reading teams"))

            let target = try await TestServer.start(seed: try SeedLoader.parse(yaml))
            do {
                // The seed's users have no password; a second seed gives the admin one to read with.
                let old = try await target.transport().raw("GET", "/app/rest/v4/accounts/getCurrentAccount")
                #expect(old.status == 401)
                try await target.control.seed(
                    "accounts:\n  - name: demo\n    users: [{username: admin, password: target-pw, role: ADMIN, firstName: Demo, lastName: Admin}]\n")
                let targetAdmin = target.transport(.basic(username: "admin", password: "target-pw"))

                let expand = [("expand", "configuration,metadata")]
                let sourceAccount = try await admin.webAPI("GET", "accounts/getCurrentAccount", query: expand)
                let targetAccount = try await targetAdmin.webAPI("GET", "accounts/getCurrentAccount", query: expand)
                #expect(Self.shape(sourceAccount["configuration"]) == Self.shape(targetAccount["configuration"]))
                #expect(Self.shape(sourceAccount["configuration"]).contains("com.unblu.test.exported"))

                for search in Self.searches {
                    let before = try await Self.items(admin, search.path, search.queryType, ignoring: search.ignored)
                    let after = try await Self.items(targetAdmin, search.path, search.queryType, ignoring: search.ignored)
                    #expect(!before.isEmpty, "\(search.path) found nothing to compare")
                    #expect(before == after, "\(search.path) differs after the round trip")
                }

                // Configuration and metadata of users and areas made the trip (not only empty on both sides).
                let users = try await Self.items(targetAdmin, "users/search", "UserQuery", ignoring: [])
                #expect(users.contains { $0.contains(#""crm":"7""#) && $0.contains("com.unblu.u") })
                let areas = try await Self.items(targetAdmin, "namedareas/search", "NamedAreaQuery", ignoring: [])
                #expect(areas.contains { $0.contains(#""region":"eu""#) && $0.contains("com.unblu.x") })

                // Loading the exported seed again changes nothing (secrets left out are kept, not replaced).
                let again = try await target.control.seed(yaml)
                #expect(again.created == 0 && again.updated == 0, "\(again)")
                try await target.stop()
            } catch {
                try? await target.stop()
                throw error
            }
        }
    }

    @Test("a kind the server refuses (404, 403) is skipped and reported; the rest is exported")
    func refusedKinds() async throws {
        let seed = try SeedLoader.parse(
            """
            accounts:
              - name: tenant
                users: [{username: tenant-admin, password: pw, role: ADMIN}]
                namedAreas: [{siteId: front, name: Front}, {siteId: back, name: Back}]
                faults:
                  - match: {surface: WEB_API, path: /app/rest/v4/bots/search}
                    action: {type: ERROR, status: 404, message: no bots here}
                  - match: {surface: WEB_API, path: /app/rest/v4/webhookregistrations/search}
                    action: {type: ERROR, status: 403, message: not for you}
            """
        )
        try await TestServer.with(seed: seed) { source in
            let options = SeedExportOptions(baseURL: source.baseURL, credentials: .user(username: "tenant-admin", password: "pw"))
            let result = try await SeedExporter(options: options).export()
            #expect(result.skipped.contains { $0.hasPrefix("bots: skipped, the server answered 404") })
            #expect(result.skipped.contains { $0.hasPrefix("webhookRegistrations: skipped, the server answered 403") })
            let account = try #require(result.seed.accounts.first)
            #expect(account.bots == nil && account.webhookRegistrations == nil)
            #expect(account.namedAreas?.map(\.siteId) == ["back", "front"])
            let yaml = try result.yaml(source: source.baseURL)
            #expect(yaml.contains("# - bots: skipped, the server answered 404"))

            // The cap per kind: one named area of two, and a message that says how to get the rest.
            var capped = options
            capped.maxPerKind = 1
            let cut = try await SeedExporter(options: capped).export()
            #expect(cut.seed.accounts.first?.namedAreas?.count == 1)
            #expect(cut.skipped.contains { $0.hasPrefix("namedAreas: stopped at 1 (the cap per kind; raise it with --max-per-kind)") })
            #expect(SeedExportOptions(baseURL: "http://u:secret@127.0.0.1:1", credentials: .bearer("t")).displayURL == "http://127.0.0.1:1")
        }
    }

    @Test("another account through a super admin's session, the caller's own with a bearer session token; wrong credentials fail")
    func otherAccountAndBadCredentials() async throws {
        try await TestServer.with { source in
            try await source.control.seed("accounts:\n  - name: other\n    namedAreas: [{siteId: elsewhere}]\n")
            let options = SeedExportOptions(
                baseURL: source.baseURL, credentials: .user(username: "superadmin", password: "superadmin"), account: "other")
            let result = try await SeedExporter(options: options).export()
            #expect(result.seed.accounts.map(\.name) == ["other"])
            #expect(result.seed.accounts.first?.namedAreas?.map(\.siteId) == ["elsewhere"])

            // --api-key: a Web API session token as bearer.
            let login = source.transport(.none)
            _ = try await login.webAPI("POST", "authenticator/login", #"{"username":"admin","password":"admin"}"#)
            let token = try #require(login.sessionToken)
            let byToken = try await SeedExporter(options: SeedExportOptions(baseURL: source.baseURL, credentials: .bearer(token))).export()
            #expect(byToken.seed.accounts.map(\.name) == ["demo"])

            let wrong = SeedExportOptions(baseURL: source.baseURL, credentials: .user(username: "admin", password: "wrong"))
            await #expect(throws: SeedExportError.self) { try await SeedExporter(options: wrong).export() }
        }
    }

    /// Fills the default account: configuration, areas, a user with a password, teams, a template, a
    /// canned response, a label, a bot and a webhook with secrets.
    static func fill(_ admin: HTTPTransport, botURL: String, hookURL: String) async throws {
        let account = try await admin.webAPI("GET", "accounts/getCurrentAccount", query: [("expand", "configuration")])
        var configuration = account["configuration"] as? [String: String] ?? [:]
        configuration["com.unblu.test.exported"] = "yes"
        let update: [String: Any] = [
            "$_type": "Account", "id": account["id"] ?? "", "version": account["version"] ?? 0, "name": "demo", "configuration": configuration,
        ]
        _ = try await admin.webAPI("POST", "accounts/update", String(decoding: try JSONSerialization.data(withJSONObject: update), as: UTF8.self))
        _ = try await admin.webAPI(
            "POST", "namedareas/create",
            #"{"$_type":"NamedArea","name":"Sales","siteId":"sales","type":"META_TAG","#
                + #""configuration":{"com.unblu.x":"1"},"metadata":{"region":"eu"}}"#
        )
        let parent = try await admin.webAPI("POST", "teams/create", #"{"$_type":"Team","name":"Support","description":"first line"}"#)
        let parentId = try #require(parent["id"] as? String)
        _ = try await admin.webAPI("POST", "teams/create", #"{"$_type":"Team","name":"Support EU","parentId":"\#(parentId)"}"#)
        _ = try await admin.webAPI(
            "POST", "users/createWithPassword",
            #"{"user":{"$_type":"User","username":"exported-agent","authorizationRole":"REGISTERED_USER","firstName":"Eve","#
                + #""teamId":"\#(parentId)","configuration":{"com.unblu.u":"2"},"metadata":{"crm":"7"}},"password":"\#(userPassword)"}"#
        )
        _ = try await admin.webAPI(
            "POST", "conversationtemplates/create", #"{"$_type":"ConversationTemplate","name":"Chat","initialEngagementType":"CHAT_REQUEST"}"#)
        _ = try await admin.webAPI(
            "POST", "cannedresponses/create", #"{"$_type":"CannedResponse","title":"Hello","text":"Hello there","ownerType":"ACCOUNT"}"#)
        _ = try await admin.webAPI("POST", "personlabels/create", #"{"$_type":"PersonLabel","name":"tier::gold","color":"gold"}"#)
        _ = try await admin.webAPI(
            "POST", "bots/create",
            #"{"$_type":"DialogBotData","name":"Greeter","webhookEndpoint":"\#(botURL)","#
                + #""webhookSecret":"\#(botSecret)","onboardingFilter":"VISITORS"}"#
        )
        _ = try await admin.webAPI(
            "POST", "webhookregistrations/create",
            #"{"$_type":"WebhookRegistration","name":"crm","endpoint":"\#(hookURL)","secret":"\#(webhookSecret)","events":["conversation.created"]}"#
        )
    }

    /// A search's items without bookkeeping, as sorted JSON texts (ids kept where they are references).
    static func items(_ transport: HTTPTransport, _ path: String, _ queryType: String, ignoring ignored: Set<String>) async throws -> [String] {
        let result = try await transport.webAPI("POST", path, #"{"$_type":"\#(queryType)"}"#, query: [("expand", "configuration,metadata")])
        let items = result["items"] as? [[String: Any]] ?? []
        let dropped: Set<String> = ["accountId", "creationTimestamp", "modificationTimestamp", "version"]
        return items.map { item in
            var kept = item.filter { !dropped.contains($0.key) && !ignored.contains($0.key) }
            // Ids are the target's own except where the seed keeps them (teams, so teamId and parentId hold).
            if path != "teams/search" { kept["id"] = nil }
            return shape(kept)
        }.sorted()
    }

    static func shape(_ value: Any?) -> String {
        guard let value, JSONSerialization.isValidJSONObject(value) else { return String(describing: value) }
        return String(decoding: (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }
}

/// Progress lines an exporter reported.
final class ProgressLines: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    func append(_ line: String) { storage.withLock { $0.append(line) } }
}
