/// A co-browsing session as the mobile and agent APIs show it.
public struct CoBrowsingSessionView: Codable, Sendable, Equatable {
    public var id: String
    public var conversationId: String
    public var visitorPersonId: String
    /// `REQUESTED`, `ACTIVE` or `ENDED`.
    public var state: String
    /// `iOS` or `Android`: decides which rate property applies.
    public var platform: String
    /// The effective frame rate limit right now.
    public var maxFps: Int
    public var requestedAt: Int64
    public var startedAt: Int64?
    public var endedAt: Int64?
    public init(
        id: String, conversationId: String, visitorPersonId: String, state: String, platform: String, maxFps: Int, requestedAt: Int64,
        startedAt: Int64?, endedAt: Int64?
    ) {
        self.id = id
        self.conversationId = conversationId
        self.visitorPersonId = visitorPersonId
        self.state = state
        self.platform = platform
        self.maxFps = maxFps
        self.requestedAt = requestedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
    }
}

/// What the server answers to one uploaded frame (WebSocket text message or POST body).
public struct FrameAck: Codable, Sendable, Equatable {
    /// `frame.accepted`, `frame.throttled`, `frame.duplicate` or `frame.rejected`.
    public var type: String
    public var sessionId: String?
    public var sequence: UInt32?
    /// For throttled frames: when the next frame is due.
    public var retryAfterMs: Int64?
    /// For rejected frames: why.
    public var reason: String?
    public init(type: String, sessionId: String?, sequence: UInt32?, retryAfterMs: Int64? = nil, reason: String? = nil) {
        self.type = type
        self.sessionId = sessionId
        self.sequence = sequence
        self.retryAfterMs = retryAfterMs
        self.reason = reason
    }
}

/// Per-session frame statistics.
public struct CoBrowsingStats: Codable, Sendable, Equatable {
    public var sessionId: String
    public var accepted: Int
    public var throttled: Int
    public var duplicates: Int
    public var rejected: Int
    public var bytes: Int
    /// Accepted frames per second between the first and the last accepted frame.
    public var effectiveFps: Double
    /// Gaps between accepted frames, in ms.
    public var gapP50: Int64?
    public var gapP99: Int64?
    public var maxFps: Int
    /// The private areas the last accepted frame declared.
    public var privateAreas: [PrivateArea]
    public init(
        sessionId: String, accepted: Int, throttled: Int, duplicates: Int, rejected: Int, bytes: Int, effectiveFps: Double, gapP50: Int64?,
        gapP99: Int64?, maxFps: Int, privateAreas: [PrivateArea]
    ) {
        self.sessionId = sessionId
        self.accepted = accepted
        self.throttled = throttled
        self.duplicates = duplicates
        self.rejected = rejected
        self.bytes = bytes
        self.effectiveFps = effectiveFps
        self.gapP50 = gapP50
        self.gapP99 = gapP99
        self.maxFps = maxFps
        self.privateAreas = privateAreas
    }
}
