public import CollabWire

/// How a visitor client connects, mirroring the SDK's client configuration.
public struct ClientConfiguration: Sendable {
    /// The server's root URL, e.g. `http://127.0.0.1:8080`.
    public var baseURL: String
    /// The account's API key.
    public var apiKey: String
    /// An access token (JWT) identifying the visitor; `nil` for an anonymous visitor.
    public var accessToken: String?
    /// A named area id or site id: new conversations go to its queue and its configuration applies.
    public var namedArea: String?
    /// Cookies sent with every request.
    public var customCookies: [String: String]
    /// The app's stable device id (an anonymous visitor is the same person on every start).
    public var deviceId: String
    /// What the app says about the device.
    public var device: ClientStartRequest.Device
    /// Where the client keeps its device identity secret between starts.
    public var preferences: any PreferencesStorage
    /// TLS trust, pins and client certificate for an `https://` server (the SDK's `authenticationChallengeDelegate`).
    public var tls: TLSOptions?

    /// A configuration; every property has the meaning of the one it sets.
    /// - Parameters:
    ///   - baseURL: The server's root URL.
    ///   - apiKey: The account's API key.
    ///   - accessToken: A JWT naming the visitor; `nil` for an anonymous one.
    ///   - namedArea: A named area's id or site id.
    ///   - customCookies: Cookies sent with every request.
    ///   - deviceId: The app's stable device id.
    ///   - device: What the app says about the device.
    ///   - preferences: Where the device secret is kept between starts.
    ///   - tls: Trust, pins and client certificate for an `https://` server.
    public init(
        baseURL: String, apiKey: String, accessToken: String? = nil, namedArea: String? = nil, customCookies: [String: String] = [:],
        deviceId: String,
        device: ClientStartRequest.Device = .init(os: "iOS", osVersion: "18.0", appId: "com.example.app", sdkVersion: "mock-collab"),
        preferences: any PreferencesStorage = MemoryPreferencesStorage.shared,
        tls: TLSOptions? = nil
    ) {
        self.preferences = preferences
        self.tls = tls
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.accessToken = accessToken
        self.namedArea = namedArea
        self.customCookies = customCookies
        self.deviceId = deviceId
        self.device = device
    }

    /// The preferences key of this device's identity secret (per server, API key and device id).
    var deviceSecretKey: String { "mockcollab.deviceSecret.\(baseURL).\(apiKey).\(deviceId)" }
}

/// The SDK's app states, for ``AppClient/setAppState(_:)``.
public enum ClientAppState: String, Sendable, CaseIterable {
    /// The app is not on screen: messages and calls arrive as pushes.
    case background = "BACKGROUND"
    /// The app is on screen with the collaboration UI closed: messages push, calls ask for the UI.
    case foregroundUIClosed = "FOREGROUND_UI_CLOSED"
    /// The user sees the collaboration UI: nothing is pushed, and the notification counts are read.
    case foregroundUIOpen = "FOREGROUND_UI_OPEN"
}

/// Turns an `http(s)://` base URL into the `ws(s)://` one.
func webSocketURL(_ baseURL: String, path: String, query: [(String, String)]) -> String {
    var base = baseURL
    if base.hasPrefix("https://") {
        base = "wss://" + base.dropFirst("https://".count)
    } else if base.hasPrefix("http://") {
        base = "ws://" + base.dropFirst("http://".count)
    }
    if base.hasSuffix("/") { base.removeLast() }
    let queryString = query.map { "\($0.0)=\($0.1.addingPercentEncodingForQuery)" }.joined(separator: "&")
    return base + path + (queryString.isEmpty ? "" : "?" + queryString)
}

extension String {
    var addingPercentEncodingForQuery: String {
        var allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
        allowed.insert(",")
        return unicodeScalars.map { allowed.contains($0) ? String($0) : $0.utf8Escaped }.joined()
    }
}

extension Unicode.Scalar {
    var utf8Escaped: String {
        String(self).utf8.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return "%" + (hex.count == 1 ? "0" + hex : hex)
        }.joined()
    }
}
