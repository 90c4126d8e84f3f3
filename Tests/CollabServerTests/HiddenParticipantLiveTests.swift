import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Hidden participants over real sockets: a hidden agent's arrival reaches the assigned agent's desk,
/// marked, and not the visitor's app, whose later events leave it out; shown again, the agent reaches both.
@Suite("Hidden participants: live events")
struct HiddenParticipantLiveTests {
    @Test("a hidden agent: the desk is told of its arrival, the visitor is not, and sees later changes without it; shown again, both see it")
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
            // The hidden agent's arrival changes nothing the visitor sees: the app is not told of it.
            try await appEvents.sync(app.liveConnection)
            #expect(!appEvents.events.contains { updated($0) }, "the visitor was told of a hidden arrival")
            #expect(!appEvents.events.contains { $0.conversation?.participants.contains { $0.personId == agentB } == true })

            // A change the visitor sees reaches it without the hidden agent, and the desk with it.
            _ = try await admin.webAPI("POST", "conversations/\(id)/setTopic", #"{"topic":"renamed"}"#)
            let renamed: @Sendable (LiveEvent) -> Bool = { updated($0) && $0.conversation?.topic == "renamed" }
            let renamedAtApp = try await appEvents.wait(for: "the visitor sees the new topic", renamed)
            #expect(renamedAtApp.conversation?.participants.map(\.personId).contains(agentB) == false)
            #expect(renamedAtApp.conversation?.participants.count == 2)
            let renamedAtDesk = try await desk.wait(for: "the desk sees the new topic", renamed)
            #expect(renamedAtDesk.conversation?.participants.first { $0.personId == agentB }?.hidden == true)

            _ = try await admin.webAPI(
                "POST", "conversations/\(conversation.id)/changeParticipantVisibility", #"{"personId":"\#(agentB)","hidden":false}"#)
            let shown = try await appEvents.wait(for: "the visitor sees the agent once shown") { event in
                updated(event) && event.conversation?.participants.contains { $0.personId == agentB } == true
            }
            #expect(shown.conversation?.participants.first { $0.personId == agentB }?.hidden == nil)
        }
    }

    @Test("a hidden agent's departure: the desk is told, the visitor's app is not")
    func hiddenDeparture() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let app = visitor(server, device: "departure-phone")
            try await app.start()
            let appEvents = EventCollector(app.events)
            let agentA = try await agent(server, "agent-a")
            let desk = EventCollector(try await agentA.connectEvents().events)
            let conversation = try await app.startConversation(topic: "left quietly")
            _ = try await agentA.accept(conversation.id)
            let agentB = try await InvitationTargetTests.personId(admin, "agent-b").personId
            let id = conversation.id
            _ = try await admin.webAPI("POST", "conversations/\(id)/addParticipant", #"{"personId":"\#(agentB)","hidden":true}"#)

            _ = try await admin.webAPI("POST", "conversations/\(id)/offboardParticipant", #"{"personId":"\#(agentB)"}"#)
            let left = try await desk.wait(for: "the desk sees the hidden agent leave") { event in
                event.type == "conversation.updated" && event.conversation?.id == id
                    && event.conversation?.participants.contains { $0.personId == agentB && $0.state == "ENDED" } == true
            }
            #expect(left.conversation?.participants.first { $0.personId == agentB }?.hidden == true)
            // Neither the arrival nor the departure changed what the visitor sees: the app heard of neither.
            try await appEvents.sync(app.liveConnection)
            #expect(!appEvents.events.contains { $0.type == "conversation.updated" && $0.conversation?.id == id })
        }
    }
}
