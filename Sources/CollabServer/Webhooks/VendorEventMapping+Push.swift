import CollabCore
import CollabWire
import Foundation

extension VendorEventMapping {
    func pushWebhookBody(for push: ResolvedPush, recipient: Person?) -> Data? {
        try? JSONBody.encoder.encode(PushNotificationWebhookBody(push: push, recipient: recipient.map { WebPerson($0, expand: Expansion()) }))
    }
}

/// The vendor's `*PushNotificationEvent` bodies (`NewMessagePushNotificationEvent`,
/// `IncomingCallPushNotificationEvent`, `MissedCallPushNotificationEvent`, `RevokeCallPushNotificationEvent`).
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
    var callState: String?
    var callType: String?
    var callStartTimestamp: Int64?
    var callerName: String?
    var callerPersonId: String?
    var callEndReason: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId, recipient, conversationId, deviceTokens, messageId, messageText, messageServerTimestamp
        case senderName, senderPersonId, notificationCount, callState, callType, callStartTimestamp, callerName, callerPersonId, callEndReason
    }

    init(push: ResolvedPush, recipient: WebPerson?) {
        let content = push.content
        let kind = content.type
        self.type = switch kind {
        case .newMessage: "NewMessagePushNotificationEvent"
        case .incomingCall: "IncomingCallPushNotificationEvent"
        case .missedCall: "MissedCallPushNotificationEvent"
        case .revokeCall: "RevokeCallPushNotificationEvent"
        }
        self.timestamp = push.createdAt
        self.eventType = kind.webhookEvent
        self.accountId = push.accountId
        self.recipient = recipient
        self.conversationId = content.conversationId
        self.deviceTokens = [push.token]
        if kind == .newMessage {
            messageId = content.messageId
            messageText = content.text
            messageServerTimestamp = content.timestamp
            senderName = content.senderName
            senderPersonId = content.senderPersonId
            notificationCount = content.notificationCount
        } else {
            callState = content.callState
            if kind != .revokeCall {
                callType = content.callType
                callStartTimestamp = content.timestamp
                callerName = content.callerName
                callerPersonId = content.callerPersonId
                callEndReason = content.callEndReason
            }
        }
    }
}
