/// A tenant: everything else (API keys, named areas, users, persons) belongs to exactly one account.
public struct Account: Sendable, Codable, Equatable, Identifiable {
    public var id: String
    public var name: String
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    /// Optimistic-concurrency version: bumped on every change; updates must carry the current one.
    public var version: Int64
    /// The account's own configuration properties (ACCOUNT scope of the cascade).
    public var configuration: [String: String]
    public var metadata: [String: String]?
    public var translations: [String: Translation]?
    public var text: [String: [String: String]]?
    /// Issued at creation (`nil` in accounts of older snapshots until first read).
    public var secret: AccountSecret?
    /// `nil` until ingress is first enabled or disabled.
    public var ingress: AccountIngress?

    /// A localised name and description.
    public struct Translation: Sendable, Codable, Equatable {
        public var id: String?
        public var name: String?
        public var description: String?
        public init(id: String? = nil, name: String? = nil, description: String? = nil) {
            self.id = id
            self.name = name
            self.description = description
        }
    }

    /// Creates an account.
    public init(
        id: String, name: String, creationTimestamp: Timestamp, modificationTimestamp: Timestamp, version: Int64 = 1,
        configuration: [String: String] = [:], metadata: [String: String]? = nil,
        translations: [String: Translation]? = nil, text: [String: [String: String]]? = nil
    ) {
        self.id = id
        self.name = name
        self.creationTimestamp = creationTimestamp
        self.modificationTimestamp = modificationTimestamp
        self.version = version
        self.configuration = configuration
        self.metadata = metadata
        self.translations = translations
        self.text = text
    }
}
