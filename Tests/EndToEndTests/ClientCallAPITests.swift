import CollabClient
import CollabWire
import Foundation
import Testing

@Suite("CollabClient as the SDK: calls like the CallKit bridge")
struct ClientCallAPITests {
    @Test("a VoIP push becomes a call with a stable UUID that is answered; another rings out and is reported missed (virtual clock)")
    func incomingAnsweredAndMissed() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "callkit-phone", version: .encrypted)
            let calls = CallAPI(notifications: scenario.notifications)

            let call = try await scenario.agent.startCall(in: scenario.conversationId, callType: "VIDEO")
            #expect(UUID(uuidString: call.id)?.uuidString == call.id, "call ids are canonical UUIDs")
            let voip = try await server.waitForPush([("kind", "INCOMING_CALL"), ("transport", "APNS_VOIP")])
            #expect(voip.content.callId == call.id, "the VoIP push carries the same UUID")
            let incoming = try await calls.incomingCall(fromVoIPPayload: try userInfo(voip))
            #expect(incoming.uuid.uuidString == call.id)
            #expect(incoming.hasVideo)
            #expect(incoming.handlerName == "Agent A")
            #expect(incoming.conversationId == scenario.conversationId)
            let answered = try await calls.answer(incoming.uuid)
            #expect(answered.state == "ACTIVE")
            #expect(try await calls.call(incoming.uuid).id == call.id)

            // Not every push of ours is a call: a bridge reports such a VoIP payload as unsuccessful.
            _ = try await scenario.agent.send("still there?", in: scenario.conversationId)
            let message = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("conversationId", scenario.conversationId)])
            await #expect(throws: NotificationProcessingError.unexpectedKind("NEW_MESSAGE")) {
                try await calls.incomingCall(fromVoIPPayload: try userInfo(message))
            }
            #expect(try await calls.end(incoming.uuid).state == "ENDED")

            // The second call rings out: the clock passes the timeout, the missed-call push ends it as unanswered.
            let second = try await scenario.agent.startCall(in: scenario.conversationId, callType: "AUDIO")
            let ring = try await server.waitForPush([("kind", "INCOMING_CALL"), ("transport", "APNS_VOIP"), ("after", String(voip.id))])
            let secondIncoming = try await calls.incomingCall(fromVoIPPayload: try userInfo(ring))
            #expect(secondIncoming.uuid.uuidString == second.id)
            #expect(!secondIncoming.hasVideo)
            try await server.control.changeClock(ClockChange(advanceMillis: 31_000))
            let missedPush = try await server.waitForPush([("kind", "MISSED_CALL"), ("conversationId", scenario.conversationId)])
            let missed = try await scenario.notifications.handleRemoteNotification(userInfo: try userInfo(missedPush))
            #expect(calls.update(for: missed) == .ended(secondIncoming.uuid, unanswered: true))
            #expect(try await calls.call(secondIncoming.uuid).endReason == "NOT_ANSWERED")
            await #expect(throws: CollabClientError.self) { try await calls.answer(secondIncoming.uuid) }

            // Call ids that are not UUIDs are refused with a typed 400.
            let bad = try await scenario.app.transport.raw("GET", "/mobile/v1/calls/not-a-uuid")
            #expect(bad.status == 400)
        }
    }

    @Test("a visitor's outgoing call: the agent answers, declines, or lets it ring out; live events and webhooks follow")
    func outgoingCalls() async throws {
        let receiver = try await WebhookReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let events = ["conversation.call.initiated", "conversation.call.accepted", "conversation.call.ended"]
            try await receiver.register(as: server.admin("admin-d", "pw").transport, name: "calls", events: events)
            let scenario = try await PushScenario.make(server, device: "caller-phone", version: .notEncrypted, appState: .foregroundUIOpen)
            let agentEvents = EventCollector(try await scenario.agent.connectEvents().events)
            let visitorEvents = EventCollector(scenario.app.events)
            let calls = CallAPI(notifications: scenario.notifications)

            // Answered.
            let outgoing = try await calls.startCall(in: scenario.conversationId, hasVideo: true, handlerName: "Agent A")
            #expect(outgoing.call.state == "RINGING")
            #expect(outgoing.uuid.uuidString == outgoing.call.id)
            #expect(outgoing.hasVideo)
            let id = outgoing.call.id
            try await agentEvents.wait(for: "ringing at the agent") { $0.type == "conversation.call.started" && $0.detail?["callId"] == id }
            let other = try await agent(server, "agent-b")
            await #expect(throws: CollabClientError.self, "an agent outside the conversation cannot answer") { try await other.answerCall(id) }
            #expect(try await scenario.agent.answerCall(id).state == "ACTIVE")
            let answeredEvent = try await visitorEvents.wait(for: "answered") {
                $0.type == "conversation.call.answered" && $0.detail?["callId"] == id
            }
            #expect(calls.update(for: answeredEvent) == .answered(outgoing.uuid))
            #expect(try await calls.end(outgoing.uuid).state == "ENDED")

            // Declined.
            let declinedCall = try await calls.startCall(in: scenario.conversationId)
            let declinedId = declinedCall.call.id
            let declined = try await scenario.agent.declineCall(declinedId)
            #expect(declined.endReason == "DECLINED")
            let declinedEvent = try await visitorEvents.wait(for: "declined") {
                $0.type == "conversation.call.ended" && $0.detail?["callId"] == declinedId
            }
            #expect(calls.update(for: declinedEvent) == .ended(declinedCall.uuid, unanswered: true))

            // Missed: nobody answers before the timeout on the server clock. The clock jumps well past it; the
            // call ended at its timeout all the same.
            let missedCall = try await calls.startCall(in: scenario.conversationId)
            let missedId = missedCall.call.id
            try await server.control.changeClock(ClockChange(advanceMillis: 600_000))
            #expect(try await calls.call(missedCall.uuid).endReason == "NOT_ANSWERED")
            let missedView: CallView = try await scenario.agent.transport.send("GET", "/agent/v1/calls/\(missedId)")
            #expect(missedView.endTimestamp == missedView.timeoutAt, "ended at its timeout, not when the clock was moved")
            let missedEvent = try await agentEvents.wait(for: "missed") { $0.type == "conversation.call.ended" && $0.detail?["callId"] == missedId }
            #expect(missedEvent.detail?["missed"] == "true")
            #expect(calls.update(for: missedEvent) == .ended(missedCall.uuid, unanswered: true))

            // Another account's visitor and agent see none of it.
            let outsider = visitor(server, device: "outsider-phone", apiKey: "other-key")
            try await outsider.start(liveEvents: false)
            await #expect(throws: CollabClientError.self) { try await outsider.startCall(in: scenario.conversationId) }
            let outsiderCall = try await outsider.transport.raw("GET", "/mobile/v1/calls/\(id)")
            #expect(outsiderCall.status == 404)
            let agentX = try await agent(server, "agent-x")
            let answeredElsewhere = try await agentX.transport.raw("POST", "/agent/v1/calls/\(missedId)/answer")
            #expect(answeredElsewhere.status == 404)

            // Webhooks, in the vendor's call event schemas: three initiated, one accepted, three ended,
            // each naming its call (serviceProviderCallId) and who started it.
            struct CallEvent: Decodable {
                var eventType: String
                var serviceProviderCallId: String
                var initiatorPersonId: String
                var endReason: String?
            }
            let hooks = try await receiver.wait(count: 7)
            let bodies = try hooks.map { try JSONDecoder().decode(CallEvent.self, from: $0.body) }
            #expect(bodies.filter { $0.eventType == "conversation.call.initiated" }.count == 3)
            #expect(bodies.allSatisfy { $0.initiatorPersonId == scenario.app.session?.person.id })
            #expect(bodies.contains { $0.eventType == "conversation.call.accepted" && $0.serviceProviderCallId == id })
            #expect(
                bodies.contains {
                    $0.eventType == "conversation.call.ended" && $0.serviceProviderCallId == missedId && $0.endReason == "NOT_ANSWERED"
                })
        }
        try await receiver.stop()
    }
}
