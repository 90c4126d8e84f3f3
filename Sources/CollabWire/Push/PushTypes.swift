/// `PUT /mobile/v1/clients/current/push`: registers the device's push tokens (re-registration replaces).
public struct PushRegistrationRequest: Codable, Sendable {
    /// The APNs device token, hex.
    public var apnsToken: String?
    /// The PushKit (VoIP) token, hex.
    public var pushKitToken: String?
    /// The FCM registration token.
    public var fcmToken: String?
    /// `ENCRYPTED`, `ENCRYPTED_SERVICE` or `NOT_ENCRYPTED`.
    public var version: String
    /// `sandbox` (default) or `production`.
    public var apnsEnvironment: String?
    /// The SDK's `nativeInboundCall` capability: whether the app rings natively (CallKit through
    /// PushKit). Absent: as the PushKit token says. `false`: calls ring by an alert push (or, with the
    /// app in the foreground, a UI visibility request), never by VoIP.
    public var nativeInboundCall: Bool?

    public init(
        apnsToken: String? = nil, pushKitToken: String? = nil, fcmToken: String? = nil, version: String, apnsEnvironment: String? = nil,
        nativeInboundCall: Bool? = nil
    ) {
        self.apnsToken = apnsToken
        self.pushKitToken = pushKitToken
        self.fcmToken = fcmToken
        self.version = version
        self.apnsEnvironment = apnsEnvironment
        self.nativeInboundCall = nativeInboundCall
    }
}

/// A notification key as the device receives it ("received shared").
public struct NotificationKeyView: Codable, Sendable, Equatable {
    public var keyId: String
    /// 256-bit AES key, base64.
    public var key: String
    public var createdAt: Int64
    /// For the previous key during the overlap: until when it still decrypts.
    public var validUntil: Int64?
    public init(keyId: String, key: String, createdAt: Int64, validUntil: Int64? = nil) {
        self.keyId = keyId
        self.key = key
        self.createdAt = createdAt
        self.validUntil = validUntil
    }
}

/// A device's registration, as the device and the control API see it.
public struct DeviceView: Codable, Sendable, Equatable {
    /// The server's record id (`<person id>:<device id>`).
    public var id: String
    public var personId: String
    public var deviceId: String
    public var os: String
    public var osVersion: String?
    public var appId: String?
    public var apnsToken: String?
    public var pushKitToken: String?
    public var fcmToken: String?
    public var version: String
    public var apnsEnvironment: String
    public var notificationCount: Int
    /// The current key id (the key itself only goes to the device).
    public var keyId: String?
    /// Whether the app rings natively (`nativeInboundCall`), as registered; absent: as the PushKit token says.
    public var nativeInboundCall: Bool?
    public var registeredAt: Int64
    public var updatedAt: Int64

    public init(
        id: String, personId: String, deviceId: String, os: String, osVersion: String?, appId: String?, apnsToken: String?, pushKitToken: String?,
        fcmToken: String?, version: String, apnsEnvironment: String, notificationCount: Int, keyId: String?, registeredAt: Int64, updatedAt: Int64
    ) {
        self.id = id
        self.personId = personId
        self.deviceId = deviceId
        self.os = os
        self.osVersion = osVersion
        self.appId = appId
        self.apnsToken = apnsToken
        self.pushKitToken = pushKitToken
        self.fcmToken = fcmToken
        self.version = version
        self.apnsEnvironment = apnsEnvironment
        self.notificationCount = notificationCount
        self.keyId = keyId
        self.registeredAt = registeredAt
        self.updatedAt = updatedAt
    }
}

/// The answer to a push registration: the device and, for encrypted versions, its keys.
public struct PushRegistrationResponse: Codable, Sendable {
    public var device: DeviceView
    /// Current key first, then the previous one while it is still valid.
    public var keys: [NotificationKeyView]
    public init(device: DeviceView, keys: [NotificationKeyView]) {
        self.device = device
        self.keys = keys
    }
}

/// One push in the outbox: what was composed for which device, and what became of it.
public struct PushView: Codable, Sendable, Equatable {
    /// Delivery state of a push.
    public enum State: String, Sendable, Codable {
        /// Recorded; no sink is configured for its transport.
        case recorded = "RECORDED"
        /// Waiting for or between delivery attempts.
        case pending = "PENDING"
        case delivered = "DELIVERED"
        /// The endpoint said the token is gone (APNs 410 / BadDeviceToken, FCM UNREGISTERED); the token was removed.
        case unregistered = "UNREGISTERED"
        case failed = "FAILED"
        /// Not sent: the person's notifications are paused (the attempt says why).
        case suppressed = "SUPPRESSED"
    }

    /// One delivery attempt.
    public struct Attempt: Codable, Sendable, Equatable {
        public var timestamp: Int64
        public var sink: String
        public var status: Int?
        /// APNs `reason` or FCM error status.
        public var reason: String?
        public var error: String?

        public init(timestamp: Int64, sink: String, status: Int? = nil, reason: String? = nil, error: String? = nil) {
            self.timestamp = timestamp
            self.sink = sink
            self.status = status
            self.reason = reason
            self.error = error
        }
    }

    /// Increasing sequence number.
    public var id: Int64
    /// Unique id (`apns-id`).
    public var pushId: String
    public var accountId: String
    public var personId: String
    public var deviceRecordId: String
    public var deviceId: String
    public var kind: PushKind
    public var transport: PushTransport
    public var version: PushVersion
    /// The token the push is addressed to.
    public var token: String
    /// `apns-topic` (with `.voip` for VoIP pushes).
    public var topic: String?
    /// `alert`, `background` or `voip`.
    public var pushType: String
    public var priority: Int
    public var collapseId: String?
    public var keyId: String?
    /// The plain content (what the encrypted versions seal).
    public var content: PushContent
    /// The payload exactly as sent: the APNs or FCM JSON, as a string (``userInfo`` in CollabClient
    /// parses it).
    public var payload: String
    public var payloadBytes: Int
    public var truncated: Bool
    public var state: State
    public var attempts: [Attempt]
    public var createdAt: Int64

    public init(
        id: Int64, pushId: String, accountId: String, personId: String, deviceRecordId: String, deviceId: String, kind: PushKind,
        transport: PushTransport, version: PushVersion, token: String, topic: String?, pushType: String, priority: Int, collapseId: String?,
        keyId: String?, content: PushContent, payload: String, payloadBytes: Int, truncated: Bool, state: State, attempts: [Attempt],
        createdAt: Int64
    ) {
        self.id = id
        self.pushId = pushId
        self.accountId = accountId
        self.personId = personId
        self.deviceRecordId = deviceRecordId
        self.deviceId = deviceId
        self.kind = kind
        self.transport = transport
        self.version = version
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.collapseId = collapseId
        self.keyId = keyId
        self.content = content
        self.payload = payload
        self.payloadBytes = payloadBytes
        self.truncated = truncated
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
    }
}


/// A page of the outbox.
public struct PushPage: Codable, Sendable {
    public var pushes: [PushView]
    public init(pushes: [PushView]) { self.pushes = pushes }
}

/// `POST /agent/v1/conversations/{id}/calls`.
public struct StartCallRequest: Codable, Sendable {
    /// `AUDIO` or `VIDEO`.
    public var callType: String
    public init(callType: String) { self.callType = callType }
}

/// A call as the mobile and agent APIs show it.
public struct CallView: Codable, Sendable, Equatable {
    public var id: String
    public var conversationId: String
    public var callType: String
    public var initiatorPersonId: String
    /// `RINGING`, `ACTIVE` or `ENDED`.
    public var state: String
    public var initiationTimestamp: Int64
    public var acceptTimestamp: Int64?
    public var endTimestamp: Int64?
    /// The vendor's `ECallEndReason` (`NOT_ANSWERED` for a missed call).
    public var endReason: String?
    public var timeoutAt: Int64
    /// The call service provider the server configures (`com.unblu.conversation.call.serviceProviderType`):
    /// the vendor's `OPENTOK`, `LIVEKIT` or `ACS`.
    public var serviceProviderType: String?
    /// What a participant hands the provider's call module (media is not simulated: the fields are
    /// plausible, not usable); absent for a caller who does not take part.
    public var providerSession: CallProviderSession?

    public init(
        id: String, conversationId: String, callType: String, initiatorPersonId: String, state: String, initiationTimestamp: Int64,
        acceptTimestamp: Int64?, endTimestamp: Int64?, endReason: String?, timeoutAt: Int64, serviceProviderType: String? = nil,
        providerSession: CallProviderSession? = nil
    ) {
        self.serviceProviderType = serviceProviderType
        self.providerSession = providerSession
        self.id = id
        self.conversationId = conversationId
        self.callType = callType
        self.initiatorPersonId = initiatorPersonId
        self.state = state
        self.initiationTimestamp = initiationTimestamp
        self.acceptTimestamp = acceptTimestamp
        self.endTimestamp = endTimestamp
        self.endReason = endReason
        self.timeoutAt = timeoutAt
    }
}

/// A call's session at its service provider, as one participant joins it: an OpenTok session id and
/// token, a LiveKit server URL, room and access token, an ACS group call id.
public struct CallProviderSession: Codable, Sendable, Equatable {
    /// `OPENTOK`, `LIVEKIT` or `ACS`.
    public var provider: String
    /// The OpenTok session id, the LiveKit room name, the ACS group call id.
    public var sessionId: String
    /// The participant's token for the session.
    public var token: String
    /// Where the call module connects (LiveKit's server, the OpenTok API), for show.
    public var serverURL: String

    public init(provider: String, sessionId: String, token: String, serverURL: String) {
        self.provider = provider
        self.sessionId = sessionId
        self.token = token
        self.serverURL = serverURL
    }
}

/// `POST /mobile/v1/calls/{id}/answer`.
public struct AnswerCallRequest: Codable, Sendable {
    public init() {}
}
