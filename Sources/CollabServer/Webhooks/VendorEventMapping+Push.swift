import CollabCore
import CollabWire
import Foundation

extension VendorEventMapping {
    func pushWebhookBody(for push: ResolvedPush, in state: borrowing AccountState) -> Data? {
        let recipient = state.persons[push.personId].map { WebPerson($0, expand: Expansion()) }
        let visitor = push.content.contextPersonId.flatMap { state.persons[$0] }.map { WebPerson($0, expand: Expansion()) }
        return try? JSONBody.encoder.encode(PushNotificationWebhookBody(push: push, recipient: recipient, contextPerson: visitor))
    }
}

/// The vendor's `*PushNotificationEvent` bodies: `NewMessage…`, `IncomingCall…`, `MissedCall…`,
/// `RevokeCall…`, `InboundRequest…`, `RevokeInboundRequest…` and `ReadMessagePushNotificationEvent`.
struct PushNotificationWebhookBody: Encodable {
    var type: String
    var timestamp: Int64
    var eventType: String
    var accountId: String
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

    enum CodingKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId, recipient, conversationId, deviceTokens, messageId, messageText, messageServerTimestamp
        case senderName, senderPersonId, notificationCount, recipientNotificationCount, readTimestamp, callState, callType, callStartTimestamp
        case callerName, callerPersonId, callEndReason, contextPerson, invitationId, initialEngagementType
    }

    init(push: ResolvedPush, recipient: WebPerson?, contextPerson: WebPerson?) {
        let content = push.content
        let kind = content.type
        self.type = switch kind {
        case .newMessage: "NewMessagePushNotificationEvent"
        case .incomingCall: "IncomingCallPushNotificationEvent"
        case .missedCall: "MissedCallPushNotificationEvent"
        case .revokeCall: "RevokeCallPushNotificationEvent"
        case .inboundRequest: "InboundRequestPushNotificationEvent"
        case .revokeInboundRequest: "RevokeInboundRequestPushNotificationEvent"
        case .readMessage: "ReadMessagePushNotificationEvent"
        }
        self.timestamp = push.createdAt
        self.eventType = kind.webhookEvent
        self.accountId = push.accountId
        self.recipient = recipient
        self.conversationId = content.conversationId
        self.deviceTokens = [push.token]
        switch kind {
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
            callStartTimestamp = content.timestamp
            callerName = content.callerName
            callerPersonId = content.callerPersonId
            callEndReason = content.callEndReason
        }
    }
}
