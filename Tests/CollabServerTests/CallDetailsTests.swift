import CollabClient
import CollabCore
import CollabWire
import Foundation
import Synchronization
import Testing

/// What a CallKit bridge records (the app's `CXProvider` calls), for tests.
final class RecordingCallKitBridge: CallKitBridge {
    enum Report: Equatable, Sendable {
        case incoming(UUID, handlerName: String, callType: String)
        case unsuccessful(UUID)
        case ended(UUID, unanswered: Bool)
    }

    private let recorded = Mutex<[Report]>([])
    var reports: [Report] { recorded.withLock { $0 } }

    func reportNewIncomingCall(callId: UUID, handlerName: String, callType: String) async throws {
        recorded.withLock { $0.append(.incoming(callId, handlerName: handlerName, callType: callType)) }
    }

    func reportUnsuccessfulCall(_ uuid: UUID) async {
        recorded.withLock { $0.append(.unsuccessful(uuid)) }
    }

    func endIncomingCall(with uuid: UUID, unanswered: Bool) async {
        recorded.withLock { $0.append(.ended(uuid, unanswered: unanswered)) }
    }
}

/// Calls on the SDK's terms: the greeting and credential a VoIP push carries, native ringing or not,
/// VoIP pushes for calls already over, and the call's provider.
@Suite("Call details")
struct CallDetailsTests {
    static let seed = Seed(accounts: [
        .init(
            name: "desk",
            configuration: [CallServiceProvider.audioGreetingKey: "Please open the app to join the call", CallServiceProvider.propertyKey: "LIVEKIT"],
            apiKeys: [.init(key: "desk-key")], namedAreas: [.init(siteId: "area-a")],
            users: [.init(username: "agent-a", password: "pw", role: .registeredUser, displayName: "Agent A")]
        ),
        .init(name: "other", apiKeys: [.init(key: "other-key")]),
    ])

    /// A started visitor in the background with a conversation agent A took.
    static func scenario(
        _ server: some ServerUnderTest, device: String, apns: String? = apnsToken, voip: String? = voipToken, pushKitEnabled: Bool = true
    ) async throws
        -> (app: VisitorClient, notifications: NotificationAPI, agent: AgentClient, conversationId: String)
    {
        let app = visitor(server, device: device)
        try await app.start(liveEvents: server.carriesWebSockets)
        let notifications = NotificationAPI(client: app)
        notifications.version = .encrypted
        notifications.pushKitEnabled = pushKitEnabled
        notifications.deviceToken = apns
        notifications.pushKitToken = voip
        try await notifications.registration()
        try await app.setAppState(.background)
        let agentA = try await agent(server, "agent-a")
        let conversation = try await app.startConversation(topic: "call")
        _ = try await agentA.accept(conversation.id)
        return (app, notifications, agentA, conversation.id)
    }

    @Test("the VoIP push carries the greeting and a credential: an app that has not started answers with it; it expires with the call")
    func greetingAndLockedPhoneAnswer() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let (_, notifications, agentA, conversationId) = try await Self.scenario(server, device: "locked-phone")
            let call = try await agentA.startCall(in: conversationId, callType: "AUDIO")
            let voip = try await server.waitForPush([("kind", "INCOMING_CALL"), ("transport", "APNS_VOIP")])

            // The phone is locked, the app has not started: a fresh client with the stored keys decrypts.
            let cold = visitor(server, device: "locked-phone")
            let calls = CallAPI(notifications: NotificationAPI(client: cold, storage: notifications.storage))
            let incoming = try await calls.incomingCall(fromVoIPPayload: try userInfo(voip))
            #expect(incoming.audioGreeting == "Please open the app to join the call")
            #expect(incoming.serviceProvider == "LIVEKIT")
            // CallKit's answer, before the app starts: the push's credential answers that call.
            let answered = try await calls.answer(incoming.uuid)
            #expect(answered.state == "ACTIVE")
            #expect(answered.id == call.id)

            // The credential acts on its own call only, and expires with it.
            let content = try await notifications.handleRemoteNotification(userInfo: try userInfo(voip))
            let credential = try #require(content.callCredential)
            let bearer = HTTPTransport(baseURL: server.baseURL, credentials: .bearer(credential))
            #expect(try await bearer.raw("GET", "/mobile/v1/calls/\(UUID().uuidString)").status == 403)
            #expect(try await bearer.raw("GET", "/mobile/v1/conversations").status == 401, "nothing but the call")
            #expect(try await calls.end(incoming.uuid).state == "ENDED")
            let expired = try await bearer.raw("GET", "/mobile/v1/calls/\(call.id)")
            #expect(expired.status == 401)
            #expect(String(decoding: expired.body, as: UTF8.self).contains("AUTHORIZATION"))
            // Another account's server-side state is out of reach with it too.
            #expect(try await bearer.raw("POST", "/agent/v1/calls/\(call.id)/answer").status == 401)
        }
    }

    @Test("nativeInboundCall: an app that cannot ring natively (pushKitEnabled false) rings by an alert push, or a UI request in the foreground")
    func nativeInboundCall() async throws {
        try await TestServer.with(seed: Self.seed) { server in
            let (app, notifications, agentA, conversationId) = try await Self.scenario(server, device: "no-callkit", pushKitEnabled: false)
            let device = try #require(try await notifications.registration()?.device)
            #expect(device.nativeInboundCall == false)
            #expect(device.pushKitToken == nil, "the PushKit token is not registered")
            let first = try await agentA.startCall(in: conversationId)
            let alert = try await server.waitForPush([("kind", "INCOMING_CALL"), ("conversationId", conversationId)])
            #expect(alert.transport == .apns)
            #expect(alert.pushType == "background", "an Encrypted device's alert goes as a background push it decrypts")
            _ = try await agentA.endCall(first.id)

            // In the foreground with the UI closed: a UI request, no push.
            let events = ClientEventCollector(app.clientEvents)
            try await app.setAppState(.foregroundUIClosed)
            let second = try await agentA.startCall(in: conversationId)
            try await events.wait(for: "show UI for the call") {
                $0 == .showUIRequested(UIRequest(reason: .incomingCall, requestedByUser: false, conversationId: conversationId, callId: second.id))
            }
            try await server.settlePushes()
            #expect(try await server.pushes([("kind", "INCOMING_CALL"), ("conversationId", conversationId)]).count == 1)

            // The same device with CallKit: VoIP again.
            _ = try await agentA.endCall(second.id)
            try await app.setAppState(.background)
            notifications.pushKitEnabled = true
            notifications.pushKitToken = voipToken
            #expect(try await notifications.registration()?.device.nativeInboundCall == true)
            _ = try await agentA.startCall(in: conversationId)
            _ = try await server.waitForPush([("kind", "INCOMING_CALL"), ("transport", "APNS_VOIP")])
        }
    }

    /// A started visitor app of one person (`subject`) on `device`, registered with `register`, in the background.
    static func backgroundApp(
        _ server: some ServerUnderTest, subject: String, device: String, register: (NotificationAPI) async throws -> Void
    ) async throws -> (app: VisitorClient, notifications: NotificationAPI) {
        let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: subject)).token
        let app = visitor(server, device: device, accessToken: token)
        try await app.start(liveEvents: false)
        let notifications = NotificationAPI(client: app)
        try await register(notifications)
        try await app.setAppState(.background)
        return (app, notifications)
    }

    @Test("a VoIP push for a call already over carries its state; the client reports it to CallKit as unsuccessful")
    func unsuccessfulCalls() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            // The phone rings by VoIP only (no APNs token): it learns that the call is over by VoIP.
            let (phone, phoneNotifications) = try await Self.backgroundApp(server, subject: "two-devices", device: "voip-only") {
                try await $0.register(pushKitToken: voipToken, version: .encrypted)
            }
            let (watch, _) = try await Self.backgroundApp(server, subject: "two-devices", device: "answering-device") {
                try await $0.register(apnsToken: apnsToken, version: .notEncrypted)
            }
            let agentA = try await agent(server, "agent-a")
            let conversation = try await phone.startConversation(topic: "elsewhere")
            _ = try await agentA.accept(conversation.id)
            let bridge = RecordingCallKitBridge()
            let calls = CallAPI(notifications: phoneNotifications)

            // Ringing: reported as new.
            let call = try await agentA.startCall(in: conversation.id)
            let ring = try await server.waitForPush([("kind", "INCOMING_CALL"), ("deviceId", "voip-only")])
            let uuid = try #require(UUID(uuidString: call.id))
            #expect(
                try await calls.pushRegistry(payload: try userInfo(ring), bridge: bridge)
                    == .incoming(try await calls.incomingCall(fromVoIPPayload: try userInfo(ring))))
            // Answered on the other device: the phone's revoke comes by VoIP, with the state.
            let answered: CallView = try await watch.transport.send("POST", "/mobile/v1/calls/\(call.id)/answer")
            #expect(answered.state == "ACTIVE")
            let revoke = try await server.waitForPush([("kind", "REVOKE_CALL"), ("deviceId", "voip-only")])
            #expect(revoke.transport == .apnsVoIP)
            #expect(
                try await calls.pushRegistry(payload: try userInfo(revoke), bridge: bridge)
                    == .unsuccessful(uuid, state: "ACTIVE", reason: "ANSWERED_ELSEWHERE"))
            _ = try await agentA.endCall(call.id)

            // A ringing call's push delivered late, after the call was declined: the server says it is over.
            let late = try await agentA.startCall(in: conversation.id)
            let latePush = try await server.waitForPush([("kind", "INCOMING_CALL"), ("deviceId", "voip-only"), ("after", String(revoke.id))])
            let declined: CallView = try await watch.transport.send("POST", "/mobile/v1/calls/\(late.id)/decline")
            #expect(declined.endReason == "DECLINED")
            let lateUUID = try #require(UUID(uuidString: late.id))
            #expect(
                try await calls.pushRegistry(payload: try userInfo(latePush), bridge: bridge)
                    == .unsuccessful(lateUUID, state: "IDLE", reason: "DECLINED"))
            #expect(bridge.reports == [
                .incoming(uuid, handlerName: "Agent A", callType: "AUDIO"), .unsuccessful(uuid), .unsuccessful(lateUUID),
            ])
        }
    }

    @Test("a decline revokes the other devices only; once answered elsewhere a device's credential no longer acts; credentials keep to their API")
    func credentialsAndRevokes() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let (phone, phoneNotifications) = try await Self.backgroundApp(server, subject: "two-phones", device: "voip-phone") {
                try await $0.register(pushKitToken: voipToken, version: .encrypted)
            }
            let (tablet, _) = try await Self.backgroundApp(server, subject: "two-phones", device: "tablet") {
                try await $0.register(pushKitToken: String(repeating: "ef", count: 32), version: .encrypted)
            }
            let agentA = try await agent(server, "agent-a")
            let conversation = try await phone.startConversation(topic: "two phones")
            _ = try await agentA.accept(conversation.id)

            // Declined on the tablet: the phone is told, the tablet (which declined) is not.
            let first = try await agentA.startCall(in: conversation.id)
            let ring = try await server.waitForPush([("kind", "INCOMING_CALL"), ("deviceId", "voip-phone")])
            let declined: CallView = try await tablet.transport.send("POST", "/mobile/v1/calls/\(first.id)/decline")
            #expect(declined.endReason == "DECLINED")
            let revoke = try await server.waitForPush([("kind", "REVOKE_CALL"), ("after", String(ring.id))])
            #expect(revoke.deviceId == "voip-phone")
            try await server.settlePushes()
            let revokes = try await server.pushes([("kind", "REVOKE_CALL"), ("after", String(ring.id))])
            #expect(revokes.map(\.deviceId) == ["voip-phone"], "the declining device gets no revoke")

            // Answered on the tablet: the phone's credential (from its sealed VoIP push) no longer acts.
            let second = try await agentA.startCall(in: conversation.id)
            let secondRing = try await server.waitForPush([("kind", "INCOMING_CALL"), ("deviceId", "voip-phone"), ("after", String(revoke.id))])
            let content = try await phoneNotifications.handleRemoteNotification(userInfo: try userInfo(secondRing))
            let credential = try #require(content.callCredential)
            let bearer = HTTPTransport(baseURL: server.baseURL, credentials: .bearer(credential))
            #expect(try await bearer.raw("GET", "/mobile/v1/calls/\(second.id)").status == 200, "while it rings, the credential reads its call")
            #expect(try await bearer.raw("GET", "/agent/v1/calls/\(second.id)").status == 401, "a visitor's credential is for the device API")
            let answered: CallView = try await tablet.transport.send("POST", "/mobile/v1/calls/\(second.id)/answer")
            #expect(answered.state == "ACTIVE")
            #expect(try await bearer.raw("POST", "/mobile/v1/calls/\(second.id)/end").status == 403)
            #expect(try await bearer.raw("GET", "/mobile/v1/calls/\(second.id)").status == 403)
            let still: CallView = try await tablet.transport.send("GET", "/mobile/v1/calls/\(second.id)")
            #expect(still.state == "ACTIVE", "the call the user is in goes on")
        }
    }

    @Test("the call's provider as configured, with plausible session fields per participant; the Web API and webhooks name it")
    func provider() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let (app, _, agentA, conversationId) = try await Self.scenario(server, device: "provider-phone")
            let call = try await agentA.startCall(in: conversationId, callType: "VIDEO")
            #expect(call.serviceProviderType == "LIVEKIT")
            let agentSession = try #require(call.providerSession)
            #expect(agentSession.sessionId == "room-\(call.id.lowercased())")
            #expect(agentSession.token.split(separator: ".").count == 3, "a LiveKit access token is a JWT")
            let seen: CallView = try await app.transport.send("GET", "/mobile/v1/calls/\(call.id)")
            let visitorSession = try #require(seen.providerSession)
            #expect(visitorSession.sessionId == agentSession.sessionId)
            let lowerCase: CallView = try await app.transport.send("GET", "/mobile/v1/calls/\(call.id.lowercased())")
            #expect(lowerCase.id == call.id, "a call id in lower case (as Kotlin and Python print UUIDs) names the same call")
            #expect(visitorSession.token != agentSession.token, "each participant has its own token")

            let web = try await server.admin("agent-a", "pw").transport.raw("GET", "/app/rest/v4/calls/\(call.id)/read")
            let object = try #require(try JSONSerialization.jsonObject(with: web.body) as? [String: Any])
            #expect(object["serviceProviderType"] as? String == "LIVEKIT")
            #expect(VendorSchemaCheck.problems(web.body, schema: "Call").isEmpty)
            let lowerCaseRead = try await server.admin("agent-a", "pw").transport.raw("GET", "/app/rest/v4/calls/\(call.id.lowercased())/read")
            #expect(lowerCaseRead.status == 200, "the Web API takes the id in either case too")
        }
    }
}
