import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// UNASSIGNED and REBOARDING through the vendor's operations, with their webhooks.
@Suite("Unassigned and reboarding")
struct ReboardingTests {
    @Test(
        """
        offboarding the assignee leaves the conversation UNASSIGNED; the visitor's next message reboards and queues it; \
        requeue; events under the vendor's names
        """
    )
    func unassignedReboardingRequeued() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let names = ["conversation.unassigned", "conversation.reboarding", "conversation.requeued", "conversation.participation.left"]
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "states", endpoint: receiver.url, events: names)
            )
            let app = visitor(server, device: "reboard-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let agentB = try await agent(server, "agent-b")
            let conversation = try await app.startConversation(topic: "reboard")
            let accepted = try await agentA.accept(conversation.id)
            let assignee = try #require(accepted.participants.first { $0.type == "ASSIGNED_AGENT" }?.personId)

            let path = "/app/rest/v4/conversations/\(conversation.id)/offboardParticipant"
            let bad = try await admin.raw("POST", path, body: Data(#"{"personId":"\#(assignee)","reason":"BORED"}"#.utf8))
            #expect(bad.status == 400)
            let stranger = try await admin.raw("POST", path, body: Data(#"{"personId":"nobody"}"#.utf8))
            #expect(stranger.status == 400)
            #expect(
                try await server.admin("agent-a", "pw").transport.raw("POST", path, body: Data(#"{"personId":"\#(assignee)"}"#.utf8)).status == 403)
            let other = try await server.admin("agent-x", "pw").transport.raw("POST", path, body: Data(#"{"personId":"\#(assignee)"}"#.utf8))
            #expect(other.status == 403 || other.status == 404)

            let unassigned: WebConversation = try await admin.send(
                "POST", path, body: WebOffboardBody(personId: assignee, reason: "KICKED")
            )
            #expect(unassigned.state == "UNASSIGNED")
            _ = try await app.send("anyone there?", in: conversation.id)
            let queued: WebConversation = try await admin.send("GET", "/app/rest/v4/conversations/\(conversation.id)/read")
            #expect(queued.state == "QUEUED")
            let queue = try await agentB.queue()
            #expect(queue.contains { $0.conversation.id == conversation.id }, "reboarded conversations are back in the queue")
            _ = try await agentB.accept(conversation.id)
            _ = try await agentB.requeue(conversation.id)

            for name in names { _ = try await receiver.wait(count: 1) { $0.headers["x-unblu-event"] == name } }
            #expect(Set(receiver.all.compactMap { $0.headers["x-unblu-event"] }) == Set(names))
            let left = receiver.all.filter { $0.headers["x-unblu-event"] == "conversation.participation.left" }
                .compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
                .compactMap { $0["participation"] as? [String: Any] }
            #expect(left.contains { $0["leftReason"] as? String == "KICKED" })
            for delivery in receiver.all {
                let name = delivery.headers["x-unblu-event"] ?? ""
                let problems = VendorSchemaCheck.problems(delivery.body, schema: VendorWebhookEvents.schemas[name] ?? "?")
                #expect(problems.isEmpty, "\(name): \(problems)")
            }
        }
        try await receiver.stop()
    }

    @Test("offboarding the visitor ends the conversation: a mandatory participant is gone")
    func visitorOffboarded() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let app = visitor(server, device: "reboard-phone-2")
            try await app.start(liveEvents: false)
            let conversation = try await app.startConversation(topic: "leaving")
            let read: WebConversation = try await admin.send("GET", "/app/rest/v4/conversations/\(conversation.id)/read")
            let visitorId = try #require(read.participants?.first { $0.participationType == "CONTEXT_PERSON" }?.personId)
            let ended: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/\(conversation.id)/offboardParticipant", body: WebOffboardBody(personId: visitorId, reason: nil)
            )
            #expect(ended.state == "ENDED")
            #expect(ended.endReason == "MANDATORY_PARTICIPANT_GONE")
        }
    }
}

struct WebOffboardBody: Encodable {
    var personId: String
    var reason: String?
}
