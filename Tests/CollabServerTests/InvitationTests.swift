import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Anonymous visitors invited by PIN and by link; expiry on the server clock; the vendor's events.
@Suite("Invitations")
struct InvitationTests {
    @Test("a visitor joins by PIN; links are revoked; PINs expire on the server clock and renew; events under the vendor's names")
    func pinAndLink() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let names: Set<String> = ["pin.created", "pin.redeemed", "pin.renewed", "visitor_invitation.created", "visitor_invitation.revoked"]
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "invites", endpoint: receiver.url, events: names.sorted() + ["pin.revoked"])
            )
            let host = visitor(server, device: "host-phone")
            try await host.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await host.startConversation(topic: "invite a friend")
            _ = try await agentA.accept(conversation.id)
            func invite(_ how: String) async throws -> [String: Any] {
                let response = try await admin.raw(
                    "POST", "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWith\(how)",
                    body: Data(#"{"conversationId":"\#(conversation.id)","nickname":"Friend"}"#.utf8)
                )
                #expect(response.status == 200)
                #expect(VendorSchemaCheck.problems(response.body, schema: "ConversationInvitationData").isEmpty)
                return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            }
            func read(_ id: String) async throws -> [String: Any] {
                try #require(
                    try JSONSerialization.jsonObject(with: try await admin.raw("GET", "/app/rest/v4/invitations/\(id)/read").body) as? [String: Any])
            }

            // By PIN.
            let pin = try await invite("Pin")
            let pinId = try #require(pin["id"] as? String)
            let pinToken = try #require(pin["token"] as? String)
            #expect(pin["invitationType"] as? String == "PIN_CONVERSATION" && pin["invitationState"] as? String == "OPEN")
            #expect(pinToken.count == 6 && pinToken.allSatisfy(\.isNumber))
            let friend = visitor(server, device: "friend-phone")
            try await friend.start(liveEvents: false)
            let outsider = visitor(server, device: "outsider-phone", apiKey: "other-key")
            try await outsider.start(liveEvents: false)
            do throws(CollabClientError) {
                _ = try await outsider.redeemInvitation(pinToken)
                Issue.record("another account's visitor redeemed the PIN")
            } catch { #expect(error.code == .notFound) }
            let joined = try await friend.redeemInvitation(pinToken)
            let friendId = try #require(friend.session?.person.id)
            #expect(joined.participants.contains { $0.personId == friendId && $0.type == "SECONDARY_VISITOR" })
            let redeemed = try await read(pinId)
            #expect(redeemed["invitationState"] as? String == "REDEEMED" && redeemed["redeemingPersonId"] as? String == friendId)
            do throws(CollabClientError) {
                _ = try await friend.redeemInvitation(pinToken)
                Issue.record("a PIN was redeemed twice")
            } catch { #expect(error.code == .notFound) }
            _ = try await friend.send("hi all", in: conversation.id)

            // By link, then revoked.
            let link = try await invite("Link")
            let linkId = try #require(link["id"] as? String)
            #expect(link["invitationType"] as? String == "VISITOR_INVITATION")
            let revoked = try await admin.raw("POST", "/app/rest/v4/invitations/\(linkId)/revoke")
            #expect(revoked.status == 200)
            #expect(try await admin.raw("POST", "/app/rest/v4/invitations/\(linkId)/revoke").status == 409)
            #expect(try await admin.raw("POST", "/app/rest/v4/invitations/\(linkId)/renewPin").status == 400)

            // A PIN expires on the server clock; renewing gives a new one.
            let late = try await invite("Pin")
            let lateId = try #require(late["id"] as? String)
            try await server.control.changeClock(ClockChange(advanceMillis: Invitation.pinLifetime + 1))
            #expect(try await read(lateId)["invitationState"] as? String == "EXPIRED")
            let third = visitor(server, device: "late-phone")
            try await third.start(liveEvents: false)
            let lateToken = try #require(late["token"] as? String)
            do throws(CollabClientError) {
                _ = try await third.redeemInvitation(lateToken)
                Issue.record("an expired PIN was redeemed")
            } catch { #expect(error.code == .notFound) }
            let renewed = try #require(
                try JSONSerialization.jsonObject(with: try await admin.raw("POST", "/app/rest/v4/invitations/\(lateId)/renewPin").body)
                    as? [String: Any])
            #expect(renewed["invitationState"] as? String == "OPEN")
            _ = try await third.redeemInvitation(try #require(renewed["token"] as? String))

            // Search by state; roles and accounts.
            let redeemedQuery = #"{"$_type":"ConversationInvitationQuery","#
                + #""searchFilters":[{"field":"INVITATION_STATE","operator":{"type":"EQUALS","value":"REDEEMED"}}]}"#
            let search = try await admin.raw("POST", "/app/rest/v4/invitations/search", body: Data(redeemedQuery.utf8))
            #expect(VendorSchemaCheck.problems(search.body, schema: "ConversationInvitationResult").isEmpty)
            let found = (try JSONSerialization.jsonObject(with: search.body) as? [String: Any])?["items"] as? [[String: Any]]
            #expect(Set(found?.compactMap { $0["id"] as? String } ?? []) == [pinId, lateId])
            #expect(try await server.admin("agent-a", "pw").transport.raw("GET", "/app/rest/v4/invitations/\(pinId)/read").status == 403)
            #expect(try await admin.raw("GET", "/app/rest/v4/invitations/unknown/read").status == 404)
            #expect(
                try await admin.raw("POST", "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithPin", body: Data("{}".utf8)).status
                    == 400)

            _ = try await receiver.wait(count: names.count) { names.contains($0.headers["x-unblu-event"] ?? "") }
            for _ in 0..<1000 where !names.isSubset(of: Set(receiver.all.compactMap { $0.headers["x-unblu-event"] })) {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(names.isSubset(of: Set(receiver.all.compactMap { $0.headers["x-unblu-event"] })))
            for delivery in receiver.all {
                let name = delivery.headers["x-unblu-event"] ?? ""
                let problems = VendorSchemaCheck.problems(delivery.body, schema: VendorWebhookEvents.schemas[name] ?? "?")
                #expect(problems.isEmpty, "\(name): \(problems)")
            }
            let redeemedEvent = receiver.all.first { $0.headers["x-unblu-event"] == "pin.redeemed" }
                .flatMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
            #expect((redeemedEvent?["redeemingPerson"] as? [String: Any])?["id"] as? String == friendId)
        }
        try await receiver.stop()
    }

    @Test("requeueConversation puts the conversation back in its queue with an assignment request the accepting agent redeems")
    func requeueWithAssignmentRequest() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let names: Set<String> = ["assignment_request.created", "assignment_request.redeemed"]
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "assign", endpoint: receiver.url, events: names.sorted())
            )
            let app = visitor(server, device: "requeue-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let agentB = try await agent(server, "agent-b")
            let conversation = try await app.startConversation(topic: "pass it on")
            let accepted = try await agentA.accept(conversation.id)
            let agentAId = try #require(accepted.participants.first { $0.type == "ASSIGNED_AGENT" }?.personId)
            let path = "/app/rest/v4/invitations/requeueConversation"
            #expect(
                try await admin.raw("POST", path, body: Data(#"{"conversationId":"\#(conversation.id)","agentRemovalType":"SOME"}"#.utf8)).status
                    == 400)
            let response = try await admin.raw(
                "POST", path, body: Data(#"{"conversationId":"\#(conversation.id)","agentRemovalType":"KEEP_AGENTS"}"#.utf8))
            #expect(response.status == 200)
            #expect(VendorSchemaCheck.problems(response.body, schema: "ConversationInvitationData").isEmpty)
            let invitation = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(invitation["invitationType"] as? String == "ASSIGNMENT_REQUEST" && invitation["invitationState"] as? String == "OPEN")
            #expect(try await admin.raw("POST", path, body: Data(#"{"conversationId":"\#(conversation.id)"}"#.utf8)).status == 409, "already queued")
            let queued = try await agentB.conversation(conversation.id)
            #expect(queued.state == "QUEUED")
            #expect(
                queued.participants.contains { $0.personId == agentAId && $0.type == "SECONDARY_AGENT" },
                "KEEP_AGENTS keeps the agent, no longer assigned")
            _ = try await agentB.accept(conversation.id)
            let id = try #require(invitation["id"] as? String)
            let read = try #require(
                try JSONSerialization.jsonObject(with: try await admin.raw("GET", "/app/rest/v4/invitations/\(id)/read").body) as? [String: Any])
            #expect(read["invitationState"] as? String == "REDEEMED")
            _ = try await receiver.wait(count: 2) { names.contains($0.headers["x-unblu-event"] ?? "") }
            for _ in 0..<1000 where !names.isSubset(of: Set(receiver.all.compactMap { $0.headers["x-unblu-event"] })) {
                try await Task.sleep(for: .milliseconds(10))
            }
            for delivery in receiver.all {
                let name = delivery.headers["x-unblu-event"] ?? ""
                let problems = VendorSchemaCheck.problems(delivery.body, schema: VendorWebhookEvents.schemas[name] ?? "?")
                #expect(problems.isEmpty, "\(name): \(problems)")
            }
            #expect(Set(receiver.all.compactMap { $0.headers["x-unblu-event"] }) == names)
        }
        try await receiver.stop()
    }

    @Test("an agent invited joins as a secondary agent; a forwarded conversation changes its assignee; events under the vendor's names")
    func agentInvitationAndForwarding() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let names: Set<String> = [
                "agent_invitation.created", "agent_invitation.redeemed", "agent_forwarding.created", "agent_forwarding.redeemed",
                "agent_forwarding.revoked",
            ]
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "agents", endpoint: receiver.url, events: names.sorted())
            )
            let app = visitor(server, device: "forward-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let agentB = try await agent(server, "agent-b")
            let agentC = try await agent(server, "agent-c")
            let conversation = try await app.startConversation(topic: "two heads")
            let accepted = try await agentA.accept(conversation.id)
            let agentAId = try #require(accepted.participants.first { $0.type == "ASSIGNED_AGENT" }?.personId)
            func personId(_ username: String) async throws -> String {
                let user: WebUser = try await admin.send("GET", "/app/rest/v4/users/getByUsername", query: [("username", username)])
                let person: WebPerson = try await admin.send(
                    "GET", "/app/rest/v4/persons/getBySource", query: [("personSource", "USER_DB"), ("sourceId", try #require(user.id))])
                return try #require(person.id)
            }
            let agentBId = try await personId("agent-b")
            let agentCId = try await personId("agent-c")
            func post(_ path: String, _ body: String) async throws -> [String: Any] {
                let response = try await admin.raw("POST", "/app/rest/v4/invitations/\(path)", body: Data(body.utf8))
                #expect(response.status == 200, "\(path) → \(response.status)")
                #expect(VendorSchemaCheck.problems(response.body, schema: "ConversationInvitationData").isEmpty)
                return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            }

            let invited = try await post(
                "inviteAgentToConversation",
                #"{"conversationId":"\#(conversation.id)","agentPersonId":"\#(agentBId)","comment":"help","joinHidden":true}"#)
            #expect(invited["invitationType"] as? String == "AGENT_INVITATION" && invited["targetId"] as? String == agentBId)
            #expect(try await agentC.invitations().isEmpty, "addressed to agent B only")
            let forAgentB = try await agentB.invitations()
            #expect(forAgentB.map(\.id) == [invited["id"] as? String])
            let invitedId = try #require(invited["id"] as? String)
            do throws(CollabClientError) {
                _ = try await agentC.acceptInvitation(invitedId)
                Issue.record("another agent accepted an invitation for agent B")
            } catch { #expect(error.code == .notFound) }
            let joined = try await agentB.acceptInvitation(forAgentB[0].id)
            #expect(joined.participants.contains { $0.personId == agentBId && $0.type == "SECONDARY_AGENT" })

            // Forwarding: a second forwarding revokes the first; accepting moves the assignment.
            let first = try await post("forwardConversationToAgent", #"{"conversationId":"\#(conversation.id)","agentPersonId":"\#(agentBId)"}"#)
            _ = try await post(
                "forwardConversationToAgent", #"{"conversationId":"\#(conversation.id)","agentPersonId":"\#(agentCId)","comment":"yours"}"#)
            let firstId = try #require(first["id"] as? String)
            let firstBody = try await admin.raw("GET", "/app/rest/v4/invitations/\(firstId)/read").body
            let firstRead = try #require(try JSONSerialization.jsonObject(with: firstBody) as? [String: Any])
            #expect(firstRead["invitationState"] as? String == "REVOKED")
            let forwardId = try #require(try await agentC.invitations().first?.id)
            let forwarded = try await agentC.acceptInvitation(forwardId)
            #expect(forwarded.participants.contains { $0.personId == agentCId && $0.type == "ASSIGNED_AGENT" && $0.state != "ENDED" })
            #expect(
                !forwarded.participants.contains { $0.personId == agentAId && $0.type == "ASSIGNED_AGENT" && $0.state != "ENDED" },
                "the previous assignee left")
            #expect(
                try await admin.raw(
                    "POST", "/app/rest/v4/invitations/inviteAgentToConversation",
                    body: Data(#"{"conversationId":"\#(conversation.id)","agentPersonId":"nobody"}"#.utf8)
                ).status == 400)

            _ = try await receiver.wait(count: names.count) { names.contains($0.headers["x-unblu-event"] ?? "") }
            for _ in 0..<1000 where !names.isSubset(of: Set(receiver.all.compactMap { $0.headers["x-unblu-event"] })) {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(Set(receiver.all.compactMap { $0.headers["x-unblu-event"] }) == names)
            for delivery in receiver.all {
                let name = delivery.headers["x-unblu-event"] ?? ""
                let problems = VendorSchemaCheck.problems(delivery.body, schema: VendorWebhookEvents.schemas[name] ?? "?")
                #expect(problems.isEmpty, "\(name): \(problems)")
            }
        }
        try await receiver.stop()
    }
}
