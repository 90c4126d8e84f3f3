/// A named area: routes conversations to a queue and scopes configuration (AREA scope).
public struct NamedArea: Sendable, Codable, Equatable, Identifiable {
    /// How a page or app is matched to the area (`ENamedAreaType`).
    public enum AreaType: String, Sendable, Codable, CaseIterable {
        case metaTag = "META_TAG"
        case domain = "DOMAIN"
    }

    public var id: String
    public var accountId: String
    public var name: String
    public var description: String?
    public var type: AreaType
    /// The identifier apps and pages use to select the area.
    public var siteId: String
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64
    public var configuration: [String: String]
    public var metadata: [String: String]?
    public var translations: [String: Account.Translation]?
    public var text: [String: [String: String]]?

    /// Creates a named area.
    public init(
        id: String, accountId: String, name: String, description: String? = nil, type: AreaType = .metaTag, siteId: String,
        creationTimestamp: Timestamp, modificationTimestamp: Timestamp, version: Int64 = 1,
        configuration: [String: String] = [:], metadata: [String: String]? = nil,
        translations: [String: Account.Translation]? = nil, text: [String: [String: String]]? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.name = name
        self.description = description
        self.type = type
        self.siteId = siteId
        self.creationTimestamp = creationTimestamp
        self.modificationTimestamp = modificationTimestamp
        self.version = version
        self.configuration = configuration
        self.metadata = metadata
        self.translations = translations
        self.text = text
    }
}
