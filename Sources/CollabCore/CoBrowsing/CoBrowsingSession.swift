public import CollabWire
/// A mobile co-browsing session in a conversation: the visitor's app shares its screen with the agents.
public struct CoBrowsingSession: Sendable, Codable, Equatable, Identifiable {
    public enum State: String, Sendable, Codable, CaseIterable, NamedCases {
        /// An agent asked; the visitor has not accepted yet.
        case requested = "REQUESTED"
        case active = "ACTIVE"
        case ended = "ENDED"
    }

    public var id: String
    public var accountId: String
    public var conversationId: String
    public var visitorPersonId: String
    /// Who asked for it (an agent, or the visitor who started it).
    public var requestedBy: String
    public var state: State = .requested
    public var requestedAt: Timestamp
    public var startedAt: Timestamp?
    public var endedAt: Timestamp?
}

extension CoBrowsingSession: StorableEntity {
    public static var kind: EntityKind { .coBrowsingSession }
    public var storageAccountId: String? { accountId }
}

/// The configuration properties that limit the frame rate, by platform.
public enum CoBrowsingConfiguration {
    public static let iosMaxFpsRate = "com.unblu.mobiledevice.iosMaxFpsRate"
    public static let androidMaxFpsRate = "com.unblu.mobiledevice.androidMaxFpsRate"
    /// The rate when no scope sets one.
    public static let defaultFps = 5
    /// The rate is clamped to this range.
    public static let fpsRange = 1...60

    /// The effective rate for a platform under a cascade.
    public static func maxFps(cascade: ConfigurationCascade, ios: Bool) -> Int {
        let value = cascade.int(ios ? iosMaxFpsRate : androidMaxFpsRate, default: defaultFps)
        return min(max(value, fpsRange.lowerBound), fpsRange.upperBound)
    }
}
