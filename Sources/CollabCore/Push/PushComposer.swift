public import CollabWire
public import Foundation

/// A push ready for a sink: transport, APNs headers, the payload as sent.
public struct ComposedPush: Sendable, Equatable {
    public var transport: PushTransport
    /// `apns-push-type`: `alert`, `background` or `voip`.
    public var pushType: String
    /// `apns-priority`: 10 immediate, 5 power-considerate.
    public var priority: Int
    /// `apns-collapse-id`, so a later push for the same conversation or call replaces an earlier one.
    public var collapseId: String?
    /// The JSON payload as sent (for FCM: the `message.data` object).
    public var payload: Data
    /// The key the content is sealed with, for encrypted versions.
    public var keyId: String?
    /// Whether the message text was cut to fit the size limit.
    public var truncated: Bool
}

/// Builds APNs and FCM payloads from push content, per push-notification version, within Apple's size
/// limits (4096 bytes; 5120 for VoIP): a long message text is truncated, never an over-size push.
public enum PushComposer {
    /// APNs payload limit for alert and background pushes.
    public static let apnsLimit = 4096
    /// APNs payload limit for VoIP pushes.
    public static let voipLimit = 5120
    /// FCM data message limit.
    public static let fcmLimit = 4096
    /// Shown by the placeholder alert an EncryptedService push carries until the extension decrypts it.
    public static let placeholderTitle = "New notification"
    public static let placeholderBody = "Open the app to read it"

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Composes the push for `transport`.
    /// - Parameters:
    ///   - key: The device's current key; required for encrypted versions.
    public static func compose(
        _ content: PushContent, transport: PushTransport, version: PushVersion, key: NotificationKey?, badge: Int?
    ) throws(CollabError) -> ComposedPush {
        let limit = transport == .apnsVoIP ? voipLimit : (transport == .fcm ? fcmLimit : apnsLimit)
        var content = content
        content.title = String(content.title.prefix(200))
        var truncated = false
        var push = try build(content, transport: transport, version: version, key: key, badge: badge)
        if push.payload.count > limit {
            // Cut the text by binary search on its length until the whole payload fits.
            truncated = true
            let original = content.text
            var low = 0
            var high = original.count
            var best: ComposedPush?
            while low <= high {
                let middle = (low + high) / 2
                content.text = String(original.prefix(middle)) + "…"
                let candidate = try build(content, transport: transport, version: version, key: key, badge: badge)
                if candidate.payload.count <= limit {
                    best = candidate
                    low = middle + 1
                } else {
                    high = middle - 1
                }
            }
            guard let best else { throw CollabError(.payloadTooLarge, "the push does not fit \(limit) bytes even without text") }
            push = best
        }
        push.truncated = truncated
        return push
    }

    private static func build(
        _ content: PushContent, transport: PushTransport, version: PushVersion, key: NotificationKey?, badge: Int?
    ) throws(CollabError) -> ComposedPush {
        var unblu: [String: JSONValue] = ["type": .string(content.type.rawValue)]
        var keyId: String?
        if version.isEncrypted {
            guard let key else { throw CollabError(.internalError, "an encrypted device has no notification key") }
            let plaintext: Data
            do { plaintext = try encoder.encode(content) } catch { throw CollabError(.internalError, "cannot encode push content") }
            unblu["encryptedData"] = .string(try PushEncryption.seal(plaintext, keyMaterial: key.material))
            unblu["keyId"] = .string(key.id)
            keyId = key.id
        } else {
            unblu = content.jsonFields
        }
        // A later push about the same call, inbound request or conversation replaces an earlier one.
        let collapseId: String
        switch content.type {
        case .inboundRequest, .revokeInboundRequest: collapseId = "inbound-\(content.conversationId)"
        default: collapseId = content.callId.map { "call-\($0)" } ?? "conversation-\(content.conversationId)"
        }
        switch transport {
        case .apnsVoIP:
            return ComposedPush(
                transport: transport, pushType: "voip", priority: 10, collapseId: nil, payload: try json(["unblu": .object(unblu)]), keyId: keyId,
                truncated: false)
        case .fcm:
            // FCM data values are strings: the Unblu part travels as one JSON string.
            let data: [String: JSONValue] = ["unblu": .string(String(decoding: try json(unblu), as: UTF8.self))]
            return ComposedPush(
                transport: transport, pushType: content.type.isSilent ? "background" : "alert", priority: 10, collapseId: collapseId,
                payload: try json(data), keyId: keyId, truncated: false)
        case .apns:
            var aps: [String: JSONValue] = [:]
            var pushType = "alert"
            var priority = 10
            if content.type.isSilent {
                aps["content-available"] = .int(1)
                pushType = "background"
                priority = 5
            } else {
                switch version {
                case .notEncrypted:
                    aps["alert"] = .object(["title": .string(content.title), "body": .string(content.text)])
                    aps["sound"] = .string("default")
                case .encryptedService:
                    aps["alert"] = .object(["title": .string(placeholderTitle), "body": .string(placeholderBody)])
                    aps["mutable-content"] = .int(1)
                    aps["sound"] = .string("default")
                case .encrypted:
                    aps["content-available"] = .int(1)
                    pushType = "background"
                    priority = 5
                }
                if let badge, pushType == "alert" { aps["badge"] = .int(badge) }
            }
            return ComposedPush(
                transport: transport, pushType: pushType, priority: priority, collapseId: collapseId,
                payload: try json(["aps": .object(aps), "unblu": .object(unblu)]), keyId: keyId, truncated: false
            )
        }
    }

    private static func json(_ object: [String: JSONValue]) throws(CollabError) -> Data {
        do { return try encoder.encode(object) } catch { throw CollabError(.internalError, "cannot encode push payload") }
    }
}

extension PushContent {
    /// The content as flat JSON fields (NotEncrypted payloads carry them in the clear).
    var jsonFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "type": .string(type.rawValue), "title": .string(title), "text": .string(text), "conversationId": .string(conversationId),
            "timestamp": .int(Int(timestamp)),
        ]
        if let messageId { fields["messageId"] = .string(messageId) }
        if let senderName { fields["senderName"] = .string(senderName) }
        if let senderPersonId { fields["senderPersonId"] = .string(senderPersonId) }
        if let notificationCount { fields["notificationCount"] = .int(notificationCount) }
        if let callId { fields["callId"] = .string(callId) }
        if let callType { fields["callType"] = .string(callType) }
        if let callerName { fields["callerName"] = .string(callerName) }
        if let callerPersonId { fields["callerPersonId"] = .string(callerPersonId) }
        if let callState { fields["callState"] = .string(callState) }
        if let callEndReason { fields["callEndReason"] = .string(callEndReason) }
        if let audioGreeting { fields["audioGreeting"] = .string(audioGreeting) }
        if let callCredential { fields["callCredential"] = .string(callCredential) }
        if let callServiceProvider { fields["callServiceProvider"] = .string(callServiceProvider) }
        if let invitationId { fields["invitationId"] = .string(invitationId) }
        if let contextPersonId { fields["contextPersonId"] = .string(contextPersonId) }
        if let initialEngagementType { fields["initialEngagementType"] = .string(initialEngagementType) }
        if let readTimestamp { fields["readTimestamp"] = .int(Int(readTimestamp)) }
        return fields
    }
}
