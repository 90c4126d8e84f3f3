public import CollabWire
/// The scopes configuration properties are set at, from least to most specific.
public enum ConfigurationScope: String, Sendable, Codable, CaseIterable, Comparable, NamedCases {
    case global = "GLOBAL"
    case account = "ACCOUNT"
    case area = "AREA"
    case apiKey = "APIKEY"
    /// One conversation's own properties (`conversations/{id}/updateConfiguration`).
    case conversation = "CONVERSATION"

    private var rank: Int {
        switch self {
        case .global: 0
        case .account: 1
        case .area: 2
        case .apiKey: 3
        case .conversation: 4
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}

/// A configuration value together with the scope that set it.
public struct ResolvedProperty: Sendable, Equatable, Codable {
    public var value: String
    public var scope: ConfigurationScope
    public init(value: String, scope: ConfigurationScope) {
        self.value = value
        self.scope = scope
    }
}

/// Resolves configuration along GLOBAL → ACCOUNT → AREA → APIKEY (or → CONVERSATION for a conversation):
/// the most specific scope that sets a key wins.
public struct ConfigurationCascade: Sendable, Equatable {
    /// The layers, each with the scope it stands for.
    public var layers: [(scope: ConfigurationScope, properties: [String: String])] {
        _layers.map { ($0.scope, $0.properties) }
    }

    private struct Layer: Sendable, Equatable {
        var scope: ConfigurationScope
        var properties: [String: String]
    }

    private var _layers: [Layer]

    /// Creates a cascade from the properties set at each scope (absent scopes are skipped).
    public init(
        global: [String: String], account: [String: String]? = nil, area: [String: String]? = nil, apiKey: [String: String]? = nil,
        conversation: [String: String]? = nil
    ) {
        var layers = [Layer(scope: .global, properties: global)]
        if let account { layers.append(Layer(scope: .account, properties: account)) }
        if let area { layers.append(Layer(scope: .area, properties: area)) }
        if let apiKey { layers.append(Layer(scope: .apiKey, properties: apiKey)) }
        if let conversation { layers.append(Layer(scope: .conversation, properties: conversation)) }
        self._layers = layers
    }

    /// The effective value of `key`, or `nil` when no scope sets it.
    public func value(for key: String) -> ResolvedProperty? {
        for layer in _layers.reversed() {
            if let value = layer.properties[key] { return ResolvedProperty(value: value, scope: layer.scope) }
        }
        return nil
    }

    /// Every effective property with the scope that set it.
    public func resolved() -> [String: ResolvedProperty] {
        var result: [String: ResolvedProperty] = [:]
        for layer in _layers {
            for (key, value) in layer.properties { result[key] = ResolvedProperty(value: value, scope: layer.scope) }
        }
        return result
    }

    /// The effective value of `key` as an integer, or `defaultValue` when unset or not a number.
    public func int(_ key: String, default defaultValue: Int) -> Int {
        value(for: key).flatMap { Int($0.value) } ?? defaultValue
    }
}
