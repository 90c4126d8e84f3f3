public import CollabWire

/// A visitor's device as push sees it: its tokens, notification version and key ring.
///
/// One record per person and app device id. Tokens survive the client being stopped (pushes are for
/// apps that are not running); disabling push deletes them.
public struct Device: Sendable, Codable, Equatable, Identifiable {
    /// `<person id>:<device id>`.
    public var id: String
    public var accountId: String
    public var personId: String
    /// The app's own device id.
    public var deviceId: String
    public var device: DeviceInfo
    public var apnsToken: String?
    public var pushKitToken: String?
    public var fcmToken: String?
    public var version: PushVersion
    /// `sandbox` or `production` APNs environment the token belongs to.
    public var apnsEnvironment: String
    public var keys: NotificationKeyRing?
    /// Whether the app rings natively (CallKit through PushKit: the SDK's `nativeInboundCall`
    /// capability); `nil` counts as yes when a PushKit token is registered. Without it an incoming call
    /// rings by an alert push, or a UI visibility request in the foreground.
    public var nativeInboundCall: Bool?
    /// Whether the device runs an agent's app (agents get inbound requests); `nil` for visitors.
    public var agent: Bool?
    /// Unread notifications since the collaboration UI was last opened (the badge).
    public var notificationCount: Int
    public var registeredAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        id: String, accountId: String, personId: String, deviceId: String, device: DeviceInfo, version: PushVersion, apnsEnvironment: String,
        registeredAt: Timestamp
    ) {
        self.id = id
        self.accountId = accountId
        self.personId = personId
        self.deviceId = deviceId
        self.device = device
        self.version = version
        self.apnsEnvironment = apnsEnvironment
        self.notificationCount = 0
        self.registeredAt = registeredAt
        self.updatedAt = registeredAt
    }

    /// The record id for a person's device.
    public static func recordId(personId: String, deviceId: String) -> String { "\(personId):\(deviceId)" }

    /// Whether any push token is registered.
    public var hasTokens: Bool { apnsToken != nil || pushKitToken != nil || fcmToken != nil }

    /// Whether the device is an agent's app that push tokens reach: one an agent's queue pushes go to.
    public var isReachableAgentApp: Bool { agent == true && hasTokens }

    /// Whether an incoming call rings this device by a VoIP push: a PushKit token, and the app did
    /// not say it cannot ring natively.
    public var ringsNatively: Bool { pushKitToken != nil && nativeInboundCall != false }
}

extension Device: StorableEntity {
    public static var kind: EntityKind { .device }
    public var storageAccountId: String? { accountId }
}
