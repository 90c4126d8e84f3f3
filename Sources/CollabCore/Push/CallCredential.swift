import Crypto
import Foundation

/// Credentials derived from a call's secret, so nothing per device or per person is stored.
///
/// - A **device credential** rides in the incoming-call push of one device. The SDK's locked-phone flow
///   answers through CallKit before the app has started (no client yet): the app answers, declines,
///   ends or reads that call with the credential as its bearer token. It names its account, call and
///   device, and holds only while the call is not over.
/// - A **provider token** is what a participant hands to the call module of the provider the call runs
///   on (media is not simulated: it is plausible, not usable).
public enum CallCredential {
    /// The prefix of device credentials (version 1), which tells them from other bearer tokens.
    public static let prefix = "vc1."

    /// What a device credential names.
    public struct Claims: Sendable, Equatable {
        public var accountId: String
        public var callId: String
        /// The device record (`<person id>:<device id>`) the push went to.
        public var deviceRecordId: String
    }

    /// The credential of `call` for one device; `nil` for a call without a secret (one restored from a
    /// redacted snapshot).
    public static func make(for call: Call, deviceRecordId: String) -> String? {
        guard let secret = call.secret else { return nil }
        let device = base64URL(Data(deviceRecordId.utf8))
        return prefix + "\(call.accountId).\(call.id).\(device)." + mac(secret, "device|\(call.accountId)|\(call.id)|\(deviceRecordId)")
    }

    /// What a credential names, before it is checked against its call; `nil` when it is not one.
    public static func claims(of token: String) -> Claims? {
        guard token.hasPrefix(prefix), token.utf8.count <= 512 else { return nil }
        let parts = token.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, !parts[0].isEmpty, CallID.isValid(String(parts[1])), let device = decodeBase64URL(String(parts[2])),
            let deviceRecordId = String(data: device, encoding: .utf8), !deviceRecordId.isEmpty
        else { return nil }
        return Claims(accountId: String(parts[0]), callId: String(parts[1]), deviceRecordId: deviceRecordId)
    }

    /// Whether `token` is the credential of `call` for the device it names, and the call is not over.
    public static func isValid(_ token: String, for call: Call) -> Bool {
        call.state != .ended && isSigned(token, for: call)
    }

    /// Whether `call`'s secret made `token` (for the device it names), whether or not the call is over.
    public static func isSigned(_ token: String, for call: Call) -> Bool {
        guard let claims = claims(of: token), claims.callId == call.id, claims.accountId == call.accountId,
            let expected = make(for: call, deviceRecordId: claims.deviceRecordId)
        else { return false }
        // Compared as digests: equal length, no early exit on the first differing byte.
        return SHA256.hash(data: Data(expected.utf8)) == SHA256.hash(data: Data(token.utf8))
    }

    /// A participant's token for the call's provider session.
    public static func providerToken(for call: Call, personId: String) -> String? {
        guard let secret = call.secret, let provider = call.serviceProvider, let session = call.providerSessionId else { return nil }
        let signature = mac(secret, "provider|\(call.id)|\(personId)")
        switch provider {
        case CallServiceProvider.liveKit:
            // LiveKit's access tokens are JWTs naming the room and the participant.
            let header = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
            let claims = base64URL(Data(#"{"sub":"\#(personId)","video":{"room":"\#(session)","roomJoin":true}}"#.utf8))
            return "\(header).\(claims).\(signature)"
        case CallServiceProvider.openTok:
            return "T1==" + signature
        default:
            return signature
        }
    }

    private static func mac(_ secret: String, _ text: String) -> String {
        base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: Data(secret.utf8)))))
    }

    static func base64URL(_ data: Data) -> String {
        let base64 = data.base64EncodedString()
        return base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private static func decodeBase64URL(_ text: String) -> Data? {
        guard text.utf8.count <= 400 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// The call service providers (the vendor's `ECallServiceProvider`) and the configuration that picks one.
public enum CallServiceProvider {
    public static let openTok = "OPENTOK"
    public static let liveKit = "LIVEKIT"
    public static let acs = "ACS"
    /// Every provider the vendor names.
    public static let all = [openTok, liveKit, acs]
    /// The configuration property naming the provider calls run on (the mock's own key: the vendor
    /// configures its providers with settings of each provider's own).
    public static let propertyKey = "com.unblu.conversation.call.serviceProviderType"
    /// The text the device plays once a call is answered before its app has started.
    public static let audioGreetingKey = "com.unblu.mobiledevice.deviceAudioGreeting"

    /// A plausible session id for `provider`, from `ids`.
    static func sessionId(provider: String, callId: String, ids: EntityIDGenerator) -> String {
        switch provider {
        case liveKit: "room-\(callId.lowercased())"
        case acs: callId.lowercased()
        default: "1_MX4" + ids.make(length: 40)
        }
    }
}
