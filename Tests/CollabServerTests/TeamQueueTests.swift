import CollabClient
import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// Teams over real sockets: a conversation forwarded to a team waits in that team's queue, which its
/// agents and the agents of its parent teams see and take (the vendor's rule for team invitations);
/// others neither see it nor may accept it. A team's invitation to an active conversation is offered to
/// the same agents.
@Suite("Teams: the team queue")
struct TeamQueueTests {
    static let seed: Seed = {
        var account = Seed.AccountSeed(
            name: "desk", apiKeys: [.init(key: "desk-key")],
            users: [
                .init(username: "admin-d", password: "pw", role: .admin),
                .init(username: "lead", password: "pw", role: .registeredUser, displayName: "Lead", teamId: "team-n"),
                .init(username: "agent-ne", password: "pw", role: .registeredUser, displayName: "North-East", teamId: "team-ne"),
                .init(username: "agent-s", password: "pw", role: .registeredUser, displayName: "South", teamId: "team-s"),
            ]
        )
        account.entities = [
            "teams": [
                .object(["id": .string("team-n"), "name": .string("North")]),
                .object(["id": .string("team-ne"), "name": .string("North-East"), "parentId": .string("team-n")]),
                .object(["id": .string("team-s"), "name": .string("South")]),
            ]
        ]
        return Seed(accounts: [account])
    }()

    /// Agents' apps started, registered for encrypted pushes (a push token belongs to one device: each
    /// app registers its own, from the two hex digits given) and sent to the background; with each
    /// agent's person id by username.
    static func backgroundApps(
        _ server: some ServerUnderTest, _ agents: [(username: String, device: String, tokens: (String, String))]
    ) async throws -> (persons: [String: String], apps: [AgentClient]) {
        var persons: [String: String] = [:]
        var apps: [AgentClient] = []
        for (username, device, tokens) in agents {
            let app = AgentAppTests.agentApp(server, device: device)
            apps.append(app)
            try await app.start(username: username, password: "pw")
            let (apns, voip) = (String(repeating: tokens.0, count: 32), String(repeating: tokens.1, count: 32))
            try await NotificationAPI(client: app).register(apnsToken: apns, pushKitToken: voip, version: .encrypted)
            try await app.setAppState(.background)
            persons[username] = try #require(app.appSession?.person.id)
        }
        return (persons, apps)
    }

    /// The admin's transport and the three agents, logged in: North-East, the lead of North (its parent), South.
    static func desk(_ server: some ServerUnderTest) async throws -> (HTTPTransport, AgentClient, AgentClient, AgentClient) {
        let admin = server.admin("admin-d", "pw").transport
        return (admin, try await agent(server, "agent-ne"), try await agent(server, "lead"), try await agent(server, "agent-s"))
    }

    @Test("forwarded to a team: its agents and its parent team's see it live and in the queue and accept it; another team's do not")
    func forwardToTeam() async throws {
        try await TestServer.with(seed: Self.seed) { server in
            let (admin, northEast, lead, south) = try await Self.desk(server)
            let northEastEvents = EventCollector(try await northEast.connectEvents().events)
            let southStream = try await south.connectEvents()
            let southEvents = EventCollector(southStream.events)

            let app = visitor(server, device: "team-phone")
            try await app.start()
            let conversation = try await app.startConversation(topic: "for the north-east")
            #expect(try await south.queue().map(\.conversation.id) == [conversation.id], "account-wide at first")

            let forwarded = try await admin.raw(
                "POST", "/app/rest/v4/invitations/forwardConversationToTeam",
                body: Data(#"{"conversationId":"\#(conversation.id)","teamId":"team-ne","comment":"yours"}"#.utf8)
            )
            #expect(forwarded.status == 200)
            let invitation = try #require(try JSONSerialization.jsonObject(with: forwarded.body) as? [String: Any])
            #expect(invitation["targetType"] as? String == "TEAM" && invitation["targetId"] as? String == "team-ne")
            #expect(invitation["invitationType"] as? String == "AGENT_FORWARDING")

            // Live: the conversation moves into the team's queue.
            _ = try await northEastEvents.wait(for: "the request in the team's queue") {
                $0.conversation?.id == conversation.id && $0.conversation?.recipient.type == "TEAM" && $0.conversation?.recipient.id == "team-ne"
            }
            #expect(try await northEast.queue().map(\.conversation.id) == [conversation.id])
            #expect(try await lead.queue().map(\.conversation.id) == [conversation.id], "the parent team's agents see it")
            #expect(try await south.queue().isEmpty, "another team's agents do not")
            await #expect(throws: CollabClientError.self) { try await south.accept(conversation.id) }


            let accepted = try await northEast.accept(conversation.id)
            #expect(accepted.state == "ACTIVE" && accepted.assigneePersonId == northEast.session?.person.id)
            _ = try await northEastEvents.wait(for: "taken") { $0.conversation?.id == conversation.id && $0.type == "conversation.active" }
            // South saw the request leave the account's queue, and nothing of the team's queue after.
            try await southEvents.sync(southStream)
            let seen = southEvents.events.filter { $0.conversation?.id == conversation.id }
            #expect(seen.last?.conversation?.recipient.type == "TEAM", "told the request left the account's queue")
            #expect(!seen.contains { $0.type == "conversation.active" }, "the team's queue events do not reach another team")
            let read = try await admin.raw("GET", "/app/rest/v4/invitations/\(try #require(invitation["id"] as? String))/read")
            #expect((try JSONSerialization.jsonObject(with: read.body) as? [String: Any])?["invitationState"] as? String == "REDEEMED")
        }
    }

    @Test("a requeue's assignment request is offered to the team's agents, and accepting it accepts the conversation")
    func assignmentRequestAccepted() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let (admin, northEast, lead, south) = try await Self.desk(server)
            let app = visitor(server, device: "requeue-phone")
            try await app.start(liveEvents: false)
            let conversation = try await app.startConversation(topic: "requeued")
            let body = Data(#"{"conversationId":"\#(conversation.id)","teamId":"team-ne"}"#.utf8)
            #expect(try await admin.raw("POST", "/app/rest/v4/invitations/forwardConversationToTeam", body: body).status == 200)
            _ = try await northEast.accept(conversation.id)
            let requeued = try await admin.raw(
                "POST", "/app/rest/v4/invitations/requeueConversation", body: Data(#"{"conversationId":"\#(conversation.id)"}"#.utf8)
            )
            #expect(requeued.status == 200)
            let request = try #require(try JSONSerialization.jsonObject(with: requeued.body) as? [String: Any])
            let requestId = try #require(request["id"] as? String)
            #expect(request["invitationType"] as? String == "ASSIGNMENT_REQUEST" && request["targetId"] as? String == "team-ne")

            #expect(try await south.invitations().isEmpty, "another team's agent is not offered it")
            await #expect(throws: CollabClientError.self) { try await south.acceptInvitation(requestId) }
            let offered = try await lead.invitations()
            #expect(offered.map(\.id) == [requestId] && offered.first?.type == "ASSIGNMENT_REQUEST")
            let taken = try await lead.acceptInvitation(requestId)
            #expect(taken.state == "ACTIVE" && taken.assigneePersonId == lead.session?.person.id)
            let read = try await admin.raw("GET", "/app/rest/v4/invitations/\(requestId)/read")
            let redeemed = try JSONSerialization.jsonObject(with: read.body) as? [String: Any]
            #expect(redeemed?["invitationState"] as? String == "REDEEMED")
            #expect(redeemed?["redeemingPersonId"] as? String == lead.session?.person.id)
            #expect(try await northEast.invitations().isEmpty)
            #expect(try await lead.invitations().isEmpty)
            let again = try await northEast.transport.raw("POST", "/agent/v1/invitations/\(requestId)/accept")
            #expect(again.status == 409, "a redeemed assignment request is not accepted again")
        }
    }

    @Test("an active conversation forwarded or invited to a team: the assigned agent stays until a team agent takes it")
    func activeConversation() async throws {
        try await TestServer.with(seed: Self.seed) { server in
            let (admin, northEast, lead, south) = try await Self.desk(server)
            let app = visitor(server, device: "active-phone")
            try await app.start()
            let conversation = try await app.startConversation(topic: "active")
            _ = try await northEast.accept(conversation.id)

            func post(_ path: String, _ team: String) async throws -> Int {
                try await admin.raw(
                    "POST", "/app/rest/v4/invitations/\(path)", body: Data(#"{"conversationId":"\#(conversation.id)","teamId":"\#(team)"}"#.utf8)
                ).status
            }
            #expect(try await post("inviteTeamToConversation", "team-s") == 200)
            #expect(try await post("inviteTeamToConversation", "team-s") == 409, "the team already has an open invitation")
            #expect(try await post("inviteTeamToConversation", "no-such-team") == 404)
            let offered = try await south.invitations()
            #expect(offered.map(\.conversationId) == [conversation.id] && offered.first?.type == "AGENT_INVITATION")
            #expect(try await northEast.invitations().isEmpty, "North-East is not South's parent")
            let joined = try await south.acceptInvitation(try #require(offered.first?.id))
            #expect(joined.participants.contains { $0.personId == south.session?.person.id && $0.type == "SECONDARY_AGENT" })

            #expect(try await post("forwardConversationToTeam", "team-n") == 200)
            let waiting = try await lead.queue()
            #expect(waiting.map(\.conversation.id) == [conversation.id])
            #expect(waiting.first?.conversation.participants.contains { $0.personId == northEast.session?.person.id && $0.state != "ENDED" } == true)
            #expect(try await northEast.queue().isEmpty, "North-East is below North: it does not see North's queue")
            let taken = try await lead.accept(conversation.id)
            #expect(taken.assigneePersonId == lead.session?.person.id)
            let previous = taken.participants.first { $0.personId == northEast.session?.person.id }
            #expect(previous?.state == "ENDED", "the previous assigned agent leaves once the team took it")
        }
    }

    @Test("team changes go out as TeamModificationEvent; an invitation to a team names the team as its target")
    func teamWebhooks() async throws {
        let receiver = try await WebhookReceiver()
        try await TestServer.with(seed: Self.seed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let events = ["team", "agent_forwarding.created"]
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "teams", endpoint: receiver.url, events: events)
            )
            let created = try await admin.raw("POST", "/app/rest/v4/teams/create", body: Data(#"{"name":"West","parentId":"team-s"}"#.utf8))
            #expect(created.status == 200)
            var team = try #require(try JSONSerialization.jsonObject(with: created.body) as? [String: Any])
            team["description"] = "the west desk"
            let updated = try await admin.raw("POST", "/app/rest/v4/teams/update", body: try JSONSerialization.data(withJSONObject: team))
            #expect(updated.status == 200)
            let id = try #require(team["id"] as? String)
            let children = try await admin.raw("GET", "/app/rest/v4/teams/team-s/getChildTeams")
            let childIds = (try JSONSerialization.jsonObject(with: children.body) as? [String: Any])?["items"] as? [[String: Any]]
            #expect(childIds?.compactMap { $0["id"] as? String } == [id])
            #expect(try await admin.raw("DELETE", "/app/rest/v4/teams/\(id)/delete").status == 204)
            let changes = try await receiver.wait(count: 3) { $0.headers["x-unblu-event"] == "team" }
            for change in changes {
                #expect(VendorSchemaCheck.problems(change.body, schema: "TeamModificationEvent").isEmpty)
            }
            let actions = changes.compactMap { (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any])?["action"] as? String }
            #expect(actions == ["CREATE", "UPDATE", "DELETE"])

            let app = visitor(server, device: "hook-phone")
            try await app.start()
            let conversation = try await app.startConversation(topic: "to the south")
            let forward = #"{"conversationId":"\#(conversation.id)","teamId":"team-s"}"#
            #expect(try await admin.raw("POST", "/app/rest/v4/invitations/forwardConversationToTeam", body: Data(forward.utf8)).status == 200)
            let forwarded = try #require(try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == "agent_forwarding.created" }.first)
            #expect(VendorSchemaCheck.problems(forwarded.body, schema: "AgentForwardingCreatedEvent").isEmpty)
            let target = (try JSONSerialization.jsonObject(with: forwarded.body) as? [String: Any])?["target"] as? [String: Any]
            #expect(target?["$_type"] as? String == "TeamData" && target?["id"] as? String == "team-s")
            for (team, reason) in [("team-n", "child teams"), ("team-s", "wait for the team"), ("team-ne", "users belong")] {
                let refused = try await admin.raw("DELETE", "/app/rest/v4/teams/\(team)/delete")
                let message = (try JSONSerialization.jsonObject(with: refused.body) as? [String: Any])?["errorMessage"] as? String ?? ""
                #expect(refused.status == 409 && message.contains(reason), "\(team): \(refused.status) \(message)")
            }
        }
        try await receiver.stop()
    }

    @Test("an agent's device is pushed the requests of its team's queue and its team's invitations; another team's agent is not")
    func teamPushes() async throws {
        try await TestServer.with(seed: Self.seed) { server in
            let admin = server.admin("admin-d", "pw").transport
            // Kept running to the end: a stopped app is pushed nothing.
            let (persons, apps) = try await Self.backgroundApps(
                server, [("agent-s", "south-phone", ("c3", "e5")), ("agent-ne", "north-east-phone", ("d4", "f6"))])
            let northEast = try await agent(server, "agent-ne")
            let visitorApp = visitor(server, device: "push-caller")
            try await visitorApp.start()
            let conversation = try await visitorApp.startConversation(topic: "push me")
            _ = try await northEast.accept(conversation.id)
            try await server.settlePushes()
            let before = String(try await server.pushes().map(\.id).max() ?? 0)

            let invite = #"{"conversationId":"\#(conversation.id)","teamId":"team-s"}"#
            #expect(try await admin.raw("POST", "/app/rest/v4/invitations/inviteTeamToConversation", body: Data(invite.utf8)).status == 200)
            let request = [("kind", "INBOUND_REQUEST"), ("conversationId", conversation.id), ("after", before)]
            let invited = try await server.waitForPush(request)
            #expect(invited.personId == persons["agent-s"])
            try await server.settlePushes()
            let toNorthEast = try await server.pushes(request + [("personId", persons["agent-ne"] ?? "")])
            #expect(toNorthEast.isEmpty, "North-East does not see South's invitations")

            let afterInvitation = String(try await server.pushes().map(\.id).max() ?? 0)
            #expect(try await admin.raw("POST", "/app/rest/v4/invitations/forwardConversationToTeam", body: Data(invite.utf8)).status == 200)
            let queued = [("kind", "INBOUND_REQUEST"), ("conversationId", conversation.id), ("after", afterInvitation)]
            #expect(try await server.waitForPush(queued).personId == persons["agent-s"], "the team's queue is pushed to its agents")
            try await server.settlePushes()
            #expect(try await server.pushes(queued + [("personId", persons["agent-ne"] ?? "")]).isEmpty)
            for app in apps { try await app.stop() }
        }
    }

    @Test("a request addressed to one agent is pushed to that agent's devices alone")
    func addressedPushes() async throws {
        try await TestServer.with(seed: Self.seed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let (persons, apps) = try await Self.backgroundApps(
                server, [("agent-s", "south-phone", ("a7", "b8")), ("agent-ne", "north-east-phone", ("c9", "d0"))])
            let visitorApp = visitor(server, device: "addressed-caller")
            try await visitorApp.start()
            let conversation = try await visitorApp.startConversation(topic: "for South")
            // The account-wide request reaches both apps.
            for username in ["agent-s", "agent-ne"] {
                _ = try await server.waitForPush([
                    ("kind", "INBOUND_REQUEST"), ("conversationId", conversation.id), ("personId", persons[username] ?? ""),
                ])
            }
            try await server.settlePushes()
            let before = String(try await server.pushes().map(\.id).max() ?? 0)
            let south = try #require(persons["agent-s"])
            let _: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/\(conversation.id)/setRecipient", body: WebRecipient(type: "PersonData", id: south))
            let request = [("kind", "INBOUND_REQUEST"), ("conversationId", conversation.id), ("after", before)]
            #expect(try await server.waitForPush(request).personId == south)
            try await server.settlePushes()
            #expect(try await server.pushes(request + [("personId", persons["agent-ne"] ?? "")]).isEmpty, "North-East is not addressed")
            // North-East's request from before is revoked: the conversation left its queue.
            let revoked = [("kind", "REVOKE_INBOUND_REQUEST"), ("conversationId", conversation.id), ("after", before)]
            #expect(try await server.pushes(revoked + [("personId", persons["agent-ne"] ?? "")]).count == 1)
            for app in apps { try await app.stop() }
        }
    }
}

/// Who may put a user in which team (in process).
@Suite("Teams: membership")
struct TeamMembershipTests {
    @Test("a user's team must be the account's, and only an admin moves a user; an agent's own edits keep its team")
    func membership() async throws {
        try await InProcessServer.with(seed: TeamQueueTests.seed) { server in
            let agent = InProcessServer.basic("agent-s", "pw")
            let admin = InProcessServer.basic("admin-d", "pw")
            var user = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(try await server.call(.get, "/app/rest/v4/users/getByUsername?username=agent-s", authorization: agent).text.utf8)
                ) as? [String: Any])
            func update(_ change: [String: Any], as caller: String) async throws -> InProcessServer.Answer {
                let body = String(decoding: try JSONSerialization.data(withJSONObject: user.merging(change) { _, new in new }), as: UTF8.self)
                let answer = try await server.call(.post, "/app/rest/v4/users/update", authorization: caller, body: body)
                if answer.status == .ok, let updated = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any] {
                    user = updated
                }
                return answer
            }
            let move = try await update(["teamId": "team-n"], as: agent)
            #expect(move.status == .forbidden && move.text.contains("only an admin moves a user"), "\(move.text)")
            #expect(try await update(["displayName": "South, renamed"], as: agent).status == .ok, "its own edits, team unchanged")
            let unknown = try await update(["teamId": "team-nowhere"], as: admin)
            #expect(unknown.status == .badRequest && unknown.text.contains("names no team"), "\(unknown.text)")
            #expect(try await update(["teamId": "team-n"], as: admin).status == .ok)
            #expect(user["teamId"] as? String == "team-n" && user["displayName"] as? String == "South, renamed")
        }
    }
}
