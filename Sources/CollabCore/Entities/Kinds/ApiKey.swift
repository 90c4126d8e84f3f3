/// An API key (`ApiKey`): the string apps present (`x-unblu-apikey`, the mobile start) to name their
/// account. Key strings are unique across all accounts (the layer claims them in the ``Directory``), and
/// authentication finds a key through the `API_KEY` index.
public struct ApiKey: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    /// The key string clients present (the vendor's `apiKey`): generated when a new key has none, kept
    /// when an update leaves it out. Everyone of the account may know it (it is in every app build).
    public var key: String
    public var name: String?
    public var description: String?
    public var configuration: [String: String]?
    public var metadata: [String: String]?
    public var text: [String: [String: String]]?

    /// A key as a seed or test builds it; the layer sets its id, account and timestamps (and the key
    /// string when `key` is empty).
    public init(key: String = "", name: String, description: String? = nil, configuration: [String: String]? = nil) {
        (id, accountId, creationTimestamp) = ("", "", 0)
        (self.key, self.name, self.description, self.configuration) = (key, name, description, configuration)
    }

    enum CodingKeys: String, CodingKey {
        case id, accountId, creationTimestamp, modificationTimestamp, version, name, description, configuration, metadata, text
        case key = "apiKey"
        /// What records stored before the kind joined the layer named the key string.
        case legacyKey = "key"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        accountId = try container.decode(String.self, forKey: .accountId)
        creationTimestamp = try container.decode(Int64.self, forKey: .creationTimestamp)
        modificationTimestamp = try container.decodeIfPresent(Int64.self, forKey: .modificationTimestamp)
        version = try container.decodeIfPresent(Int64.self, forKey: .version)
        key = try container.decodeIfPresent(String.self, forKey: .key) ?? container.decodeIfPresent(String.self, forKey: .legacyKey) ?? ""
        name = try container.decodeIfPresent(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        configuration = try container.decodeIfPresent([String: String].self, forKey: .configuration)
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata)
        text = try container.decodeIfPresent([String: [String: String]].self, forKey: .text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(accountId, forKey: .accountId)
        try container.encode(creationTimestamp, forKey: .creationTimestamp)
        try container.encodeIfPresent(modificationTimestamp, forKey: .modificationTimestamp)
        try container.encodeIfPresent(version, forKey: .version)
        if !key.isEmpty { try container.encode(key, forKey: .key) }
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(configuration, forKey: .configuration)
        try container.encodeIfPresent(metadata, forKey: .metadata)
        try container.encodeIfPresent(text, forKey: .text)
    }

    public static let declaration = EntityDeclaration<ApiKey>(
        typeName: "ApiKey", path: "apikeys", idParameter: "apiKeyId", seedKey: "apiKeys",
        operations: EntityOperations(create: .admin, read: .admin, update: .admin, delete: .admin, search: .admin, readMultiple: .admin),
        fields: [
            .creationTimestamp, .text("DESCRIPTION") { $0.description }, .modificationTimestamp, .name("NAME", ordered: true) { $0.name },
            .name("API_KEY") { $0.key.isEmpty ? nil : $0.key },
        ],
        uniqueName: .name("API_KEY") { $0.key.isEmpty ? nil : $0.key },
        webhookEvent: "api_key",
        rules: EntityRules(
            validate: { key, _, _ throws(CollabError) in try key.check() },
            complete: { key, _ in key.configuration = key.configuration ?? [:] },
            // Configuration, metadata and text show only when expanded, and the key string is kept when
            // an update leaves it out: an update names only the name and description.
            merge: EntityRules.keepingOmitted(replaced: ["name", "description"]),
            prepareCreate: { key, _, _, context in
                if key.key.isEmpty { key.key = context.ids.makeSecret() }
            }
        ),
        expandable: ["configuration", "metadata", "text"],
        legacyKind: .apiKey,
        globalKeys: { [.apiKey($0.key)] },
        // The key string lets an app in: its entries name the key by its name and keep no string, so a
        // replaced key is gone for good.
        auditView: EntityAuditView(
            redact: { key in
                var kept = key
                kept.key = ""
                return kept
            },
            name: { $0.name }
        )
    )

    func check() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        // Empty only in a draft of a new key: the layer generates one.
        if !key.isEmpty {
            guard key.utf8.count <= Limits.nameLength, key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw .badRequest("apiKey must be 1 to \(Limits.nameLength) printable ASCII characters without spaces")
            }
        }
        try Limits.checkProperties(configuration, field: "configuration")
        try Limits.checkProperties(metadata, field: "metadata")
    }
}

extension AccountState {
    /// The account's API keys.
    public var apiKeys: EntityTable<ApiKey> { declared.table(ApiKey.self) }

    /// Resolves a key string presented by a client (mobile start, secure-token login) to this
    /// account's API key (an index lookup; the directory says which account a key string belongs to).
    public func apiKey(presented key: String) -> ApiKey? {
        let keys = apiKeys
        return keys.ids("API_KEY", key).lazy.compactMap { keys[$0] }.first
    }

    /// The caller's API key whose key string is `key`.
    /// - Throws: `notFound` when the account has none.
    public func apiKey(byKey key: String, for principal: Principal) throws(CollabError) -> ApiKey {
        _ = try callerAccountId(principal)
        guard let apiKey = apiKey(presented: key) else { throw CollabError(.notFound, "no API key with that key in this account") }
        return apiKey
    }

    /// The account's default API key: the oldest one.
    public func defaultApiKey(for principal: Principal) throws(CollabError) -> ApiKey {
        _ = try callerAccountId(principal)
        let keys = apiKeys
        guard let id = keys.first(byOrdered: "CREATION_TIMESTAMP"), let key = keys[id] else {
            throw CollabError(.notFound, "the account has no API key")
        }
        return key
    }
}
