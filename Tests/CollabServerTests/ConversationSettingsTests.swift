import CollabClient
import CollabCore
import CollabServer
import CollabWire
import Foundation
import Testing

/// Conversation settings and recordings over real sockets, checked against the vendor's schemas.
@Suite("Conversation settings and recordings")
struct ConversationSettingsTests {
    /// A visitor's conversation that agent-a accepted.
    static func accepted(_ server: TestServer, device: String, topic: String) async throws -> (VisitorClient, AgentClient, ConversationView) {
        let app = visitor(server, device: device)
        try await app.start()
        let conversation = try await app.startConversation(topic: topic)
        let agentA = try await agent(server, "agent-a")
        _ = try await agentA.accept(conversation.id)
        return (app, agentA, conversation)
    }

    @Test("settings are stored on the conversation and answered with it; bad values are a 400 naming the field")
    func settings() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let (_, _, conversation) = try await Self.accepted(server, device: "settings-phone", topic: "settings")
            let path = "conversations/\(conversation.id)"
            let read = try await admin.webAPI("GET", "\(path)/read", schema: "ConversationData")
            let agentId = try #require(
                (read["participants"] as? [[String: Any]])?.first { $0["participationType"] as? String == "ASSIGNED_AGENT" }?["personId"] as? String)

            let visible = try await admin.webAPI(
                "POST", "\(path)/setVisibility", #"{"conversationVisibility":"PRIVATE"}"#, schema: "ConversationData")
            #expect(visible["conversationVisibility"] as? String == "PRIVATE")
            _ = try await admin.webAPI("POST", "\(path)/setVisibility", #"{"conversationVisibility":"SECRET"}"#, status: 400)
            let starred = try await admin.webAPI(
                "POST", "\(path)/setStarred", #"{"personId":"\#(agentId)","starred":true}"#, schema: "ConversationData")
            let participant = (starred["participants"] as? [[String: Any]])?.first { $0["personId"] as? String == agentId }
            #expect(participant?["conversationStarred"] as? Bool == true)
            let awaited = try await admin.webAPI(
                "POST", "\(path)/setAwaitedPersonType", #"{"awaitedPersonType":"VISITOR"}"#, schema: "ConversationData")
            #expect(awaited["awaitedPersonType"] as? String == "VISITOR")
            let locale = try await admin.webAPI("POST", "\(path)/setLocale", #"{"locale":"de-CH"}"#, schema: "ConversationData")
            #expect(locale["locale"] as? String == "de-CH")
            _ = try await admin.webAPI("POST", "\(path)/setLocale", "{}", status: 400)
            _ = try await admin.webAPI("POST", "\(path)/updateConfiguration", #"{"com.unblu.conversation.example":"on"}"#, schema: "ConversationData")
            let configured = try await admin.webAPI("GET", "\(path)/read", query: [("expand", "configuration")], schema: "ConversationData")
            #expect((configured["configuration"] as? [String: String])?["com.unblu.conversation.example"] == "on", "the configuration is stored")
            #expect(configured["conversationVisibility"] as? String == "PRIVATE" && configured["locale"] as? String == "de-CH")
            _ = try await server.admin("agent-b", "pw").transport.webAPI("POST", "\(path)/setLocale", #"{"locale":"fr"}"#, status: 403)
        }
    }

    @Test("a recording of an active call: its state, its history entry (no media, a plausible size) and the recorded minutes")
    func recordings() async throws {
        let clock = AdjustableClock()
        try await TestServer.with(seed: queueSeed, clock: clock) { server in
            let admin = server.admin("admin-d", "pw").transport
            let (app, agentA, conversation) = try await Self.accepted(server, device: "recorded-phone", topic: "record me")
            let path = "conversations/\(conversation.id)"
            _ = try await admin.webAPI("POST", "\(path)/startRecording", status: 409)
            let idle = try await admin.webAPI("POST", "\(path)/getRecordingState", schema: "ConversationRecordingState")
            #expect(idle["recordingState"] as? String == "IDLE")

            let call = try await app.startCall(in: conversation.id, callType: "AUDIO")
            _ = try await agentA.answerCall(call.id)
            // The server's clock stands still but for the recording's 90 s, so its length is exact.
            clock.setFrozen(true)
            _ = try await admin.webAPI("POST", "\(path)/startRecording", status: 204)
            _ = try await admin.webAPI("POST", "\(path)/startRecording", status: 409)
            let running = try await admin.webAPI("POST", "\(path)/getRecordingState", schema: "ConversationRecordingState")
            #expect(running["recordingType"] as? String == "AUDIO" && running["recordingState"] as? String != "IDLE")
            clock.advance(by: 90_000)
            _ = try await admin.webAPI("POST", "\(path)/stopRecording", status: 204)

            let history = try await admin.webAPI(
                "GET", "conversationhistory/\(conversation.id)/getConversationRecordings", schema: "ConversationRecordingHistoryDataList"
            )
            let recording = try #require((history["items"] as? [[String: Any]])?.first)
            #expect(recording["status"] as? String == "COMPLETE" && recording["recordingType"] as? String == "AUDIO")
            #expect(recording["totalSize"] as? Int == 90 * 4_000, "90 s at 32 kbit/s")
            #expect((recording["callIds"] as? [String]) == [call.id])
            #expect((recording["downloadLinks"] as? [Any])?.isEmpty == true, "no media is captured")

            let account = try await admin.webAPI("GET", "accounts/getCurrentAccount")
            let minutes = try await admin.webAPI(
                "GET", "accounts/\(try #require(account["id"] as? String))/getRecordedMinutes", schema: "RecordedMinutesData")
            #expect(minutes["recordedMinutes"] as? Int == 2, "90 s round up to 2 minutes")
            let later = try await admin.webAPI(
                "GET", "accounts/\(try #require(account["id"] as? String))/getRecordedMinutes", query: [("fromTime", "\(clock.now())")]
            )
            #expect(later["recordedMinutes"] as? Int == 0, "only recordings that started in the range")
        }
    }
}
