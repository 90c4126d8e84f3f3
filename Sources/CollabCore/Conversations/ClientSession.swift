public import CollabWire

/// Whether the app is in the background, or in the foreground with the collaboration UI closed or open.
/// Together with the open conversation it decides push versus in-app events (the SDK's notification table).
public enum AppState: String, Sendable, Codable, CaseIterable, NamedCases {
    case background = "BACKGROUND"
    case foregroundUIClosed = "FOREGROUND_UI_CLOSED"
    case foregroundUIOpen = "FOREGROUND_UI_OPEN"
}

extension DeviceInfo {
    /// The `os` names of Apple's platforms, lower case: an app on any of them runs the iOS SDK.
    static let appleSystems: Set<String> = ["ios", "ipados", "visionos", "xros", "watchos", "tvos", "macos", "mac os x"]

    /// Whether the app runs the iOS SDK (for `iosMaxFpsRate`): iOS, iPadOS or another of Apple's systems
    /// as `UIDevice.systemName` names them.
    public var isIOS: Bool { Self.appleSystems.contains(os.lowercased()) }

    func validate() throws(CollabError) {
        _ = try Limits.checkName(os, field: "device.os")
        for (value, field) in [(osVersion, "osVersion"), (appId, "appId"), (appVersion, "appVersion"), (sdkVersion, "sdkVersion"), (model, "model")] {
            try Limits.checkOptional(value, field: "device.\(field)")
        }
    }
}

/// A started mobile client (a visitor's or an agent's app): the SDK's `start` creates one, `stop` ends it.
public struct ClientSession: Sendable, Codable, Equatable, Identifiable {
    /// The client's secret token, also its identifier.
    public var id: String
    /// A public identifier for the client (shown to agents and tools; never the token).
    public var clientId: String
    public var accountId: String
    public var apiKeyId: String
    public var personId: String
    /// The app's stable device identifier.
    public var deviceId: String
    public var device: DeviceInfo
    /// Where new conversations are queued; the app may change it while it runs.
    public var namedAreaId: String?
    /// The named area the client started with, whose configuration it loaded: changing the named area
    /// later changes where new conversations go, not the configuration (the vendor's rule).
    public var configurationNamedAreaId: String?
    public var appState: AppState
    /// The conversation shown in the collaboration UI, if any.
    public var openConversationId: String?
    /// Whether the visitor is identified by an access token (not anonymous).
    public var identified: Bool
    /// The agent user of an agent's app; `nil` for a visitor's.
    public var userId: String?
    /// When the access token the client started with expires: the client's authorization ends then.
    public var accessTokenExpiresAt: Timestamp?
    /// SHA-256 (hex) of the access token the client started with, so revoking the token ends the client.
    public var accessTokenDigest: String?
    public var createdAt: Timestamp
    public var lastSeenAt: Timestamp

    public init(
        id: String, clientId: String, accountId: String, apiKeyId: String, personId: String, deviceId: String, device: DeviceInfo,
        namedAreaId: String?, appState: AppState = .foregroundUIClosed, identified: Bool, createdAt: Timestamp
    ) {
        self.id = id
        self.clientId = clientId
        self.accountId = accountId
        self.apiKeyId = apiKeyId
        self.personId = personId
        self.deviceId = deviceId
        self.device = device
        self.namedAreaId = namedAreaId
        self.configurationNamedAreaId = namedAreaId
        self.appState = appState
        self.identified = identified
        self.createdAt = createdAt
        self.lastSeenAt = createdAt
    }

    /// Whether this is an agent's app.
    public var isAgent: Bool { userId != nil }
}

/// An agent's availability.
public enum AgentPresence: String, Sendable, Codable, CaseIterable, NamedCases {
    case online = "ONLINE"
    case away = "AWAY"
    case offline = "OFFLINE"
}

/// The presence an agent set, and when.
public struct PresenceRecord: Sendable, Codable, Equatable, Identifiable {
    /// The agent's person id.
    public var id: String
    public var accountId: String
    public var presence: AgentPresence
    public var changedAt: Timestamp
}
