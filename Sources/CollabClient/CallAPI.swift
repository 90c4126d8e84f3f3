public import CollabWire
public import Foundation

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
    /// Whether to report the call as a video call.
    public var hasVideo: Bool { callType == "VIDEO" }
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

/// Calls on a visitor's device, shaped like the SDK's CallKit bridge: a VoIP push becomes an
/// ``IncomingCall`` with a stable `UUID` (the server's call id itself), the user's answer, decline and
/// hang-up go back under that UUID, revoke and missed-call pushes and the live call events tell the
/// bridge when to end the call and whether it was missed, and the visitor can start an outgoing call
/// to the conversation's agent.
public final class CallAPI: Sendable {
    /// Decrypts VoIP payloads (fetching rotated keys) for ``incomingCall(fromVoIPPayload:)``.
    public let notifications: NotificationAPI
    /// The visitor client the calls are made with.
    public var client: VisitorClient { notifications.client }

    /// A call API on a client's notification API.
    public init(notifications: NotificationAPI) {
        self.notifications = notifications
    }

    /// Turns a PushKit payload into the incoming call to report to CallKit, decrypting it (and fetching
    /// a rotated key) as needed.
    /// - Throws: ``NotificationProcessingError/foreignNotification`` for a payload that is not ours,
    ///   ``NotificationProcessingError/unexpectedKind(_:)`` for one that is not an incoming call (a
    ///   CallKit bridge then reports an unsuccessful call, as iOS requires for every VoIP push).
    public func incomingCall(fromVoIPPayload payload: [AnyHashable: Any]) async throws -> IncomingCall {
        let content = try await notifications.handleRemoteNotification(userInfo: payload)
        guard content.type == "INCOMING_CALL", let callId = content.callId else { throw NotificationProcessingError.unexpectedKind(content.type) }
        guard let uuid = UUID(uuidString: callId) else { throw NotificationProcessingError.malformed("call id \(callId) is not a UUID") }
        return IncomingCall(
            uuid: uuid, conversationId: content.conversationId, handlerName: content.callerName ?? content.title, callType: content.callType ?? "AUDIO"
        )
    }

    /// Answers (CallKit's answer action).
    @discardableResult
    public func answer(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await client.transport.send("POST", "/mobile/v1/calls/\(uuid.uuidString)/answer")
    }

    /// Declines a ringing call (CallKit's end action before an answer).
    @discardableResult
    public func decline(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await client.transport.send("POST", "/mobile/v1/calls/\(uuid.uuidString)/decline")
    }

    /// Hangs up (CallKit's end action on an active or outgoing call). An outgoing call hung up before the
    /// agent answered becomes a missed call for the agent.
    @discardableResult
    public func end(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await client.transport.send("POST", "/mobile/v1/calls/\(uuid.uuidString)/end")
    }

    /// The call's state on the server.
    public func call(_ uuid: UUID) async throws(CollabClientError) -> CallView {
        try await client.transport.send("GET", "/mobile/v1/calls/\(uuid.uuidString)")
    }

    /// Starts an audio or video call to the conversation's agent: what the app reports to CallKit as an
    /// outgoing call.
    public func startCall(
        in conversationId: String, hasVideo: Bool = false, handlerName: String = "Agent"
    ) async throws(CollabClientError) -> OutgoingCall {
        let call = try await client.startCall(in: conversationId, callType: hasVideo ? "VIDEO" : "AUDIO")
        guard let uuid = UUID(uuidString: call.id) else {
            throw CollabClientError(code: .decoding, status: nil, message: "the server's call id \(call.id) is not a UUID")
        }
        return OutgoingCall(uuid: uuid, conversationId: conversationId, handlerName: handlerName, hasVideo: hasVideo, call: call)
    }

    /// What a (decrypted) notification means for a reported call: a missed-call push ends it as
    /// unanswered; a revoke ends it (answered elsewhere when the call is active, else missed or declined).
    /// `nil` for other notifications.
    public func update(for content: PushContentView) -> CallUpdate? {
        guard let callId = content.callId, let uuid = UUID(uuidString: callId) else { return nil }
        switch content.type {
        case "MISSED_CALL": return .ended(uuid, unanswered: true)
        case "REVOKE_CALL": return content.callState == "ACTIVE" ? .ended(uuid, unanswered: false) : .ended(uuid, unanswered: true)
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
