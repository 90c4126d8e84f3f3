public import CollabWire
import Foundation

/// The state of a call.
public enum CallState: String, Sendable, Codable, CaseIterable, NamedCases {
    /// Ringing on the visitor's devices.
    case ringing = "RINGING"
    case active = "ACTIVE"
    case ended = "ENDED"
}

/// One person's part in a call.
public struct CallParticipation: Sendable, Codable, Equatable {
    public var personId: String
    public var ringingTimestamp: Timestamp?
    public var joinedTimestamp: Timestamp?
    public var leftTimestamp: Timestamp?
    /// The vendor's `ECallParticipationEndReason` for callees who never joined.
    public var endReason: String?
}

/// An audio or video call in a conversation.
public struct Call: Sendable, Codable, Equatable, Identifiable {
    public enum CallType: String, Sendable, Codable, CaseIterable, NamedCases {
        case audio = "AUDIO"
        case video = "VIDEO"
    }

    public var id: String
    public var accountId: String
    public var conversationId: String
    public var callType: CallType
    public var initiatorPersonId: String
    public var state: CallState
    public var initiationTimestamp: Timestamp
    public var acceptTimestamp: Timestamp?
    public var endTimestamp: Timestamp?
    /// The vendor's `ECallEndReason`.
    public var endReason: String?
    /// When an unanswered call becomes missed.
    public var timeoutAt: Timestamp
    public var participations: [CallParticipation]
    /// Device records that were told the call is ringing (they get the revoke).
    public var ringingDeviceIds: [String]
    /// The device that answered.
    public var answeredDeviceId: String?
    /// The call service provider as the account's configuration named it when the call started (the
    /// vendor's `ECallServiceProvider`: `OPENTOK`, `LIVEKIT`, `ACS`). Media is not simulated: the
    /// provider and its session fields are what an app hands to its call module.
    public var serviceProvider: String?
    /// The provider's session (an OpenTok session id, a LiveKit room name, an ACS group call id).
    public var providerSessionId: String?
    /// `com.unblu.mobiledevice.deviceAudioGreeting` when the call started.
    public var audioGreeting: String?
    /// The call's own secret: the per-device credentials its VoIP pushes carry and the per-person
    /// provider tokens are derived from it (see ``CallCredential``). Never shown.
    public var secret: String?

    public init(
        id: String, accountId: String, conversationId: String, callType: CallType, initiatorPersonId: String, initiationTimestamp: Timestamp,
        timeoutAt: Timestamp
    ) {
        self.id = id
        self.accountId = accountId
        self.conversationId = conversationId
        self.callType = callType
        self.initiatorPersonId = initiatorPersonId
        self.state = .ringing
        self.initiationTimestamp = initiationTimestamp
        self.timeoutAt = timeoutAt
        self.participations = [CallParticipation(personId: initiatorPersonId, joinedTimestamp: initiationTimestamp)]
        self.ringingDeviceIds = []
    }

    /// The vendor's `ECallState` for pushes: CALLING while ringing.
    public var vendorState: String {
        switch state {
        case .ringing: "CALLING"
        case .active: "ACTIVE"
        case .ended: "IDLE"
        }
    }
}

extension Call: StorableEntity {
    public static var kind: EntityKind { .call }
    public var storageAccountId: String? { accountId }
}

extension Call: SecretBearingEntity {
    /// Without the call's secret (its credentials and provider tokens are derived from it).
    public var redactingSecrets: Call? {
        var call = self
        call.secret = nil
        return call
    }
}

/// A push the state decided to send: resolved into ``ResolvedPush``es at commit, composed and delivered once stored.
public struct PushIntent: Sendable, Equatable {
    public var accountId: String
    /// The device record.
    public var deviceRecordId: String
    public var personId: String
    public var content: PushContent
    public var transports: [PushTransport]
    /// Why the push is recorded but not sent (the person paused notifications), if it is not sent.
    public var suppressedReason: String?
    /// When the operation decided it.
    public var createdAt: Timestamp

    public init(
        accountId: String, deviceRecordId: String, personId: String, content: PushContent, transports: [PushTransport], createdAt: Timestamp
    ) {
        self.accountId = accountId
        self.deviceRecordId = deviceRecordId
        self.personId = personId
        self.content = content
        self.transports = transports
        self.createdAt = createdAt
    }
}

/// Where an account's pushes go besides the outbox.
public struct PushSettings: Sendable, Codable, Equatable, Identifiable {
    /// APNs provider API settings: token authentication (a `.p8` key with its team and key ids), a
    /// certificate (`.p12`, e.g. a VoIP Services certificate), or both — VoIP pushes then go with the
    /// certificate, the others with the token.
    public struct APNs: Sendable, Codable, Equatable {
        /// A client certificate for certificate-based authentication.
        public struct Certificate: Sendable, Codable, Equatable {
            /// The PKCS#12 file, standard base64; never returned by the server.
            public var pkcs12: String
            /// The file's password; never returned by the server.
            public var password: String

            public init(pkcs12: String, password: String) {
                self.pkcs12 = pkcs12
                self.password = password
            }
        }

        public var teamId: String?
        public var keyId: String?
        /// The `.p8` ES256 private key in PEM; never returned by the server.
        public var privateKeyPEM: String?
        /// The certificate to authenticate with instead of (or, for VoIP pushes, besides) a provider token.
        public var certificate: Certificate?
        /// `apns-topic` (the app's bundle id); the device's app id when absent. VoIP pushes add `.voip`.
        public var topic: String?
        /// `sandbox`, `production`, or `custom` with ``customURL``.
        public var environment: String
        public var customURL: String?
        /// Trust any certificate (for `mock-collab apns-sim` and its self-signed certificate).
        public var insecureTLS: Bool?

        public init(
            teamId: String? = nil, keyId: String? = nil, privateKeyPEM: String? = nil, certificate: Certificate? = nil, topic: String? = nil,
            environment: String = "sandbox", customURL: String? = nil, insecureTLS: Bool? = nil
        ) {
            self.teamId = teamId
            self.keyId = keyId
            self.privateKeyPEM = privateKeyPEM
            self.certificate = certificate
            self.topic = topic
            self.environment = environment
            self.customURL = customURL
            self.insecureTLS = insecureTLS
        }

        /// Whether a provider token can be made (team id, key id and key).
        public var hasProviderKey: Bool { teamId != nil && keyId != nil && privateKeyPEM != nil }

        /// Whether a push over `transport` authenticates with the certificate (else a provider token):
        /// VoIP pushes whenever there is one, the others only without a provider key.
        public func usesCertificate(for transport: PushTransport) -> Bool {
            guard certificate != nil else { return false }
            return transport == .apnsVoIP || !hasProviderKey
        }

        /// The base URL pushes go to.
        public var baseURL: String {
            switch environment {
            case "production": "https://api.push.apple.com"
            case "custom": customURL ?? "https://api.sandbox.push.apple.com"
            default: "https://api.sandbox.push.apple.com"
            }
        }
    }

    /// FCM HTTP v1 settings: a service account whose OAuth token authorizes `messages:send`.
    public struct FCM: Sendable, Codable, Equatable {
        public var projectId: String
        /// The service account's `client_email`.
        public var clientEmail: String
        /// The service account's RS256 `private_key` in PEM; never returned by the server.
        public var privateKeyPEM: String
        /// The OAuth token endpoint (`https://oauth2.googleapis.com/token` by default).
        public var tokenURL: String?
        /// The FCM API base URL (`https://fcm.googleapis.com` by default).
        public var endpoint: String?

        public init(projectId: String, clientEmail: String, privateKeyPEM: String, tokenURL: String? = nil, endpoint: String? = nil) {
            self.projectId = projectId
            self.clientEmail = clientEmail
            self.privateKeyPEM = privateKeyPEM
            self.tokenURL = tokenURL
            self.endpoint = endpoint
        }

        public var effectiveTokenURL: String { tokenURL ?? "https://oauth2.googleapis.com/token" }
        public var effectiveEndpoint: String { endpoint ?? "https://fcm.googleapis.com" }
    }

    /// The account id.
    public var id: String
    public var apns: APNs?
    public var fcm: FCM?
    /// A directory for `.apns` files `xcrun simctl push` takes (alert pushes only).
    public var simulatorDirectory: String?

    public init(id: String, apns: APNs? = nil, fcm: FCM? = nil, simulatorDirectory: String? = nil) {
        self.id = id
        self.apns = apns
        self.fcm = fcm
        self.simulatorDirectory = simulatorDirectory
    }

    func validate() throws(CollabError) {
        if let apns {
            if apns.teamId != nil || apns.keyId != nil || apns.privateKeyPEM != nil || apns.certificate == nil {
                guard let teamId = apns.teamId, teamId.utf8.count == 10, teamId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                    throw .badRequest("apns.teamId must be 10 letters or digits (or give apns.certificate alone)")
                }
                guard let keyId = apns.keyId, keyId.utf8.count == 10, keyId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                    throw .badRequest("apns.keyId must be 10 letters or digits")
                }
                guard let key = apns.privateKeyPEM, key.contains("PRIVATE KEY"), key.unicodeScalars.count < 16 * 1024 else {
                    throw .badRequest("apns.privateKeyPEM must be a PEM private key")
                }
            }
            if let certificate = apns.certificate {
                guard !certificate.pkcs12.isEmpty, certificate.pkcs12.utf8.count < 64 * 1024, Data(base64Encoded: certificate.pkcs12) != nil else {
                    throw .badRequest("apns.certificate.pkcs12 must be a .p12 file in base64, under 48 KiB")
                }
                guard Limits.fits(certificate.password, 1024) else { throw .badRequest("apns.certificate.password is too long") }
            }
            guard ["sandbox", "production", "custom"].contains(apns.environment) else {
                throw .badRequest("apns.environment must be sandbox, production or custom")
            }
            if apns.environment == "custom" {
                guard let url = apns.customURL, url.hasPrefix("https://") || url.hasPrefix("http://"), url.utf8.count <= 2048 else {
                    throw .badRequest("apns.customURL must be an http(s) URL")
                }
            }
        }
        if let fcm {
            guard !fcm.projectId.isEmpty, Limits.fits(fcm.projectId, 100) else { throw .badRequest("fcm.projectId is required") }
            guard fcm.clientEmail.contains("@"), Limits.fits(fcm.clientEmail, 254) else {
                throw .badRequest("fcm.clientEmail must be the service account's email")
            }
            guard fcm.privateKeyPEM.contains("PRIVATE KEY"), fcm.privateKeyPEM.unicodeScalars.count < 16 * 1024 else {
                throw .badRequest("fcm.privateKeyPEM must be a PEM private key")
            }
            for url in [fcm.tokenURL, fcm.endpoint].compactMap({ $0 })
            where !(url.hasPrefix("https://") || url.hasPrefix("http://")) || url.utf8.count > 2048 {
                throw .badRequest("fcm URLs must be http(s) URLs")
            }
        }
        if let directory = simulatorDirectory {
            guard !directory.isEmpty, Limits.fits(directory, 1024) else { throw .badRequest("simulatorDirectory must be a path") }
        }
    }
}

extension PushSettings: StorableEntity {
    public static var kind: EntityKind { .pushSettings }
    public var storageAccountId: String? { id }
}
