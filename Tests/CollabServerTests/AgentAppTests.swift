import CollabClient
import CollabTestSupport
import CollabWire
import Foundation
import Testing

/// An agent's app on the mobile SDK's terms: started like a visitor's (API key and an access token, or
/// the vendor's login), its device registered like a visitor's, and pushed what concerns an agent.
@Suite("Agent apps: start, devices, pushes")
struct AgentAppTests {
    /// An agent's app of the `desk` account, on `device`.
    static func agentApp(
        _ server: some ServerUnderTest, device: String, accessToken: String? = nil, namedArea: String? = nil, apiKey: String = "desk-key"
    ) -> AgentClient {
        AgentClient(
            configuration: ClientConfiguration(
                baseURL: server.baseURL, apiKey: apiKey, accessToken: accessToken, namedArea: namedArea, deviceId: device))
    }

    @Test("an agent's app started with the password ends when an admin sets a new one, or removes it")
    func passwordResetEndsTheApp() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw")
            for (agent, change) in [("agent-b", "set"), ("agent-c", "remove")] {
                let app = Self.agentApp(server, device: "\(agent)-leaked")
                try await app.start(username: agent, password: "pw", liveEvents: false)
                _ = try await app.presence()
                let userId = try #require(try await admin.users.getByUsername(agent).id)
                if change == "set" {
                    _ = try await admin.users.setPassword(userId, password: "new-pw")
                } else {
                    _ = try await admin.transport.send("POST", "/app/rest/v4/users/\(userId)/removePassword", as: WebUser.self)
                }
                do throws(CollabClientError) {
                    _ = try await app.presence()
                    Issue.record("the \(agent) app outlived its password (\(change))")
                } catch {
                    #expect(error.code == .authorization, "\(error)")
                }
            }
        }
    }

    @Test("an agent's app starts with an access token or the login, gets the typed errors, and works the agent API with its token")
    func start() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "agent-a")).token
            let app = Self.agentApp(server, device: "agent-phone", accessToken: token)
            let started = try await app.start(liveEvents: false)
            #expect(started.person.type == "AGENT")
            #expect(started.person.displayName == "Agent A")
            // The app's token works the whole agent API.
            try await app.setPresence("ONLINE")
            #expect(try await app.conversations().isEmpty)
            #expect(try await app.setAppState(.background).appState == "BACKGROUND")

            // The vendor's login instead of a token.
            let login = Self.agentApp(server, device: "agent-b-phone")
            #expect(try await login.start(username: "agent-b", password: "pw", liveEvents: false).person.displayName == "Agent B")

            // The visitor's typed errors: an unknown API key is fatal, a token naming no agent is not.
            let wrongKey = Self.agentApp(server, device: "p1", accessToken: token, apiKey: "no-such-key")
            let keyEvents = ClientEventCollector(wrongKey.clientEvents)
            await #expect(throws: CollabClientError.self) { try await wrongKey.start(liveEvents: false) }
            try await keyEvents.wait(for: "fatal INVALID_API_KEY") {
                if case .error(let error) = $0 { return error.type == .invalidApiKey && error.isFatal }
                return false
            }
            let visitorToken = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "visitor-1")).token
            let notAnAgent = Self.agentApp(server, device: "p2", accessToken: visitorToken)
            do {
                try await notAnAgent.start(liveEvents: false)
                Issue.record("a token naming no agent started an agent's app")
            } catch let error as CollabClientError {
                #expect(error.code == .authorization && error.type == "AUTHORIZATION")
            }
            let otherAccountAgent = Self.agentApp(server, device: "p3", apiKey: "other-key")
            await #expect(throws: CollabClientError.self, "an agent of another account") {
                try await otherAccountAgent.start(username: "agent-a", password: "pw", liveEvents: false)
            }

            // Each API takes its own kind of app: a visitor's token is refused by the agent API, an
            // agent's by the device API, each in the typed body.
            let visitorApp = visitor(server, device: "visitor-phone")
            let visitorStart = try await visitorApp.start(liveEvents: false)
            let onAgentAPI = try await HTTPTransport(baseURL: server.baseURL, credentials: .bearer(visitorStart.token)).raw(
                "GET", "/agent/v1/conversations")
            #expect(onAgentAPI.status == 401)
            #expect(String(decoding: onAgentAPI.body, as: UTF8.self).contains("AUTHORIZATION"))
            let onDeviceAPI = try await HTTPTransport(baseURL: server.baseURL, credentials: .bearer(started.token)).raw(
                "GET", "/mobile/v1/conversations")
            #expect(onDeviceAPI.status == 401)

            // Stopping ends the token.
            try await app.stop()
            #expect(try await HTTPTransport(baseURL: server.baseURL, credentials: .bearer(started.token)).raw("GET", "/agent/v1/me").status == 401)
        }
    }

    @Test("an agent's device gets inbound requests (queue and invitation), their revocation, new messages, VoIP calls from visitors — by app state")
    func pushes() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let events = ["push_notification.inbound_request", "push_notification.revoke_inbound_request"]
            try await receiver.register(as: admin, name: "agent pushes", events: events)
            // Agent A's app, filtered on area A, in the background with an encrypted registration.
            let app = Self.agentApp(server, device: "agent-a-phone", namedArea: "area-a")
            try await app.start(username: "agent-a", password: "pw", liveEvents: false)
            let notifications = NotificationAPI(client: app)
            try await notifications.register(apnsToken: apnsToken, pushKitToken: voipToken, version: .encrypted)
            try await app.setAppState(.background)
            let agentPerson = try #require(app.appSession?.person.id)

            // A visitor's conversation enters area A's queue: an inbound request.
            let visitorApp = visitor(server, device: "caller", namedArea: "area-a")
            try await visitorApp.start(liveEvents: false)
            let conversation = try await visitorApp.startConversation(topic: "Card blocked")
            let inbound = try await server.waitForPush([("kind", "INBOUND_REQUEST"), ("conversationId", conversation.id)])
            #expect(inbound.personId == agentPerson)
            let request = try await notifications.handleRemoteNotification(userInfo: try userInfo(inbound))
            #expect(request.text == "Card blocked")
            #expect(request.contextPersonId == visitorApp.session?.person.id)
            #expect(request.initialEngagementType == "CHAT_REQUEST")
            #expect(request.invitationId == nil)
            // Area B's requests are not the app's.
            let other = visitor(server, device: "other-caller", namedArea: "area-b")
            try await other.start(liveEvents: false)
            let elsewhere = try await other.startConversation(topic: "elsewhere")

            // Agent B takes it at the desk: the request is revoked (a background push).
            let agentB = try await agent(server, "agent-b")
            _ = try await agentB.accept(conversation.id)
            let revoked = try await server.waitForPush([("kind", "REVOKE_INBOUND_REQUEST"), ("conversationId", conversation.id)])
            #expect(revoked.pushType == "background")

            // An invitation to agent A: an inbound request naming it; accepting it revokes it.
            struct Invited: Decodable { var id: String }
            let invitation: Invited = try await admin.send(
                "POST", "/app/rest/v4/invitations/inviteAgentToConversation",
                body: ["conversationId": conversation.id, "agentPersonId": agentPerson], as: Invited.self
            )
            let invited = try await server.waitForPush([
                ("kind", "INBOUND_REQUEST"), ("conversationId", conversation.id), ("after", String(revoked.id)),
            ])
            #expect(try await notifications.handleRemoteNotification(userInfo: try userInfo(invited)).invitationId == invitation.id)
            let _: ConversationView = try await app.transport.send("POST", "/agent/v1/invitations/\(invitation.id)/accept")
            _ = try await server.waitForPush([("kind", "REVOKE_INBOUND_REQUEST"), ("after", String(invited.id))])

            // Now in the conversation: the visitor's messages are pushed, counted on the badge.
            _ = try await visitorApp.send("Hello?", in: conversation.id)
            let message = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("personId", agentPerson)])
            let content = try await notifications.handleRemoteNotification(userInfo: try userInfo(message))
            #expect(content.text == "Hello?")
            #expect(content.notificationCount == 1)

            // With the app's UI open, nothing reaches the device.
            try await app.setAppState(.foregroundUIOpen)
            _ = try await visitorApp.send("Are you there?", in: conversation.id)
            try await server.settlePushes()
            let afterOpen = try await server.pushes([("personId", agentPerson), ("kind", "NEW_MESSAGE")])
            #expect(afterOpen.count == 1, "nothing while the agent sees the conversation")

            // Webhooks in the vendor's schemas.
            let hooks = try await receiver.wait(count: 4)
            for hook in hooks {
                let type = try #require((try JSONSerialization.jsonObject(with: hook.body) as? [String: Any])?["$_type"] as? String)
                #expect(type.hasSuffix("InboundRequestPushNotificationEvent"))
                #expect(VendorSchemaCheck.problems(hook.body, schema: type).isEmpty, "\(VendorSchemaCheck.problems(hook.body, schema: type))")
            }
            let pushedForElsewhere = try await server.pushes([("conversationId", elsewhere.id), ("personId", agentPerson)])
            #expect(pushedForElsewhere.isEmpty, "a request of another named area is not the app's")
        }
    }

    @Test("a visitor's call rings the assigned agent's app by VoIP; the app answers it under the same UUID")
    func incomingCall() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let app = Self.agentApp(server, device: "agent-voip")
            try await app.start(username: "agent-a", password: "pw", liveEvents: false)
            let notifications = NotificationAPI(client: app)
            try await notifications.register(apnsToken: apnsToken, pushKitToken: voipToken, version: .encryptedService)
            try await app.setAppState(.background)
            let visitorApp = visitor(server, device: "visitor-voip")
            try await visitorApp.start(liveEvents: false)
            let conversation = try await visitorApp.startConversation(topic: "call me")
            _ = try await app.accept(conversation.id)

            let outgoing = try await CallAPI(notifications: NotificationAPI(client: visitorApp)).startCall(in: conversation.id, hasVideo: true)
            let voip = try await server.waitForPush([("kind", "INCOMING_CALL"), ("transport", "APNS_VOIP")])
            #expect(voip.personId == app.appSession?.person.id)
            let calls = CallAPI(notifications: notifications)
            let incoming = try await calls.incomingCall(fromVoIPPayload: try userInfo(voip))
            #expect(incoming.uuid == outgoing.uuid)
            #expect(incoming.hasVideo)
            #expect(try await calls.answer(incoming.uuid).state == "ACTIVE")
            #expect(try await calls.end(incoming.uuid).state == "ENDED")
        }
    }

    @Test("an agent's call credential from its VoIP push acts on that call on the agent API, and on nothing else")
    func agentCallCredential() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let app = Self.agentApp(server, device: "agent-locked")
            try await app.start(username: "agent-a", password: "pw", liveEvents: false)
            let notifications = NotificationAPI(client: app)
            try await notifications.register(apnsToken: apnsToken, pushKitToken: voipToken, version: .encryptedService)
            try await app.setAppState(.background)
            let visitorApp = visitor(server, device: "visitor-locked")
            try await visitorApp.start(liveEvents: false)
            let conversation = try await visitorApp.startConversation(topic: "call the locked phone")
            _ = try await app.accept(conversation.id)

            let outgoing = try await CallAPI(notifications: NotificationAPI(client: visitorApp)).startCall(in: conversation.id)
            let voip = try await server.waitForPush([("kind", "INCOMING_CALL"), ("transport", "APNS_VOIP")])
            let content = try await notifications.handleRemoteNotification(userInfo: try userInfo(voip))
            let callId = outgoing.uuid.uuidString
            let bearer = HTTPTransport(baseURL: server.baseURL, credentials: .bearer(try #require(content.callCredential)))

            let read: CallView = try await bearer.send("GET", "/agent/v1/calls/\(callId)")
            #expect(read.state == "RINGING")
            #expect(try await bearer.raw("GET", "/mobile/v1/calls/\(callId)").status == 401, "an agent's credential is for the agent API")
            // It acts on its call alone: not as the agent elsewhere on the agent API.
            for (method, path) in [
                ("GET", "/agent/v1/conversations"), ("GET", "/agent/v1/conversations/\(conversation.id)"),
                ("POST", "/agent/v1/conversations/\(conversation.id)/end"), ("POST", "/agent/v1/conversations/\(conversation.id)/calls"),
            ] {
                #expect(try await bearer.raw(method, path).status == 403, "\(method) \(path)")
            }
            let answered: CallView = try await bearer.send("POST", "/agent/v1/calls/\(callId)/answer")
            #expect(answered.state == "ACTIVE")
            let ended: CallView = try await bearer.send("POST", "/agent/v1/calls/\(callId)/end")
            #expect(ended.state == "ENDED")
            #expect(try await bearer.raw("GET", "/agent/v1/calls/\(callId)").status == 401, "the credential expires with its call")
            #expect(try await app.conversation(conversation.id).state != "ENDED", "the conversation goes on")
        }
    }

    @Test("the other devices of a person are told when messages were read on one of them")
    func readMessage() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "two-phones")).token
            let phone = visitor(server, device: "phone-1", accessToken: token)
            let tablet = visitor(server, device: "tablet-1", accessToken: token)
            try await phone.start(liveEvents: false)
            try await tablet.start(liveEvents: false)
            let phoneNotifications = NotificationAPI(client: phone)
            try await phoneNotifications.register(apnsToken: apnsToken, version: .notEncrypted)
            try await NotificationAPI(client: tablet).register(apnsToken: String(repeating: "c3", count: 32), version: .notEncrypted)
            try await phone.setAppState(.background)
            try await tablet.setAppState(.background)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await phone.startConversation(topic: "read me")
            _ = try await agentA.accept(conversation.id)
            _ = try await agentA.send("One", in: conversation.id)
            _ = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("deviceId", "phone-1")])

            // Read on the tablet: the phone clears its badge.
            try await tablet.setAppState(.foregroundUIOpen)
            let read = try await server.waitForPush([("kind", "READ_MESSAGE"), ("deviceId", "phone-1")])
            #expect(read.pushType == "background")
            let content = try await phoneNotifications.handleRemoteNotification(userInfo: try userInfo(read))
            #expect(content.notificationCount == 0)
            #expect(content.conversationId == conversation.id)
            try await server.settlePushes()
            #expect(try await server.pushes([("kind", "READ_MESSAGE"), ("deviceId", "tablet-1")]).isEmpty, "the device that read is not told")
        }
    }
}

/// Presence as the other agents see it live.
@Suite("Agent presence, live")
struct AgentPresenceEventTests {
    @Test("an agent's presence change reaches the other agents naming whose it is")
    func presenceNamesTheAgent() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let watcher = try await agent(server, "agent-a")
            let events = EventCollector(try await watcher.connectEvents().events)
            let other = try await agent(server, "agent-b")
            try await other.setPresence("ONLINE")
            let otherPersonId = try #require(other.session?.person.id)
            let changed = try await events.wait(for: "agent-b's presence") {
                $0.type == "agent.presence_changed" && $0.detail?["personId"] == otherPersonId
            }
            #expect(changed.detail?["presence"] == "ONLINE")
        }
    }
}
