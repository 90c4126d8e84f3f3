public import CollabWire
import Synchronization

/// Why the client asks the app to show (or hide) the collaboration UI: the SDK's UI request reasons.
public enum UIRequestReason: String, Sendable, Equatable {
    /// A call is ringing while the app is in the foreground with the UI closed (the server's
    /// `ui.visibility_request`), or the user tapped an incoming-call notification.
    case incomingCall = "INCOMING_CALL"
    /// The user tapped a new-message notification.
    case newMessage = "NEW_MESSAGE"
    /// The user tapped a missed-call notification.
    case missedCall = "MISSED_CALL"
    /// The open conversation ended (hide requests).
    case conversationEnded = "CONVERSATION_ENDED"
    /// An agent asked to co-browse the app while it is in the foreground with the UI closed (show
    /// requests): the UI is where the user accepts.
    case mobileCoBrowsing = "MOBILE_COBROWSING"
    /// A co-browsing layer activated and the server configures the UI to collapse then
    /// (`com.unblu.conversation.ui.autoCollapseIndividualUiOnLayerActivation`; hide requests).
    case layerActivated = "LAYER_ACTIVATED"
    /// The user tapped the UI's collapse action (``VisitorClient/collapse()``; hide requests).
    case collapse = "COLLAPSE"
    /// The app asked, or a reason this version does not know.
    case other = "OTHER"

    /// The reason for a push's or a visibility request's kind (`INCOMING_CALL`, `NEW_MESSAGE`, …).
    public init(pushType: String) {
        self = UIRequestReason(rawValue: pushType) ?? .other
    }
}

/// A request to show or hide the collaboration UI (the SDK's `didRequestShowUi(reason:requestedByUser:)`
/// and its hide counterpart).
public struct UIRequest: Sendable, Equatable {
    /// Why the UI should show or hide.
    public var reason: UIRequestReason
    /// `true` when the user caused it (tapped a notification, asked to close), `false` when the server did.
    public var requestedByUser: Bool
    /// The conversation concerned, when there is one.
    public var conversationId: String?
    /// The call concerned, when the request is for a call.
    public var callId: String?

    /// A request with its reason, who caused it, and what it concerns.
    public init(reason: UIRequestReason, requestedByUser: Bool, conversationId: String? = nil, callId: String? = nil) {
        self.reason = reason
        self.requestedByUser = requestedByUser
        self.conversationId = conversationId
        self.callId = callId
    }
}

/// The SDK's client error types, as MockCollab's typed error bodies name them.
public enum ClientErrorType: String, Sendable, Equatable {
    /// A missing, invalid or expired access token (non-fatal: start again with a valid one).
    case authorization = "AUTHORIZATION"
    /// The API key is unknown (fatal).
    case invalidApiKey = "INVALID_API_KEY"
    /// The caller may not do this.
    case forbidden = "FORBIDDEN"
    /// No such conversation, call or session for this visitor.
    case notFound = "NOT_FOUND"
    /// The state does not allow it (e.g. answering an ended call).
    case conflict = "CONFLICT"
    /// The request was malformed.
    case badRequest = "BAD_REQUEST"
    /// Too many requests, or frames too fast.
    case rateLimited = "RATE_LIMITED"
    /// The server is shutting down or full (fatal).
    case unavailable = "UNAVAILABLE"
    /// The server failed (fatal).
    case `internal` = "INTERNAL"
    /// The server could not be reached or the connection broke.
    case network = "NETWORK"
    /// Registering the device's push tokens failed (on the device or at the server).
    case notificationRegistration = "NOTIFICATION_REGISTRATION"
    /// The server's version does not pair with the app's SDK major (fatal).
    case unsupportedServerVersion = "UNSUPPORTED_SERVER_VERSION"
}

/// An error the client reports on its event stream (the SDK's `didReceiveError`), fatal or not.
///
/// Fatal errors mean the client no longer works (an unknown API key, a server failure): stop it and tell
/// the user the feature is unavailable. Non-fatal ones leave it working: an authorization error asks for
/// a valid access token and a new start; a failed push registration or a network hiccup just continues.
public struct ClientError: Error, Sendable, Equatable {
    /// The SDK's error type.
    public var type: ClientErrorType
    /// Whether the client no longer works (stop it) or carries on.
    public var isFatal: Bool
    /// What went wrong, for logs.
    public var message: String

    /// An error of a type, fatal or not.
    public init(type: ClientErrorType, isFatal: Bool, message: String) {
        self.type = type
        self.isFatal = isFatal
        self.message = message
    }

    /// The client error for a failed request: its type from the typed error body, its fatality from the type.
    public init(_ error: CollabClientError) {
        var type: ClientErrorType
        switch error.code {
        case .authorization: type = .authorization
        case .forbidden: type = .forbidden
        case .notFound: type = .notFound
        case .conflict: type = .conflict
        case .rateLimited: type = .rateLimited
        case .server: type = error.status == 503 ? .unavailable : .internal
        // A body the server found too slow is the connection's fault, as the SDK would see it.
        case .transport, .pinMismatch, .tlsSetup, .requestTimeout: type = .network
        default: type = .badRequest
        }
        if let named = error.type.flatMap(ClientErrorType.init(rawValue:)) { type = named }
        self.init(type: type, isFatal: Self.isFatal(type), message: error.message)
    }

    /// Whether errors of `type` stop the client: an unknown API key, a server that does not pair with
    /// the SDK, a server failure.
    static func isFatal(_ type: ClientErrorType) -> Bool {
        switch type {
        case .invalidApiKey, .internal, .unavailable, .unsupportedServerVersion: true
        default: false
        }
    }
}

/// What a started app reports, typed: the SDK's client delegate as one stream.
public enum ClientEvent: Sendable, Equatable {
    /// Show the collaboration UI (`didRequestShowUi(reason:requestedByUser:)`).
    case showUIRequested(UIRequest)
    /// Hide the collaboration UI (`didRequestHideUi(reason:requestedByUser:)`).
    case hideUIRequested(UIRequest)
    /// The conversation open in the UI changed; `nil` when none is (`didChangeOpenConversation`).
    case openConversationChanged(String?)
    /// An error (`didReceiveError`), with whether it is fatal — also at run time: the access token the
    /// client started with expired or was revoked (a non-fatal `.authorization`; stop, get a new token,
    /// start again).
    case error(ClientError)
    /// Any other live event (messages, conversation and call changes), as the server sent it.
    case live(LiveEvent)
}

/// Holds the typed event stream of one started app and what it derives from (the open conversation).
final class ClientEventHub: Sendable {
    let stream: AsyncStream<ClientEvent>
    private let continuation: AsyncStream<ClientEvent>.Continuation
    private let state = Mutex(HubState())

    private struct HubState {
        var openConversationId: String?
        var forwarding = false
        var forwarder: Task<Void, Never>?
    }

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: ClientEvent.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    var openConversationId: String? { state.withLock { $0.openConversationId } }

    func emit(_ event: ClientEvent) {
        continuation.yield(event)
    }

    /// Records the open conversation and reports a change.
    func setOpenConversation(_ id: String?) {
        let changed = state.withLock { state -> Bool in
            defer { state.openConversationId = id }
            return state.openConversationId != id
        }
        if changed { emit(.openConversationChanged(id)) }
    }

    /// Starts translating live events once someone asked for the typed stream.
    func enableForwarding(from live: LiveEventStream?) {
        state.withLock { $0.forwarding = true }
        if let live { forward(live) }
    }

    /// Translates a (new) live connection's events, when the typed stream is in use.
    func forward(_ live: LiveEventStream) {
        let previous = state.withLock { state -> Task<Void, Never>? in
            guard state.forwarding else { return nil }
            let previous = state.forwarder
            state.forwarder = Task { [self] in
                for await event in live.events { translate(event) }
            }
            return previous
        }
        previous?.cancel()
    }

    private func translate(_ event: LiveEvent) {
        switch event.type {
        case "ui.visibility_request":
            let reason = UIRequestReason(pushType: event.detail?["reason"] ?? "")
            let request = UIRequest(
                reason: reason, requestedByUser: false, conversationId: event.detail?["conversationId"], callId: event.detail?["callId"])
            emit(.showUIRequested(request))
        case "ui.hide_request":
            let reason = UIRequestReason(pushType: event.detail?["reason"] ?? "")
            let byUser = event.detail?["requestedByUser"] == "true"
            emit(.hideUIRequested(UIRequest(reason: reason, requestedByUser: byUser, conversationId: event.detail?["conversationId"])))
        case "client.error":
            let type = ClientErrorType(rawValue: event.detail?["errorType"] ?? "") ?? .authorization
            emit(.error(ClientError(type: type, isFatal: event.detail?["fatal"] == "true", message: event.detail?["message"] ?? type.rawValue)))
        case "conversation.ended":
            emit(.live(event))
            if let id = event.conversation?.id, id == openConversationId {
                setOpenConversation(nil)
                emit(.hideUIRequested(UIRequest(reason: .conversationEnded, requestedByUser: false, conversationId: id)))
            }
        default:
            emit(.live(event))
        }
    }

    deinit {
        state.withLock { $0.forwarder?.cancel() }
        continuation.finish()
    }
}
