/// An API key: identifies the account a mobile app or web page belongs to, and is the most
/// specific scope of the configuration cascade.
public struct ApiKey: Sendable, Codable, Equatable, Identifiable {
    public var id: String
    public var accountId: String
    /// The key string clients present (`x-unblu-apikey`).
    public var key: String
    public var name: String
    public var description: String?
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64
    public var configuration: [String: String]
    public var metadata: [String: String]?
    public var text: [String: [String: String]]?

    /// Creates an API key.
    public init(
        id: String, accountId: String, key: String, name: String, description: String? = nil,
        creationTimestamp: Timestamp, modificationTimestamp: Timestamp, version: Int64 = 1,
        configuration: [String: String] = [:], metadata: [String: String]? = nil, text: [String: [String: String]]? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.key = key
        self.name = name
        self.description = description
        self.creationTimestamp = creationTimestamp
        self.modificationTimestamp = modificationTimestamp
        self.version = version
        self.configuration = configuration
        self.metadata = metadata
        self.text = text
    }
}
