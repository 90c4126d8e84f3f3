import CollabCore
import CollabWire
import Foundation

extension VendorEventMapping {
    func pushWebhookBody(for push: ResolvedPush, recipient: Person?) -> Data? {
        try? JSONBody.encoder.encode(PushNotificationWebhookBody(push: push, recipient: recipient.map { WebPerson($0, expand: Expansion()) }))
    }
}

/// The vendor's `*PushNotificationEvent` bodies (`NewMessagePushNotificationEvent`,
/// `IncomingCallPushNotificationEvent`, `MissedCallPushNotificationEvent`, `RevokeCallPushNotificationEvent`), and the
/// deputy delegation events.
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
    // `DeputyDelegationPushNotificationEvent` and `RevokeDeputyDelegationPushNotificationEvent`.
    var invitationId: String?
    var initialEngagementType: String?
    var contextPerson: WebPerson?
    var primaryAgentPerson: WebPerson?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId, recipient, conversationId, deviceTokens, messageId, messageText, messageServerTimestamp
        case senderName, senderPersonId, notificationCount, callState, callType, callStartTimestamp, callerName, callerPersonId, callEndReason
        case invitationId, initialEngagementType, contextPerson, primaryAgentPerson
    }

    init(
        type: String, timestamp: Int64, eventType: String, accountId: String, recipient: WebPerson?, conversationId: String, deviceTokens: [String]
    ) {
        self.type = type
        self.timestamp = timestamp
        self.eventType = eventType
        self.accountId = accountId
        self.recipient = recipient
        self.conversationId = conversationId
        self.deviceTokens = deviceTokens
    }

    init(push: ResolvedPush, recipient: WebPerson?) {
        let content = push.content
        let kind = content.type
        let type = switch kind {
        case .newMessage: "NewMessagePushNotificationEvent"
        case .incomingCall: "IncomingCallPushNotificationEvent"
        case .missedCall: "MissedCallPushNotificationEvent"
        case .revokeCall: "RevokeCallPushNotificationEvent"
        }
        self.init(
            type: type, timestamp: push.createdAt, eventType: kind.webhookEvent, accountId: push.accountId, recipient: recipient,
            conversationId: content.conversationId, deviceTokens: [push.token]
        )
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

extension VendorEventMapping {
    func deputyDelegationBody(_ delegation: DeputyDelegation, in state: borrowing AccountState) -> Data? {
        let invitation = delegation.invitation
        let conversation = state.conversations[invitation.conversationId]
        let devices = state.devices(ofPerson: delegation.deputy.id).sorted { $0.id < $1.id }
        let tokens = devices.flatMap { [$0.apnsToken, $0.fcmToken].compactMap { $0 } }
        var body = PushNotificationWebhookBody(
            type: VendorWebhookEvents.schemas[delegation.eventName] ?? "", timestamp: delegation.timestamp, eventType: delegation.eventName,
            accountId: invitation.accountId, recipient: WebPerson(delegation.deputy, expand: Expansion()), conversationId: invitation.conversationId,
            deviceTokens: tokens
        )
        body.invitationId = invitation.id
        body.initialEngagementType = conversation?.initialEngagementType.rawValue
        body.contextPerson = conversation?.contextPersonId.flatMap { state.persons[$0] }.map { WebPerson($0, expand: Expansion()) }
        body.primaryAgentPerson = WebPerson(delegation.primaryAgent, expand: Expansion())
        return try? JSONBody.encoder.encode(body)
    }
}
