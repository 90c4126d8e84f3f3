public import CollabWire

extension PushVersion {
    /// Whether the device holds a notification key.
    public var isEncrypted: Bool { self != .notEncrypted }

    /// Parses a version as a registration names it.
    /// - Throws: `badRequest`, listing the versions, for any other text.
    public init(parsing text: String) throws(CollabError) {
        try self.init(parsing: text, field: "version")
    }
}

extension PushKind {
    /// The vendor's webhook event name for this push.
    public var webhookEvent: String {
        switch self {
        case .newMessage: "push_notification.new_message"
        case .incomingCall: "push_notification.incoming_call"
        case .missedCall: "push_notification.missed_call"
        case .revokeCall: "push_notification.revoke_call"
        case .inboundRequest: "push_notification.inbound_request"
        case .revokeInboundRequest: "push_notification.revoke_inbound_request"
        case .readMessage: "push_notification.read_message"
        }
    }

    /// Whether the push only tells the app to update what it shows (a background push, never an alert).
    public var isSilent: Bool {
        switch self {
        case .revokeCall, .revokeInboundRequest, .readMessage: true
        case .newMessage, .incomingCall, .missedCall, .inboundRequest: false
        }
    }
}

/// Validation of push tokens.
public enum PushTokens {
    /// APNs and PushKit tokens: hexadecimal of even length. Apple does not fix the length (today 32
    /// bytes), so anything from 8 to 200 bytes is accepted.
    public static func validateAPNs(_ token: String, field: String) throws(CollabError) -> String {
        let lower = token.lowercased()
        guard lower.count.isMultiple(of: 2), (16...400).contains(lower.count), lower.allSatisfy({ $0.isHexDigit }) else {
            throw .badRequest("\(field) must be an even number of hexadecimal digits (8 to 200 bytes)")
        }
        return lower
    }

    /// FCM registration tokens: 1 to 4096 characters of letters, digits, `-`, `_` and `:`.
    public static func validateFCM(_ token: String) throws(CollabError) -> String {
        guard (1...4096).contains(token.count), token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_:".contains($0)) }) else {
            throw .badRequest("fcmToken must be 1 to 4096 characters of letters, digits, '-', '_' and ':'")
        }
        return token
    }
}
