import CollabClient
import CollabWire
import Foundation
import Testing

@Suite("CollabClient as the SDK: typed client events")
struct ClientEventsTests {
    @Test("UI show and hide requests with reason and requestedByUser, open-conversation changes, errors with type and fatality")
    func typedEvents() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "typed-phone")
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "typed")
            _ = try await agentA.accept(conversation.id)
            let id = conversation.id

            try await app.openConversation(id)
            #expect(app.openConversationId == id)
            try await events.wait(for: "opened") { $0 == .openConversationChanged(id) }
            try await app.closeConversation(id)
            try await events.wait(for: "closed") { $0 == .openConversationChanged(nil) }

            // A call while the app is in the foreground with the UI closed: the server asks to show the UI.
            try await app.setAppState(.foregroundUIClosed)
            let call = try await agentA.startCall(in: id)
            try await events.wait(for: "show UI for the call") {
                $0 == .showUIRequested(UIRequest(reason: .incomingCall, requestedByUser: false, conversationId: id, callId: call.id))
            }
            _ = try await agentA.endCall(call.id)
            try await events.wait(for: "a live call event") {
                if case .live(let event) = $0 { return event.type == "conversation.call.ended" }
                return false
            }

            // The open conversation ends: a hide request and no open conversation any more.
            try await app.openConversation(id)
            _ = try await agentA.end(id)
            try await events.wait(for: "hide UI") {
                $0 == .hideUIRequested(UIRequest(reason: .conversationEnded, requestedByUser: false, conversationId: id))
            }
            try await events.wait(for: "no open conversation") { $0 == .openConversationChanged(nil) }
            app.requestHideUI()
            try await events.wait(for: "hide UI by the user") {
                if case .hideUIRequested(let request) = $0 { return request.requestedByUser }
                return false
            }
        }
    }

    @Test("a start with an unknown API key is a fatal INVALID_API_KEY error; a bad access token a non-fatal AUTHORIZATION one")
    func errors() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let unknownKey = visitor(server, device: "wrong-key", apiKey: "no-such-key")
            let keyEvents = ClientEventCollector(unknownKey.clientEvents)
            await #expect(throws: CollabClientError.self) { try await unknownKey.start() }
            try await keyEvents.wait(for: "fatal error") { $0 == .error(ClientError(type: .invalidApiKey, isFatal: true, message: messageOf($0))) }

            let badToken = visitor(server, device: "bad-token", accessToken: "not.a.jwt")
            let tokenEvents = ClientEventCollector(badToken.clientEvents)
            await #expect(throws: CollabClientError.self) { try await badToken.start() }
            try await tokenEvents.wait(for: "non-fatal error") {
                if case .error(let error) = $0 { return error.type == .authorization && !error.isFatal }
                return false
            }
        }
    }
}

private func messageOf(_ event: ClientEvent) -> String {
    if case .error(let error) = event { return error.message }
    return ""
}
