public import CollabCore
public import CollabWire

/// One push in the outbox: what was composed for which device, and what became of it.
public struct OutboxEntry: Sendable, Codable, Equatable {
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
    public struct Attempt: Sendable, Codable, Equatable {
        public var timestamp: Timestamp
        public var sink: String
        public var status: Int?
        /// APNs `reason` or FCM error status.
        public var reason: String?
        public var error: String?
        public init(timestamp: Timestamp, sink: String, status: Int? = nil, reason: String? = nil, error: String? = nil) {
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
    public var pushType: String
    public var priority: Int
    public var collapseId: String?
    public var keyId: String?
    /// The plain content (what the encrypted versions seal).
    public var content: PushContent
    /// The payload exactly as sent, JSON.
    public var payload: String
    public var payloadBytes: Int
    public var truncated: Bool
    public var state: State
    public var attempts: [Attempt]
    public var createdAt: Timestamp

    public init(
        id: Int64, pushId: String, accountId: String, personId: String, deviceRecordId: String, deviceId: String, kind: PushKind, transport: PushTransport,
        version: PushVersion, token: String, topic: String?, pushType: String, priority: Int, collapseId: String?, keyId: String?, content: PushContent,
        payload: String, payloadBytes: Int, truncated: Bool, state: State, attempts: [Attempt], createdAt: Timestamp
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

/// Which outbox entries a query or a wait is about.
public struct OutboxFilter: Sendable, Equatable {
    public var accountId: String?
    public var personId: String?
    public var deviceId: String?
    public var conversationId: String?
    public var kind: PushKind?
    public var transport: PushTransport?
    public var state: OutboxEntry.State?
    /// Only entries with an id above this.
    public var after: Int64?

    public init(
        accountId: String? = nil, personId: String? = nil, deviceId: String? = nil, conversationId: String? = nil, kind: PushKind? = nil,
        transport: PushTransport? = nil, state: OutboxEntry.State? = nil, after: Int64? = nil
    ) {
        self.accountId = accountId
        self.personId = personId
        self.deviceId = deviceId
        self.conversationId = conversationId
        self.kind = kind
        self.transport = transport
        self.state = state
        self.after = after
    }

    public func matches(_ entry: OutboxEntry) -> Bool {
        (accountId == nil || entry.accountId == accountId) && (personId == nil || entry.personId == personId)
            && (deviceId == nil || entry.deviceId == deviceId || entry.deviceRecordId == deviceId)
            && (conversationId == nil || entry.content.conversationId == conversationId) && (kind == nil || entry.kind == kind)
            && (transport == nil || entry.transport == transport) && (state == nil || entry.state == state) && (after == nil || entry.id > after!)
    }
}
