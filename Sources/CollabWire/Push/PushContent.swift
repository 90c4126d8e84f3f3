/// The plain content of a push: what the NotEncrypted version shows and the encrypted versions seal, as
/// the server composes it and the device decrypts it.
///
/// Field names follow the vendor's `*PushNotificationEvent` schemas where they fit.
public struct PushContent: Sendable, Codable, Equatable {
    public var type: PushKind
    public var title: String
    public var text: String
    public var conversationId: String
    public var messageId: String?
    public var senderName: String?
    public var senderPersonId: String?
    public var notificationCount: Int?
    public var callId: String?
    /// `AUDIO` or `VIDEO`.
    public var callType: String?
    public var callerName: String?
    public var callerPersonId: String?
    /// The vendor's `ECallState`.
    public var callState: String?
    /// The vendor's `ECallParticipationEndReason`, for missed calls; for a revoke, why the call is over
    /// (`ANSWERED_ELSEWHERE`, or the call's `ECallEndReason`).
    public var callEndReason: String?
    /// `com.unblu.mobiledevice.deviceAudioGreeting`: what the device plays once the call is answered
    /// through CallKit before the app has started (incoming calls).
    public var audioGreeting: String?
    /// A credential for this call on this device (incoming calls): it answers, declines, ends and reads
    /// the call without a started client, and expires with the call. In the push outbox it is shown for
    /// `NOT_ENCRYPTED` devices only: an encrypted device's is in its sealed payload alone.
    public var callCredential: String?
    /// The call's service provider, the vendor's `ECallServiceProvider` (incoming calls).
    public var callServiceProvider: String?
    /// The invitation behind an inbound request (absent for a new conversation in the queue).
    public var invitationId: String?
    /// The visitor of an inbound request's conversation.
    public var contextPersonId: String?
    /// The conversation's `EInitialEngagementType`, for inbound requests.
    public var initialEngagementType: String?
    /// When the messages were read, for read-message pushes.
    public var readTimestamp: Int64?
    /// When the call started ringing, for missed-call pushes (an incoming call's is its `timestamp`).
    public var callStartTimestamp: Int64?
    /// Milliseconds since 1970.
    public var timestamp: Int64

    public init(type: PushKind, title: String, text: String, conversationId: String, timestamp: Int64) {
        self.type = type
        self.title = title
        self.text = text
        self.conversationId = conversationId
        self.timestamp = timestamp
    }
}

/// The former name of ``PushContent``.
@available(*, deprecated, renamed: "PushContent")
public typealias PushContentView = PushContent
