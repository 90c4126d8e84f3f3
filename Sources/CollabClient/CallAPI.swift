public import CollabWire
public import Foundation
import Synchronization

/// An incoming call as a CallKit bridge reports it (`reportNewIncomingCall(callId:handlerName:callType:)`).
public struct IncomingCall: Sendable, Equatable {
    /// The call's UUID: report it to CallKit unchanged; every later action names it.
    public var uuid: UUID
    /// The conversation the call belongs to.
    public var conversationId: String
    /// The caller's display name (CallKit's handle).
    public var handlerName: String
    /// `AUDIO` or `VIDEO`.
    public var callType: String
    /// What to play once the call is answered through CallKit before the app has started (the server's
    /// `com.unblu.mobiledevice.deviceAudioGreeting`), e.g. "Open the app to join the call".
    public var audioGreeting: String?
    /// The call's service provider (`OPENTOK`, `LIVEKIT`, `ACS`), which picks the app's call module.
    public var serviceProvider: String?
    /// Whether to report the call as a video call.
    public var hasVideo: Bool { callType == "VIDEO" }
}

/// What the SDK's CallKit bridge does with CallKit (`UnbluCallKitApi`), for the app to implement with
/// `CXProvider` — CollabClient cannot link CallKit. ``CallAPI/pushRegistry(payload:bridge:)`` drives it.
public protocol CallKitBridge: Sendable {
    /// Reports a new incoming call under `callId` (`reportNewIncomingCall(callId:handlerName:callType:_:)`).
    /// - Throws: When CallKit refuses the report.
    func reportNewIncomingCall(callId: UUID, handlerName: String, callType: String) async throws
    /// Reports a call that is already over, as iOS requires of every VoIP push: a placeholder incoming
    /// call, ended at once (`reportUnsuccessfulCall(_:_:)`).
    func reportUnsuccessfulCall(_ uuid: UUID) async
    /// Ends a reported call: `unanswered` for a missed one (`endIncomingCall(with:_:)`).
    func endIncomingCall(with uuid: UUID, unanswered: Bool) async
}

/// What ``CallAPI/pushRegistry(payload:bridge:)`` reported to CallKit for a VoIP push.
public enum VoIPPushOutcome: Sendable, Equatable {
    /// A ringing call, reported as new.
    case incoming(IncomingCall)
    /// A call already over — answered elsewhere, ended, missed — reported as unsuccessful; `state` is the
    /// vendor's `ECallState` and `reason` why (`ANSWERED_ELSEWHERE`, `NOT_ANSWERED`, …) when known.
    case unsuccessful(UUID, state: String, reason: String?)
}

/// An outgoing call the visitor started, as a CallKit bridge reports it (`reportOutgoingCall(callId:handlerName:hasVideo:)`).
public struct OutgoingCall: Sendable, Equatable {
    /// The call's UUID (the server's call id): the one to report to CallKit.
    public var uuid: UUID
    /// The conversation the call belongs to.
    public var conversationId: String
    /// Who is called (the conversation's agent).
    public var handlerName: String
    /// Whether the call includes video.
    public var hasVideo: Bool
    /// The call as the server holds it (`RINGING` until the agent answers or declines).
    public var call: CallView
}

/// What a CallKit bridge should do next for a call.
public enum CallUpdate: Sendable, Equatable {
    /// The call was answered (here, on another device, or by the agent for an outgoing call).
    case answered(UUID)
    /// The call is over: `unanswered` when nobody took it (CallKit's `.unanswered`, a missed call),
    /// else ended by the remote party (`endIncomingCall(with:_:)`).
    case ended(UUID, unanswered: Bool)
}

/// Calls on a device, shaped like the SDK's CallKit bridge — a visitor's app or an agent's: a VoIP push
/// becomes an ``IncomingCall`` with a stable `UUID` (the server's call id itself), the user's answer,
/// decline and hang-up go back under that UUID, revoke and missed-call pushes and the live call events
/// tell the bridge when to end the call and whether it was missed, and an outgoing call can be started.
///
/// The locked-phone flow works before the app has started: each incoming-call push carries a credential
/// for that call on that device, and ``answer(_:)``, ``decline(_:)``, ``end(_:)`` and ``call(_:)`` use it
/// while the app is not started (it expires with the call).
public final class CallAPI: Sendable {
    /// Decrypts VoIP payloads (fetching rotated keys) for ``incomingCall(fromVoIPPayload:)``.
    public let notifications: NotificationAPI
    /// The app the calls are made with.
    public var client: any AppClient { notifications.client }
    /// The call credentials of incoming calls seen, by call, for an app that has not started.
    private let credentials = Mutex<[UUID: String]>([:])
    /// How many credentials are kept (when full, one is forgotten: a call rings for seconds).
    static let credentialCapacity = 64

    /// A call API on a client's notification API.
    public init(notifications: NotificationAPI) {
        self.notifications = notifications
    }

    /// Turns a PushKit payload into the incoming call to report to CallKit, decrypting it (and fetching
    /// a rotated key) as needed, and keeps the call's credential for an app that has not started.
    /// - Throws: ``NotificationProcessingError/foreignNotification`` for a payload that is not ours,
    ///   ``NotificationProcessingError/unexpectedKind(_:)`` for one that is not an incoming call (a
    ///   CallKit bridge then reports an unsuccessful call, as iOS requires for every VoIP push:
    ///   ``pushRegistry(payload:bridge:)`` does all of it).
    public func incomingCall(fromVoIPPayload payload: [AnyHashable: Any]) async throws -> IncomingCall {
        let content = try await notifications.handleRemoteNotification(userInfo: payload)
        guard content.type == .incomingCall, let callId = content.callId else {
            throw NotificationProcessingError.unexpectedKind(content.type.rawValue)
        }
        let uuid = try Self.uuid(callId)
        if let credential = content.callCredential { remember(credential, for: uuid) }
        return IncomingCall(
            uuid: uuid, conversationId: content.conversationId, handlerName: content.callerName ?? content.title,
            callType: content.callType ?? "AUDIO",
            audioGreeting: content.audioGreeting, serviceProvider: content.callServiceProvider
        )
    }

    /// Handles a VoIP push as the SDK's `pushRegistry(payload:completion:)` does, reporting to CallKit
    /// what it means: a ringing call as new; a call already over — the push says so (a revoke sent by
    /// VoIP to a device with no other channel), or the server does when asked (a push delivered late) —
    /// as unsuccessful, so every VoIP push ends in a CallKit report, as iOS requires.
    /// - Throws: What decrypting threw (a payload that is not ours, a key that cannot be had), and what
    ///   the bridge threw reporting a new call.
    @discardableResult
    public func pushRegistry(payload: [AnyHashable: Any], bridge: any CallKitBridge) async throws -> VoIPPushOutcome {
        let content = try await notifications.handleRemoteNotification(userInfo: payload)
        guard let callId = content.callId else { throw NotificationProcessingError.unexpectedKind(content.type.rawValue) }
        let uuid = try Self.uuid(callId)
        if content.type != .incomingCall || content.callState != "CALLING" {
            await bridge.reportUnsuccessfulCall(uuid)
            return .unsuccessful(uuid, state: content.callState ?? "IDLE", reason: content.callEndReason)
        }
        let incoming = try await incomingCall(fromVoIPPayload: payload)
        // Still ringing? A push delivered late rings for nothing; if the server cannot be asked, ring.
        if let current = try? await call(uuid), current.state != "RINGING" {
            await bridge.reportUnsuccessfulCall(uuid)
            let reason = current.state == "ACTIVE" ? "ANSWERED_ELSEWHERE" : current.endReason
            return .unsuccessful(uuid, state: current.state == "ACTIVE" ? "ACTIVE" : "IDLE", reason: reason)
        }
        try await bridge.reportNewIncomingCall(callId: uuid, handlerName: incoming.handlerName, callType: incoming.callType)
        return .incoming(incoming)
    }

    /// Answers (CallKit's answer action) — with the call's credential when the app has not started.
    @discardableResult
    public func answer(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await send("POST", uuid, "answer")
    }

    /// Declines a ringing call (CallKit's end action before an answer).
    @discardableResult
    public func decline(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await send("POST", uuid, "decline")
    }

    /// Hangs up (CallKit's end action on an active or outgoing call). An outgoing call hung up before the
    /// agent answered becomes a missed call for the agent.
    @discardableResult
    public func end(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await send("POST", uuid, "end")
    }

    /// The call's state on the server.
    public func call(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await send("GET", uuid, nil)
    }

    /// Sends a call request: through the started app, else with the call's credential from its push.
    private func send(_ method: String, _ uuid: UUID, _ action: String?) async throws(CollabClientError) -> CallView {
        let path = "\(client.apiPrefix)/calls/\(uuid.uuidString)" + (action.map { "/\($0)" } ?? "")
        if !client.isStarted, let credential = credentials.withLock({ $0[uuid] }) {
            let transport = client.transport
            return try await HTTPTransport(baseURL: transport.baseURL, credentials: .bearer(credential), tls: transport.tls).send(method, path)
        }
        return try await client.transport.send(method, path)
    }

    private func remember(_ credential: String, for uuid: UUID) {
        credentials.withLock { credentials in
            if credentials.count >= Self.credentialCapacity, credentials[uuid] == nil, let any = credentials.keys.first { credentials[any] = nil }
            credentials[uuid] = credential
        }
    }

    private static func uuid(_ callId: String) throws -> UUID {
        guard let uuid = UUID(uuidString: callId) else { throw NotificationProcessingError.malformed("call id \(callId) is not a UUID") }
        return uuid
    }

    /// Starts an audio or video call in a conversation: a visitor's app calls the assigned agent, an
    /// agent's app the visitors. What the app reports to CallKit as an outgoing call.
    public func startCall(
        in conversationId: String, hasVideo: Bool = false, handlerName: String = "Agent"
    ) async throws(CollabClientError) -> OutgoingCall {
        let call: CallView = try await client.transport.send(
            "POST", "\(client.apiPrefix)/conversations/\(conversationId)/calls", body: StartCallRequest(callType: hasVideo ? "VIDEO" : "AUDIO")
        )
        guard let uuid = UUID(uuidString: call.id) else {
            throw CollabClientError(code: .decoding, status: nil, message: "the server's call id \(call.id) is not a UUID")
        }
        return OutgoingCall(uuid: uuid, conversationId: conversationId, handlerName: handlerName, hasVideo: hasVideo, call: call)
    }

    /// What a (decrypted) notification means for a reported call: a missed-call push ends it as
    /// unanswered; a revoke ends it (answered elsewhere when the call is active, else missed or declined).
    /// `nil` for other notifications.
    public func update(for content: PushContent) -> CallUpdate? {
        guard let callId = content.callId, let uuid = UUID(uuidString: callId) else { return nil }
        switch content.type {
        case .missedCall: return .ended(uuid, unanswered: true)
        case .revokeCall: return content.callState == "ACTIVE" ? .ended(uuid, unanswered: false) : .ended(uuid, unanswered: true)
        default: return nil
        }
    }

    /// What a live event means for a call: answered, or ended (missed when nobody answered).
    public func update(for event: LiveEvent) -> CallUpdate? {
        guard let callId = event.detail?["callId"], let uuid = UUID(uuidString: callId) else { return nil }
        switch event.type {
        case "conversation.call.answered": return .answered(uuid)
        case "conversation.call.ended": return .ended(uuid, unanswered: event.detail?["missed"] == "true" || event.detail?["endReason"] == "DECLINED")
        default: return nil
        }
    }
}

extension VisitorClient {
    /// Starts an audio or video call to the conversation's assigned agent (the app's outgoing call);
    /// ``CallAPI/startCall(in:hasVideo:handlerName:)`` gives it the CallKit bridge's shape.
    /// - Parameters:
    ///   - conversationId: The conversation, with an assigned agent.
    ///   - callType: `AUDIO` or `VIDEO`.
    public func startCall(in conversationId: String, callType: String = "AUDIO") async throws(CollabClientError) -> CallView {
        try await transport.send("POST", "/mobile/v1/conversations/\(conversationId)/calls", body: StartCallRequest(callType: callType))
    }
}
