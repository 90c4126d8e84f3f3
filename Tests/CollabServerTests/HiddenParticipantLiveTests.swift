import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Hidden participants over real sockets: the same `conversation.updated` reaches the visitor's app
/// without the hidden agent and the assigned agent's desk with it, marked.
@Suite("Hidden participants: live events")
struct HiddenParticipantLiveTests {
    @Test("a secondary agent added hidden is in the desk's live event and not in the visitor's; shown again, in both")
    func liveForms() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let app = visitor(server, device: "hidden-phone")
            try await app.start()
            let appEvents = EventCollector(app.events)
            let agentA = try await agent(server, "agent-a")
            let desk = EventCollector(try await agentA.connectEvents().events)
            let conversation = try await app.startConversation(topic: "watched")
            _ = try await agentA.accept(conversation.id)
            let agentB = try await InvitationTargetTests.personId(admin, "agent-b").personId

            _ = try await admin.webAPI("POST", "conversations/\(conversation.id)/addParticipant", #"{"personId":"\#(agentB)","hidden":true}"#)
            let id = conversation.id
            let updated: @Sendable (LiveEvent) -> Bool = { $0.type == "conversation.updated" && $0.conversation?.id == id }
            let atDesk = try await desk.wait(for: "the desk sees the hidden agent") { event in
                updated(event) && event.conversation?.participants.contains { $0.personId == agentB } == true
            }
            #expect(atDesk.conversation?.participants.first { $0.personId == agentB }?.hidden == true)
            let atApp = try await appEvents.wait(for: "the visitor is told of the change", updated)
            #expect(atApp.conversation?.participants.contains { $0.personId == agentB } == false, "the visitor never sees the hidden agent")
            #expect(atApp.conversation?.participants.count == 2)

            _ = try await admin.webAPI(
                "POST", "conversations/\(conversation.id)/changeParticipantVisibility", #"{"personId":"\#(agentB)","hidden":false}"#)
            let shown = try await appEvents.wait(for: "the visitor sees the agent once shown") { event in
                updated(event) && event.conversation?.participants.contains { $0.personId == agentB } == true
            }
            #expect(shown.conversation?.participants.first { $0.personId == agentB }?.hidden == nil)
        }
    }
}
