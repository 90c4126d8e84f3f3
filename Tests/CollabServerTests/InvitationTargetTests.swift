import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import Testing

/// Secondary invitation targets and deputy delegations over real sockets: the agents an invitation is
/// also offered to see it live and in their invitations and may accept it; canceled, they no longer
/// can; a deputy delegation reaches the assigned agent's deputies of one level.
@Suite("Invitation targets: secondary targets and deputy delegations")
struct InvitationTargetTests {
    /// The person id of an agent of `queueSeed`.
    static func personId(_ admin: HTTPTransport, _ username: String) async throws -> (userId: String, personId: String) {
        let user = try await admin.webAPI("GET", "users/getByUsername", query: [("username", username)])
        let userId = try #require(user["id"] as? String)
        let person = try await admin.webAPI("GET", "persons/getBySource", query: [("personSource", "USER_DB"), ("sourceId", userId)])
        return (userId, try #require(person["id"] as? String))
    }

    /// A conversation a visitor started and `agent-a` accepted.
    static func activeConversation(_ server: TestServer, device: String) async throws -> (String, AgentClient) {
        let app = visitor(server, device: device)
        try await app.start(liveEvents: false)
        let agentA = try await agent(server, "agent-a")
        let conversation = try await app.startConversation(topic: "for \(device)")
        _ = try await agentA.accept(conversation.id)
        return (conversation.id, agentA)
    }

    @Test("a secondary target is pushed the invitation and sees it in its list, and may accept it; canceled, it no longer can")
    func secondaryTargets() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            // Agent C's app, in the background: inbound requests reach it as pushes.
            let app = AgentAppTests.agentApp(server, device: "c-phone")
            try await app.start(username: "agent-c", password: "pw")
            try await NotificationAPI(client: app).register(
                apnsToken: String(repeating: "c3", count: 32), pushKitToken: String(repeating: "e5", count: 32), version: .encrypted
            )
            try await app.setAppState(.background)
            let (conversationId, _) = try await Self.activeConversation(server, device: "secondary-phone")
            let agentB = try await Self.personId(admin, "agent-b").personId
            let agentC = try await Self.personId(admin, "agent-c").personId
            let c = try await agent(server, "agent-c")
            try await server.settlePushes()
            let before = String(try await server.pushes().map(\.id).max() ?? 0)

            let invited = try await admin.webAPI(
                "POST", "invitations/inviteAgentToConversation", #"{"conversationId":"\#(conversationId)","agentPersonId":"\#(agentB)"}"#
            )
            let id = try #require(invited["id"] as? String)
            let added = try await admin.webAPI(
                "POST", "invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#, schema: "ConversationInvitationData"
            )
            let targets = try #require(added["secondaryInvitationTargets"] as? [[String: Any]])
            #expect(targets.count == 1 && targets[0]["personId"] as? String == agentC && targets[0]["responseState"] as? String == "PENDING")
            let offered = try await server.waitForPush([("kind", "INBOUND_REQUEST"), ("personId", agentC), ("after", before)])
            #expect(offered.content.conversationId == conversationId)
            #expect(try await c.invitations().map(\.id) == [id], "the secondary target sees it as the main target does")
            _ = try await admin.webAPI("POST", "invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#, status: 409)
            _ = try await admin.webAPI("POST", "invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(agentB)"}"#, status: 400)

            let canceled = try await admin.webAPI(
                "POST", "invitations/\(id)/cancelSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#, schema: "ConversationInvitationData"
            )
            #expect((canceled["secondaryInvitationTargets"] as? [[String: Any]])?.first?["responseState"] as? String == "CANCELED")
            #expect(try await c.invitations().isEmpty, "canceled, it is no longer offered")
            let revoked = try await server.waitForPush([("kind", "REVOKE_INBOUND_REQUEST"), ("personId", agentC), ("after", before)])
            #expect(revoked.content.conversationId == conversationId)
            await #expect(throws: CollabClientError.self) { try await c.acceptInvitation(id) }
            _ = try await admin.webAPI("POST", "invitations/\(id)/cancelSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#, status: 409)
            _ = try await admin.webAPI("POST", "invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#, status: 409)

            // A forwarding's secondary target accepts in the main target's place: it becomes the assignee.
            let forwarded = try await admin.webAPI(
                "POST", "invitations/forwardConversationToAgent", #"{"conversationId":"\#(conversationId)","agentPersonId":"\#(agentB)"}"#
            )
            let forwardingId = try #require(forwarded["id"] as? String)
            _ = try await admin.webAPI("POST", "invitations/\(forwardingId)/addSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#)
            let taken = try await c.acceptInvitation(forwardingId)
            #expect(taken.assigneePersonId == agentC)
            let read = try await admin.webAPI("GET", "invitations/\(forwardingId)/read", schema: "ConversationInvitationData")
            #expect(read["invitationState"] as? String == "REDEEMED" && read["redeemingPersonId"] as? String == agentC)
            #expect((read["secondaryInvitationTargets"] as? [[String: Any]])?.first?["responseState"] as? String == "ACCEPTED")
            _ = try await admin.webAPI("POST", "invitations/\(forwardingId)/addSecondaryInvitationTarget", #"{"personId":"\#(agentB)"}"#, status: 409)

            let other = server.admin("agent-x", "pw").transport
            _ = try await other.webAPI("POST", "invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#, status: 403)
            try await app.stop()
        }
    }

    @Test("a deputy delegation reaches the assigned agent's deputies of its level, who may join hidden; none there is a 400")
    func deputyDelegation() async throws {
        let receiver = try await WebhookReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            _ = try await admin.webAPI(
                "POST", "webhookregistrations/create",
                #"{"name":"deputies","endpoint":"\#(receiver.url)","events":["push_notification.deputy_delegation","agent_invitation.created"]}"#
            )
            let (conversationId, agentA) = try await Self.activeConversation(server, device: "deputy-phone")
            let (agentAUser, agentAPerson) = try await Self.personId(admin, "agent-a")
            let agentB = try await Self.personId(admin, "agent-b")
            let agentC = try await Self.personId(admin, "agent-c")
            let start = #"{"conversationId":"\#(conversationId)","delegationLevel":"LEVEL_2","joinDeputyHidden":true}"#
            let none = try await admin.webAPI("POST", "invitations/startDeputyDelegation", start, status: 400)
            #expect((none["errorMessage"] as? String)?.contains("delegationLevel") == true)
            let levels = #"{"level1":[{"type":"AGENT","id":"\#(agentB.userId)"}],"level2":[{"type":"AGENT","id":"\#(agentC.userId)"}]}"#
            _ = try await admin.webAPI(
                "POST", "deputyrelationships/writeAgentDeputies", #"{"agentUserId":"\#(agentAUser)",\#(levels.dropFirst())"#, status: 204
            )
            let c = try await agent(server, "agent-c")
            let b = try await agent(server, "agent-b")

            let delegation = try await admin.webAPI("POST", "invitations/startDeputyDelegation", start, schema: "ConversationInvitationData")
            let id = try #require(delegation["id"] as? String)
            #expect(delegation["invitationType"] as? String == "DEPUTY_INVITATION" && delegation["targetId"] as? String == agentAPerson)
            #expect((delegation["secondaryInvitationTargets"] as? [[String: Any]])?.compactMap { $0["personId"] as? String } == [agentC.personId])
            let pushed = try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == "push_notification.deputy_delegation" }
            let body = try #require(try JSONSerialization.jsonObject(with: pushed[0].body) as? [String: Any])
            #expect((body["recipient"] as? [String: Any])?["id"] as? String == agentC.personId && body["invitationId"] as? String == id)
            #expect(try await c.invitations().map(\.id) == [id], "the LEVEL_2 deputy is offered the conversation")
            #expect(try await b.invitations().isEmpty, "the LEVEL_1 deputy is not")
            #expect(try await agentA.invitations().isEmpty, "nor the assigned agent it delegates for")
            _ = try await admin.webAPI("POST", "invitations/startDeputyDelegation", start, status: 409)

            let joined = try await c.acceptInvitation(id)
            #expect(joined.participants.contains { $0.personId == agentC.personId && $0.type == "SECONDARY_AGENT" })
            #expect(joined.assigneePersonId == agentAPerson, "the assigned agent stays")
            let read = try await admin.webAPI("GET", "invitations/\(id)/read")
            #expect(read["invitationState"] as? String == "REDEEMED" && read["joinHidden"] as? Bool == true)
        }
    }

    @Test("a deputy withdrawn from a deputy delegation is told it is revoked, in the vendor's schema; the others keep it")
    func canceledDeputy() async throws {
        let receiver = try await WebhookReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let (revoke, delegate) = ("push_notification.revoke_deputy_delegation", "push_notification.deputy_delegation")
            _ = try await admin.webAPI(
                "POST", "webhookregistrations/create", #"{"name":"deputies","endpoint":"\#(receiver.url)","events":["\#(delegate)","\#(revoke)"]}"#
            )
            let (conversationId, _) = try await Self.activeConversation(server, device: "withdrawn-phone")
            let agentA = try await Self.personId(admin, "agent-a")
            let agentB = try await Self.personId(admin, "agent-b")
            let agentC = try await Self.personId(admin, "agent-c")
            let level1 = #"[{"type":"AGENT","id":"\#(agentB.userId)"},{"type":"AGENT","id":"\#(agentC.userId)"}]"#
            _ = try await admin.webAPI(
                "POST", "deputyrelationships/writeAgentDeputies", #"{"agentUserId":"\#(agentA.userId)","level1":\#(level1)}"#, status: 204
            )
            let start = #"{"conversationId":"\#(conversationId)","delegationLevel":"LEVEL_1"}"#
            let id = try #require(try await admin.webAPI("POST", "invitations/startDeputyDelegation", start)["id"] as? String)
            let c = try await agent(server, "agent-c")
            // The deputy a delivery is for (its `recipient`).
            @Sendable func recipient(_ delivery: WebhookReceiver.Received) -> String? {
                let body = try? JSONSerialization.jsonObject(with: delivery.body) as? [String: Any]
                return (body?["recipient"] as? [String: Any])?["id"] as? String
            }
            let offered = try await receiver.wait(count: 2) { $0.headers["x-unblu-event"] == delegate }
            #expect(Set(offered.compactMap(recipient)) == [agentB.personId, agentC.personId])

            _ = try await admin.webAPI("POST", "invitations/\(id)/cancelSecondaryInvitationTarget", #"{"personId":"\#(agentC.personId)"}"#)
            let withdrawn = try #require(try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == revoke }.first)
            #expect(VendorSchemaCheck.problems(withdrawn.body, schema: "RevokeDeputyDelegationPushNotificationEvent").isEmpty)
            let body = try #require(try JSONSerialization.jsonObject(with: withdrawn.body) as? [String: Any])
            #expect(recipient(withdrawn) == agentC.personId, "only the withdrawn deputy is told")
            #expect(body["invitationId"] as? String == id && body["conversationId"] as? String == conversationId)
            #expect((body["primaryAgentPerson"] as? [String: Any])?["id"] as? String == agentA.personId)
            #expect(try await c.invitations().isEmpty, "the withdrawn deputy is no longer offered it")

            // Revoked, the delegation ends for the deputy it was still offered to.
            _ = try await admin.webAPI("POST", "invitations/\(id)/revoke")
            let ended = try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == revoke && recipient($0) == agentB.personId }
            #expect(VendorSchemaCheck.problems(ended[0].body, schema: "RevokeDeputyDelegationPushNotificationEvent").isEmpty)
        }
    }

    @Test("secondary targets and deputy delegations are stored: a restart on the same SQLite file keeps them")
    func durable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("targets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let (id, agentC) = try await TestServer.with(storage: storage, seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let (conversationId, _) = try await Self.activeConversation(server, device: "durable-phone")
            let agentB = try await Self.personId(admin, "agent-b").personId
            let agentC = try await Self.personId(admin, "agent-c").personId
            let invited = try await admin.webAPI(
                "POST", "invitations/inviteAgentToConversation", #"{"conversationId":"\#(conversationId)","agentPersonId":"\#(agentB)"}"#
            )
            let id = try #require(invited["id"] as? String)
            _ = try await admin.webAPI("POST", "invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(agentC)"}"#)
            return (id, agentC)
        }
        try await TestServer.with(storage: storage, seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let read = try await admin.webAPI("GET", "invitations/\(id)/read")
            #expect((read["secondaryInvitationTargets"] as? [[String: Any]])?.first?["personId"] as? String == agentC)
            #expect(try await agent(server, "agent-c").invitations().map(\.id) == [id], "the index is rebuilt on load")
        }
    }
}
