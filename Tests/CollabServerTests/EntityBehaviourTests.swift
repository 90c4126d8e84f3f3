import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// What the vendor specifies for the declared entities beyond storing them, over real sockets:
/// canned-response scopes, person visibility rules in the agents' person search, deputies told of an
/// agent's inbound requests, the audit log of admin changes, and the modification webhooks.
@Suite("Declared entities: the vendor's behaviour")
struct EntityBehaviourTests {
    static let seed: Seed = {
        var account = Seed.AccountSeed(
            name: "desk", apiKeys: [.init(key: "desk-key")],
            users: [
                .init(username: "admin-d", password: "pw", role: .admin),
                .init(username: "lead", password: "pw", role: .supervisor, teamId: "team-1"),
                .init(username: "agent-a", password: "pw", role: .registeredUser, displayName: "Agent A", teamId: "team-1"),
                .init(username: "agent-b", password: "pw", role: .registeredUser, displayName: "Agent B", teamId: "team-2"),
                .init(username: "agent-c", password: "pw", role: .registeredUser, displayName: "Agent C", teamId: "team-2"),
            ],
            persons: [
                .init(sourceId: "vip-visitor", personType: .visitor, firstName: "Vip"),
                .init(sourceId: "plain-visitor", personType: .visitor, firstName: "Plain"),
            ]
        )
        account.entities = [
            "teams": [.object(["id": .string("team-1"), "name": .string("One")]), .object(["id": .string("team-2"), "name": .string("Two")])]
        ]
        return Seed(accounts: [account])
    }()

    @Test("canned responses are seen per scope: the account's by all, a team's by its members, a personal one by its owner")
    func cannedResponseScopes() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            func call(_ user: String, _ path: String, _ body: String) async throws -> (Int, [String: Any]) {
                let response = try await server.admin(user, "pw").transport.raw("POST", "/app/rest/v4/cannedresponses/\(path)", body: Data(body.utf8))
                return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
            }
            func titles(_ user: String) async throws -> [String] {
                let (_, page) = try await call(user, "search", #"{"orderBy":[{"field":"TITLE"}]}"#)
                return (page["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
            }
            #expect(try await call("admin-d", "create", #"{"title":"everyone","ownerType":"ACCOUNT"}"#).0 == 200)
            #expect(try await call("agent-a", "create", #"{"title":"mine","text":"personal"}"#).0 == 200, "no owner: the caller's own")
            let team = #"{"title":"team","ownerType":"TEAM","ownerId":"team-1"}"#
            #expect(try await call("agent-a", "create", team).0 == 403, "agents do not write team responses")
            #expect(try await call("lead", "create", team).0 == 200)
            #expect(try await call("agent-a", "create", #"{"title":"all","ownerType":"ACCOUNT"}"#).0 == 403)

            #expect(try await titles("agent-a") == ["everyone", "mine", "team"])
            #expect(try await titles("agent-b") == ["everyone"], "another team, not the owner")
            #expect(try await titles("lead") == ["everyone", "team"])
            #expect(try await titles("admin-d") == ["everyone", "mine", "team"])

            let (_, mine) = try await call("agent-a", "search", #"{"searchFilters":[{"field":"TITLE","operator":{"type":"EQUALS","value":"mine"}}]}"#)
            let id = try #require((mine["items"] as? [[String: Any]])?.first?["id"] as? String)
            let read = try await server.admin("agent-b", "pw").transport.raw("GET", "/app/rest/v4/cannedresponses/\(id)/read")
            #expect(read.status == 404, "another agent's personal response does not exist for them")
        }
    }

    @Test("visibility rules hide visitors from agents whose labels the rules do not select")
    func visibilityRules() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let admin = server.admin("admin-d", "pw").transport
            func post(_ path: String, _ body: String, as client: HTTPTransport? = nil) async throws -> [String: Any] {
                let response = try await (client ?? admin).raw("POST", "/app/rest/v4/\(path)", body: Data(body.utf8))
                #expect(response.status == 200, "\(path) → \(response.status) \(String(decoding: response.body, as: UTF8.self))")
                return (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
            }
            func visitors(_ user: String) async throws -> [String] {
                let page = try await post("persons/searchVisitors", #"{"orderBy":[{"field":"FIRST_NAME"}]}"#, as: server.admin(user, "pw").transport)
                return (page["items"] as? [[String: Any]])?.compactMap { $0["firstName"] as? String } ?? []
            }
            _ = try await post("personlabels/create", #"{"name":"tier::vip","color":"gold","settableOn":["AGENT","ANONYMOUS_VISITOR"]}"#)
            _ = try await post("personlabels/create", #"{"name":"vip-desk","color":"blue","settableByRoles":["SUPERVISOR"]}"#)
            #expect(try await visitors("agent-a") == ["Plain", "Vip"], "no rule: everyone sees everyone")

            func equals(_ field: String, _ value: String) -> String {
                #"{"searchFilters":[{"field":"\#(field)","operator":{"type":"EQUALS","value":"\#(value)"}}]}"#
            }
            let vip = try await post("persons/search", equals("SOURCE_ID", "vip-visitor"))
            let vipId = try #require((vip["items"] as? [[String: Any]])?.first?["id"] as? String)
            let labelled = try await post("persons/\(vipId)/setLabels", #"["tier::vip"]"#)
            #expect((labelled["labels"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["tier::vip"])
            let agentA = try await post("persons/searchAgents", equals("USERNAME", "agent-a"))
            let agentAId = try #require((agentA["items"] as? [[String: Any]])?.first?["id"] as? String)
            _ = try await post("persons/\(agentAId)/addLabels", #"["vip-desk"]"#)
            let agentB = server.admin("agent-b", "pw").transport
            let refused = try await agentB.raw("POST", "/app/rest/v4/persons/\(agentAId)/addLabels", body: Data(#"["vip-desk"]"#.utf8))
            #expect(refused.status == 400, "only supervisors and admins may set vip-desk")

            // VIP visitors only for the VIP desk; unlabelled visitors for agents without labels.
            let vipRule = #"{"name":"vip","agentLabelSelection":"DEFINED_LABELS","agentLabelNames":["vip-desk"],"#
                + #""visitorLabelSelection":"DEFINED_LABELS","visitorLabelNames":["tier::vip"]}"#
            _ = try await post("personvisibilityrules/create", vipRule)
            let restRule = #"{"name":"rest","agentLabelSelection":"UNLABELED","visitorLabelSelection":"UNLABELED"}"#
            _ = try await post("personvisibilityrules/create", restRule)
            #expect(try await visitors("agent-a") == ["Vip"])
            #expect(try await visitors("agent-b") == ["Plain"])
            #expect(try await visitors("admin-d") == ["Plain", "Vip"], "admins see every person")
            let hidden = try await server.admin("agent-b", "pw").transport.raw("GET", "/app/rest/v4/persons/\(vipId)/read")
            #expect(hidden.status == 404)
            let source = try #require((vip["items"] as? [[String: Any]])?.first?["personSource"] as? String)
            let bySource = try await agentB.raw(
                "GET", "/app/rest/v4/persons/getBySource", query: [("personSource", source), ("sourceId", "vip-visitor")])
            #expect(bySource.status == 404, "a hidden person is not found by its source either")
            let seen = try await server.admin("agent-a", "pw").transport.raw(
                "GET", "/app/rest/v4/persons/getBySource", query: [("personSource", source), ("sourceId", "vip-visitor")])
            #expect(seen.status == 200, "the VIP desk finds it")
            let rules = try await post("personvisibilityrules/getByUsedLabelName", #"{"labelName":"tier::vip"}"#)
            #expect((rules["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["vip"])

            // A page of conversation histories: a hidden visitor's participations stay, without the person.
            for _ in 0..<3 {
                let creation = #"{"$_type":"ConversationCreationData","participants":[{"$_type":"ConversationCreationParticipantData","#
                    + #""personId":"\#(vipId)","participationType":"CONTEXT_PERSON"}]}"#
                _ = try await post("conversations/create", creation)
            }
            func historyPersons(_ user: String) async throws -> [String?] {
                let page = try await post("conversationhistory/search", "{}", as: server.admin(user, "pw").transport)
                let items = page["items"] as? [[String: Any]] ?? []
                #expect(items.count == 3)
                return items.flatMap { ($0["participants"] as? [[String: Any]] ?? []).map { ($0["person"] as? [String: Any])?["id"] as? String } }
            }
            #expect(try await historyPersons("agent-a") == [vipId, vipId, vipId])
            #expect(try await historyPersons("agent-b") == [nil, nil, nil], "agent B sees the participations, not the VIP visitor")
        }
    }

    @Test("a deputy is told of the inbound requests addressed to the agent, and of their end, in the vendor's schema")
    func deputies() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let events = ["push_notification.deputy_delegation", "push_notification.revoke_deputy_delegation", "deputy_relationship"]
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "deputies", endpoint: receiver.url, events: events)
            )
            func user(_ name: String) async throws -> (userId: String, personId: String) {
                let user: WebUser = try await admin.send("GET", "/app/rest/v4/users/getByUsername", query: [("username", name)])
                let person: WebPerson = try await admin.send(
                    "GET", "/app/rest/v4/persons/getBySource", query: [("personSource", "USER_DB"), ("sourceId", try #require(user.id))]
                )
                return (try #require(user.id), try #require(person.id))
            }
            let (agentB, agentBPerson) = try await user("agent-b")
            let (agentC, agentCPerson) = try await user("agent-c")
            let write = try await admin.raw(
                "POST", "/app/rest/v4/deputyrelationships/writeAgentDeputies",
                body: Data(#"{"agentUserId":"\#(agentB)","level1":[{"type":"AGENT","id":"\#(agentC)"}]}"#.utf8)
            )
            #expect(write.status == 204)
            let modification = try #require(try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == "deputy_relationship" }.first)
            #expect(VendorSchemaCheck.problems(modification.body, schema: "DeputyRelationshipModificationEvent").isEmpty)

            let app = visitor(server, device: "deputy-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "needs B")
            _ = try await agentA.accept(conversation.id)
            let invited = try await admin.raw(
                "POST", "/app/rest/v4/invitations/inviteAgentToConversation",
                body: Data(#"{"conversationId":"\#(conversation.id)","agentPersonId":"\#(agentBPerson)"}"#.utf8)
            )
            #expect(invited.status == 200)
            let invitationId = try #require((try JSONSerialization.jsonObject(with: invited.body) as? [String: Any])?["id"] as? String)
            let delegation = try #require(
                try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == "push_notification.deputy_delegation" }.first
            )
            #expect(VendorSchemaCheck.problems(delegation.body, schema: "DeputyDelegationPushNotificationEvent").isEmpty)
            let body = try #require(try JSONSerialization.jsonObject(with: delegation.body) as? [String: Any])
            #expect((body["recipient"] as? [String: Any])?["id"] as? String == agentCPerson, "the deputy receives it")
            #expect((body["primaryAgentPerson"] as? [String: Any])?["id"] as? String == agentBPerson)
            #expect(body["invitationId"] as? String == invitationId && body["conversationId"] as? String == conversation.id)

            #expect(try await admin.raw("POST", "/app/rest/v4/invitations/\(invitationId)/revoke").status == 200)
            let revoked = try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == "push_notification.revoke_deputy_delegation" }
            #expect(VendorSchemaCheck.problems(revoked[0].body, schema: "RevokeDeputyDelegationPushNotificationEvent").isEmpty)
        }
    }

    @Test("admin changes are in the audit log; label changes go out as PersonLabelModificationEvent")
    func auditAndWebhooks() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "labels", endpoint: receiver.url, events: ["person_label"])
            )
            let created = try await admin.raw("POST", "/app/rest/v4/personlabels/create", body: Data(#"{"name":"gold","color":"gold"}"#.utf8))
            #expect(created.status == 200)
            let event = try #require(try await receiver.wait(count: 1).first)
            #expect(event.headers["x-unblu-event"] == "person_label")
            #expect(VendorSchemaCheck.problems(event.body, schema: "PersonLabelModificationEvent").isEmpty)
            let eventBody = try #require(try JSONSerialization.jsonObject(with: event.body) as? [String: Any])
            #expect(eventBody["action"] as? String == "CREATE" && (eventBody["entity"] as? [String: Any])?["name"] as? String == "gold")

            let areaBody = Data(#"{"$_type":"NamedArea","name":"Audited","siteId":"audited"}"#.utf8)
            let area = try await admin.raw("POST", "/app/rest/v4/namedareas/create", body: areaBody)
            #expect(area.status == 200)
            let search = try await admin.raw(
                "POST", "/app/rest/v4/audit/search",
                body: Data(#"{"$_type":"AuditChangeQuery","orderBy":[{"field":"CREATION_TIMESTAMP","order":"DESCENDING"}],"limit":2}"#.utf8)
            )
            #expect(search.status == 200)
            #expect(VendorSchemaCheck.problems(search.body, schema: "AuditChangeResult").isEmpty)
            let items = try #require((try JSONSerialization.jsonObject(with: search.body) as? [String: Any])?["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["entityType"] as? String } == ["NamedArea", "PersonLabel"])
            #expect(items.last?["userName"] as? String == "admin-d" && items.last?["userRole"] as? String == "ADMIN")
            #expect((items.last?["newState"] as? String)?.contains("\"gold\"") == true)
            let agentAudit = try await server.admin("agent-a", "pw").transport.raw("POST", "/app/rest/v4/audit/search", body: Data("{}".utf8))
            #expect(agentAudit.status == 403, "audit is for admins")
        }
    }

    @Test("audit entries keep no secret: webhook and custom-action signing secrets, API key strings, old ones included")
    func auditKeepsNoSecret() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            func post(_ path: String, _ json: String) async throws -> [String: Any] {
                let answer = try await admin.raw("POST", "/app/rest/v4/\(path)", body: Data(json.utf8))
                #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
                return try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            }
            var hook = try await post(
                "webhookregistrations/create",
                #"{"name":"signed","endpoint":"http://127.0.0.1:9/in","events":["conversation.created"],"secret":"whsec-first-0001"}"#)
            hook["secret"] = "whsec-second-0002"
            _ = try await post("webhookregistrations/update", String(decoding: try JSONSerialization.data(withJSONObject: hook), as: UTF8.self))
            _ = try await post(
                "customactions/create",
                #"{"$_type":"CustomConversationActionData","type":"CONVERSATION","key":"escalate","#
                    + #""triggerWebhook":{"endpoint":"http://127.0.0.1:9/act","secret":"casec-first-0003"}}"#)
            var key = try await post("apikeys/create", #"{"name":"Phone app","apiKey":"app-key-0004"}"#)
            key["apiKey"] = "app-key-0005"
            _ = try await post("apikeys/update", String(decoding: try JSONSerialization.data(withJSONObject: key), as: UTF8.self))

            let everything = try await admin.raw("POST", "/app/rest/v4/audit/search", body: Data(#"{"limit":100}"#.utf8))
            #expect(everything.status == 200)
            let text = String(decoding: everything.body, as: UTF8.self)
            for secret in ["whsec-first-0001", "whsec-second-0002", "casec-first-0003", "app-key-0004", "app-key-0005"] {
                #expect(!text.contains(secret), "the audit log holds \(secret)")
            }
            let items = try #require((try JSONSerialization.jsonObject(with: everything.body) as? [String: Any])?["items"] as? [[String: Any]])
            let keyEntries = items.filter { $0["entityId"] as? String == key["id"] as? String }
            #expect(keyEntries.count == 2 && keyEntries.allSatisfy { $0["entityName"] as? String == "Phone app" }, "named by the key's name")
            let hookUpdate = items.first { $0["entityType"] as? String == "WebhookRegistration" && $0["changeType"] as? String == "UPDATE" }
            #expect((hookUpdate?["oldState"] as? String)?.contains("signed") == true)
            #expect(items.contains { ($0["newState"] as? String)?.contains("escalate") == true }, "the rest of a state is kept")
        }
    }
}
