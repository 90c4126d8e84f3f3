/// What a push is about (the vendor's `*PushNotificationEvent`s).
public enum PushKind: String, Sendable, Codable, CaseIterable, NamedCases {
    case newMessage = "NEW_MESSAGE"
    case incomingCall = "INCOMING_CALL"
    case missedCall = "MISSED_CALL"
    /// A call that rang on this device ended or was answered elsewhere.
    case revokeCall = "REVOKE_CALL"
    /// A conversation request for an agent: a new conversation in the agent's queue, or an invitation
    /// or forwarding addressed to the agent.
    case inboundRequest = "INBOUND_REQUEST"
    /// An inbound request this device was told about was taken (accepted, by anyone), ended or revoked.
    case revokeInboundRequest = "REVOKE_INBOUND_REQUEST"
    /// The person read their unread messages on another device: this one clears its badge.
    case readMessage = "READ_MESSAGE"
}
