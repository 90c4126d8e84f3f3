import CollabCore
import CollabWire
import Foundation

extension VendorEventMapping {
    func pushWebhookBody(for push: ResolvedPush, in state: borrowing AccountState) -> Data? {
        let recipient = state.persons[push.personId].map { WebPerson($0, expand: Expansion()) }
        let visitor = push.content.contextPersonId.flatMap { state.persons[$0] }.map { WebPerson($0, expand: Expansion()) }
        let fields = PushNotificationEventFields(push: push, recipient: recipient, contextPerson: visitor)
        return VendorEvent(push.content.type.webhookEvent, timestamp: push.createdAt, accountId: push.accountId, fields).data
    }
}

/// The fields of the vendor's `*PushNotificationEvent` bodies after the ``VendorEvent`` header: `NewMessage…`,
/// `IncomingCall…`, `MissedCall…`, `RevokeCall…`, `InboundRequest…`, `RevokeInboundRequest…` and
/// `ReadMessagePushNotificationEvent`, and the deputy delegation events.
struct PushNotificationEventFields: Encodable {
    var recipient: WebPerson?
    var conversationId: String
    var deviceTokens: [String]
    var messageId: String?
    var messageText: String?
    var messageServerTimestamp: Int64?
    var senderName: String?
    var senderPersonId: String?
    var notificationCount: Int?
    var recipientNotificationCount: Int?
    var readTimestamp: Int64?
    var callState: String?
    var callType: String?
    var callStartTimestamp: Int64?
    var callerName: String?
    var callerPersonId: String?
    var callEndReason: String?
    var contextPerson: WebPerson?
    var invitationId: String?
    var initialEngagementType: String?
    // `DeputyDelegationPushNotificationEvent` and `RevokeDeputyDelegationPushNotificationEvent`.
    var primaryAgentPerson: WebPerson?
}

extension PushNotificationEventFields {
    /// The fields of the body for one resolved push.
    init(push: ResolvedPush, recipient: WebPerson?, contextPerson: WebPerson?) {
        let content = push.content
        self.init(recipient: recipient, conversationId: content.conversationId, deviceTokens: [push.token])
        switch content.type {
        case .newMessage:
            messageId = content.messageId
            messageText = content.text
            messageServerTimestamp = content.timestamp
            senderName = content.senderName
            senderPersonId = content.senderPersonId
            notificationCount = content.notificationCount
        case .readMessage:
            notificationCount = content.notificationCount
            recipientNotificationCount = content.notificationCount
            readTimestamp = content.readTimestamp
        case .inboundRequest, .revokeInboundRequest:
            self.contextPerson = contextPerson
            invitationId = content.invitationId
            initialEngagementType = content.initialEngagementType
        case .revokeCall:
            callState = content.callState
        case .incomingCall, .missedCall:
            callState = content.callState
            callType = content.callType
            callStartTimestamp = content.callStartTimestamp ?? content.timestamp
            callerName = content.callerName
            callerPersonId = content.callerPersonId
            callEndReason = content.callEndReason
        }
    }
}

extension VendorEventMapping {
    func deputyDelegationBody(_ delegation: DeputyDelegation, in state: borrowing AccountState) -> Data? {
        let invitation = delegation.invitation
        let conversation = state.conversations[invitation.conversationId]
        let devices = state.devices(ofPerson: delegation.deputy.id).sorted { $0.id < $1.id }
        let tokens = devices.flatMap { [$0.apnsToken, $0.fcmToken].compactMap { $0 } }
        var body = PushNotificationEventFields(
            recipient: WebPerson(delegation.deputy, expand: Expansion()), conversationId: invitation.conversationId, deviceTokens: tokens
        )
        body.invitationId = invitation.id
        body.initialEngagementType = conversation?.initialEngagementType.rawValue
        body.contextPerson = conversation?.contextPersonId.flatMap { state.persons[$0] }.map { WebPerson($0, expand: Expansion()) }
        body.primaryAgentPerson = WebPerson(delegation.primaryAgent, expand: Expansion())
        return VendorEvent(delegation.eventName, timestamp: delegation.timestamp, accountId: invitation.accountId, body).data
    }
}
