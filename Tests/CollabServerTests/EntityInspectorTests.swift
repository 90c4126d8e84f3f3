import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// The inspector's entity listing (`GET /_mock/v1/entities`, `/_mock/v1/entities/{typeName}`), in process:
/// who may read it, one account never seeing another's entities, paging bounds, invitations with their
/// secondary targets, global file-upload interceptors for super admins only, and secrets shown only as the
/// Web API shows them.
@Suite("Inspector: entities")
struct EntityInspectorTests: TwoAccountLogins {
    static let suggestionSecret = "sugsec-alpha-1f2e3d4c5b"
    static let messengerSecret = "emsec-alpha-4a5b6c7d8e"
    static let globalSecret = "gfisec-inspector-9f8e7d"

    /// Two accounts: alpha with five teams, a suggestion source and an external messenger (both with
    /// secrets), beta with one team.
    static let seed: Seed = {
        var seed = twoAccountSeed
        seed.accounts[0].entities = [
            "teams": (0..<5).map { JSONValue.object(["name": .string("alpha-team-\($0)")]) },
            "suggestionSources": [
                .object([
                    "name": .string("suggest"), "outboundEndpoint": .string("https://suggest.example/hook"),
                    "outboundSecret": .string(suggestionSecret), "outboundTimeoutMillis": .int(5000),
                ]),
            ],
            "externalMessengers": [
                .object([
                    "type": .string("CUSTOM"), "name": .string("chat-channel"), "webhookEndpoint": .string("https://messenger.example/hook"),
                    "webhookSecret": .string(messengerSecret),
                ]),
            ],
        ]
        seed.accounts[1].entities = ["teams": [.object(["name": .string("beta-team")])]]
        return seed
    }()


    static func json(_ answer: InProcessServer.Answer) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(answer.text.utf8))
    }

    /// One kind of the kinds list.
    struct Kind: Decodable, Equatable {
        var typeName: String
        var scope: String
        var count: Int
    }

    /// The kinds list by type name.
    static func kinds(_ server: InProcessServer, as caller: String, query: String = "") async throws -> [String: Kind] {
        let answer = try await server.call(.get, "/_mock/v1/entities\(query)", authorization: caller)
        #expect(answer.status == .ok, "\(answer.text)")
        let list = try answer.decode([Kind].self)
        return Dictionary(list.map { ($0.typeName, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A request the listing refuses, with the status it answers.
    struct Refusal {
        var path: String
        var caller: String?
        var status: Int
    }

    /// One page: its items, `hasMoreItems` and `nextOffset`.
    static func page(_ server: InProcessServer, _ path: String, as caller: String) async throws -> (items: [[String: Any]], more: Bool, next: Int?) {
        let answer = try await server.call(.get, path, authorization: caller)
        #expect(answer.status == .ok, "\(path): \(answer.text)")
        let object = try #require(try json(answer) as? [String: Any])
        return (try #require(object["items"] as? [[String: Any]]), object["hasMoreItems"] as? Bool ?? false, object["nextOffset"] as? Int)
    }

    @Test("admins read their own account's kinds and entities, super admins any account's; agents none; another account is 404")
    func rolesAndIsolation() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let alpha = try await Self.kinds(server, as: Self.alphaAdmin)
            #expect(alpha["Team"]?.count == 5 && alpha["Team"]?.scope == "ACCOUNT")
            #expect(alpha["SuggestionSourceData"]?.count == 1 && alpha["ExternalMessengerChannel"]?.count == 1)
            #expect(alpha["ConversationInvitation"]?.count == 0)
            #expect(alpha["FileUploadGlobalInterceptor"] == nil, "the server-wide kind is for super admins")
            #expect(Set(alpha.keys).isSuperset(of: EntityRegistry.kinds.map { $0.typeName }), "every declared kind is listed")
            let beta = try await Self.kinds(server, as: Self.betaAdmin)
            #expect(beta["Team"]?.count == 1 && beta["SuggestionSourceData"]?.count == 0)

            let names = try await Self.page(server, "/_mock/v1/entities/Team", as: Self.betaAdmin).items.compactMap { $0["name"] as? String }
            #expect(names == ["beta-team"], "beta's admin sees beta's team only")
            // The super admin (of alpha) names beta by name; the answer is beta's.
            #expect(try await Self.kinds(server, as: Self.root, query: "?account=beta")["Team"]?.count == 1)
            let betaTeams = try await Self.page(server, "/_mock/v1/entities/Team?account=beta", as: Self.root).items
            #expect(betaTeams.compactMap { $0["name"] as? String } == ["beta-team"])
            #expect(betaTeams.allSatisfy { $0["$_type"] as? String == "Team" })

            // An admin naming another account, an agent, nobody: refused.
            let betaId = try #require(server.server.environment.accountId(for: .accountName("beta")))
            let refusals = [
                Refusal(path: "/_mock/v1/entities?account=beta", caller: Self.alphaAdmin, status: 404),
                Refusal(path: "/_mock/v1/entities/Team?account=\(betaId)", caller: Self.alphaAdmin, status: 404),
                Refusal(path: "/_mock/v1/entities", caller: InProcessServer.basic("alpha-agent", "pw-a"), status: 403),
                Refusal(path: "/_mock/v1/entities/Team", caller: InProcessServer.basic("alpha-supervisor", "pw-a"), status: 403),
                Refusal(path: "/_mock/v1/entities/Team", caller: nil, status: 401),
                Refusal(path: "/_mock/v1/entities/NoSuchKind", caller: Self.alphaAdmin, status: 404),
                Refusal(path: "/_mock/v1/entities/FileUploadGlobalInterceptor", caller: Self.alphaAdmin, status: 403),
            ]
            for refusal in refusals {
                let answer = try await server.call(.get, refusal.path, authorization: refusal.caller)
                let code = Int(answer.status.code)
                #expect(code == refusal.status, "\(refusal.path): \(code) \(answer.text.prefix(200))")
                #expect(!answer.text.contains("beta-team"), "\(refusal.path) shows beta's team")
            }
        }
    }

    @Test("pages are bounded, stable and walk the whole kind; bad offsets and limits are 400")
    func paging() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            var seen: [String] = []
            var offset = 0
            for _ in 0..<5 {
                let page = try await Self.page(server, "/_mock/v1/entities/Team?offset=\(offset)&limit=2", as: Self.alphaAdmin)
                #expect(page.items.count <= 2)
                seen += page.items.compactMap { $0["name"] as? String }
                guard page.more, let next = page.next else { break }
                offset = next
            }
            // A seed creates its entities at one instant: pages walk them in one stable order, each once.
            #expect(seen.sorted() == (0..<5).map { "alpha-team-\($0)" }, "every team once: \(seen)")
            #expect(try await Self.page(server, "/_mock/v1/entities/Team?offset=99", as: Self.alphaAdmin).items.isEmpty)
            let capped = try await Self.page(server, "/_mock/v1/entities/Team?limit=1000000", as: Self.alphaAdmin)
            #expect(capped.items.count == 5 && !capped.more, "a huge limit is capped, not refused")
            for query in ["offset=-1", "offset=x", "limit=0", "limit=-5", "limit=ten"] {
                let answer = try await server.call(.get, "/_mock/v1/entities/Team?\(query)", authorization: Self.alphaAdmin)
                #expect(answer.status == .badRequest, "\(query): \(answer.status)")
            }
        }
    }

    @Test("secrets as the Web API shows them: a messenger's never, a suggestion source's to its account's admins; the global kind to super admins")
    func secrets() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let messengers = try await server.call(.get, "/_mock/v1/entities/ExternalMessengerChannel", authorization: Self.alphaAdmin)
            #expect(messengers.status == .ok && messengers.text.contains("chat-channel"))
            #expect(!messengers.text.contains(Self.messengerSecret), "a channel's secret is never shown")
            for caller in [Self.alphaAdmin, Self.root] {
                let sources = try await server.call(.get, "/_mock/v1/entities/SuggestionSourceData?account=alpha", authorization: caller)
                #expect(sources.text.contains(Self.suggestionSecret), "admins read it through suggestionsources/read too")
            }
            let created = try await server.call(
                .post, "/app/rest/v4/fileuploadglobalinterceptors/create", authorization: Self.root,
                body: #"{"name":"global-scan","order":1,"webhookEndpoint":"https://scan.example/hook","webhookSecret":"\#(Self.globalSecret)"}"#
            )
            #expect(created.status == .ok || created.status == .created, "\(created.text)")
            let rootKinds = try await Self.kinds(server, as: Self.root)
            #expect(rootKinds["FileUploadGlobalInterceptor"]?.count == 1 && rootKinds["FileUploadGlobalInterceptor"]?.scope == "GLOBAL")
            let global = try await server.call(.get, "/_mock/v1/entities/FileUploadGlobalInterceptor?account=beta", authorization: Self.root)
            #expect(global.status == .ok && global.text.contains("global-scan") && global.text.contains(Self.globalSecret))
            for caller in [Self.alphaAdmin, Self.betaAdmin] {
                let refused = try await server.call(.get, "/_mock/v1/entities/FileUploadGlobalInterceptor", authorization: caller)
                #expect(refused.status == .forbidden && !refused.text.contains(Self.globalSecret))
            }
        }
    }

    @Test("invitations are listed with their secondary targets, for their own account only")
    func invitations() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let conversationId = try await Self.acceptedConversation(server)
            let supervisor = try await Self.personId(server, "alpha-supervisor")
            let admin = try await Self.personId(server, "alpha-admin")
            let invited = try await server.call(
                .post, "/app/rest/v4/invitations/inviteAgentToConversation", authorization: Self.alphaAdmin,
                body: #"{"conversationId":"\#(conversationId)","agentPersonId":"\#(supervisor)"}"#
            )
            let invitationId = try #require(try Self.json(invited) as? [String: Any])["id"] as? String ?? ""
            let added = try await server.call(
                .post, "/app/rest/v4/invitations/\(invitationId)/addSecondaryInvitationTarget", authorization: Self.alphaAdmin,
                body: #"{"personId":"\#(admin)"}"#
            )
            #expect(added.status == .ok, "\(added.text)")

            #expect(try await Self.kinds(server, as: Self.alphaAdmin)["ConversationInvitation"]?.count == 1)
            let items = try await Self.page(server, "/_mock/v1/entities/ConversationInvitation", as: Self.alphaAdmin).items
            #expect(items.count == 1)
            let invitation = try #require(items.first)
            #expect(invitation["id"] as? String == invitationId && invitation["$_type"] as? String == "ConversationInvitationData")
            let targets = try #require(invitation["secondaryInvitationTargets"] as? [[String: Any]])
            #expect(targets.map { $0["personId"] as? String } == [admin] && targets.first?["responseState"] as? String == "PENDING")
            #expect(try await Self.page(server, "/_mock/v1/entities/ConversationInvitation", as: Self.betaAdmin).items.isEmpty)
        }
    }

    /// The person of an alpha user.
    static func personId(_ server: InProcessServer, _ username: String) async throws -> String {
        let user = try await server.call(.get, "/app/rest/v4/users/getByUsername?username=\(username)", authorization: alphaAdmin)
        let userId = try #require(try json(user) as? [String: Any])["id"] as? String ?? ""
        let person = try await server.call(
            .get, "/app/rest/v4/persons/getBySource?personSource=USER_DB&sourceId=\(userId)", authorization: alphaAdmin
        )
        return try #require(try json(person) as? [String: Any])["id"] as? String ?? ""
    }

    /// A conversation an alpha visitor started and alpha-agent accepted.
    static func acceptedConversation(_ server: InProcessServer) async throws -> String {
        let start = try await server.call(
            .post, "/mobile/v1/clients",
            body: ClientStartRequest(apiKey: "alpha-key", deviceId: "inspector-phone", device: .init(os: "iOS", appId: "com.example.app"))
        ).decode(ClientStartResponse.self)
        let visitor = "Bearer " + start.token
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
            .decode(ConversationView.self)
        let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "alpha-agent", password: "pw-a"))
        let agent = "Bearer " + (try login.decode(AgentLoginResponse.self)).token
        _ = try await server.call(.put, "/agent/v1/presence", authorization: agent, body: PresenceRequest(presence: "ONLINE"))
        let accepted = try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: agent)
        #expect(accepted.status == .ok, "\(accepted.text)")
        return conversation.id
    }
}
