/// The editable fields of an API key.
public struct ApiKeyInput: Sendable {
    public var key: String?
    public var name: String?
    public var description: String?
    public var configuration: [String: String]?
    public var metadata: [String: String]?
    public var text: [String: [String: String]]?

    public init(
        key: String? = nil, name: String? = nil, description: String? = nil, configuration: [String: String]? = nil,
        metadata: [String: String]? = nil, text: [String: [String: String]]? = nil
    ) {
        self.key = key
        self.name = name
        self.description = description
        self.configuration = configuration
        self.metadata = metadata
        self.text = text
    }

    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        if let key {
            guard !key.isEmpty, key.count <= Limits.nameLength, key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw .badRequest("apiKey must be 1 to \(Limits.nameLength) printable ASCII characters without spaces")
            }
        }
        try Limits.checkProperties(configuration, field: "configuration")
        try Limits.checkProperties(metadata, field: "metadata")
    }
}

extension AccountState {
    /// An API key of the caller's account.
    public func apiKey(_ id: String, for principal: Principal) throws(CollabError) -> ApiKey {
        guard let key = apiKeys[id], principal.canAccess(accountId: key.accountId) else { throw .notFound("ApiKey", id) }
        return key
    }

    /// An API key of the caller's account by its key string.
    public func apiKey(byKey key: String, for principal: Principal) throws(CollabError) -> ApiKey {
        guard let id = apiKeyIdByKey[key], let apiKey = apiKeys[id], principal.canAccess(accountId: apiKey.accountId) else {
            throw CollabError(.notFound, "no API key with that key in this account")
        }
        return apiKey
    }

    /// Resolves a key string presented by a client (mobile start, secure-token login) to this
    /// account's API key (the directory says which account a key string belongs to).
    public func apiKey(presented key: String) -> ApiKey? {
        apiKeyIdByKey[key].flatMap { apiKeys[$0] }
    }

    /// The account's default API key: the oldest one.
    public func defaultApiKey(for principal: Principal) throws(CollabError) -> ApiKey {
        _ = try callerAccountId(principal)
        guard let key = apiKeys.values.min(by: { ($0.creationTimestamp, $0.id) < ($1.creationTimestamp, $1.id) }) else {
            throw CollabError(.notFound, "the account has no API key")
        }
        return key
    }

    /// The API keys among `ids` that the caller may see, in the order asked.
    public func apiKeys(_ ids: [String], for principal: Principal) throws(CollabError) -> [ApiKey] {
        guard ids.count <= Limits.readMultipleCount else { throw .badRequest("at most \(Limits.readMultipleCount) ids per call") }
        return ids.compactMap { id in apiKeys[id].flatMap { principal.canAccess(accountId: $0.accountId) ? $0 : nil } }
    }

    /// Searches the caller's API keys.
    public func searchApiKeys(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<ApiKey> {
        _ = try callerAccountId(principal)
        return try SearchSchemas.apiKey.run(query, over: apiKeys.values, id: \.id)
    }

    /// Creates an API key in `accountId`; the key string is generated unless given.
    public mutating func createApiKey(
        _ input: ApiKeyInput, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> ApiKey {
        try input.validate()
        try checkAccount(accountId)
        let keyString = input.key ?? context.ids.makeSecret()
        let name = try Limits.checkName(input.name, field: "name")
        try directory.claim(.apiKey(keyString), for: accountId, log: &directoryLog, conflict: .conflict("that API key is already in use"))
        guard apiKeyIdByKey[keyString] == nil else { throw .conflict("that API key is already in use") }
        let key = ApiKey(
            id: context.ids.make(), accountId: accountId, key: keyString, name: name,
            description: input.description, creationTimestamp: context.now, modificationTimestamp: context.now,
            configuration: input.configuration ?? [:], metadata: input.metadata, text: input.text
        )
        storeApiKey(key)
        changes.put(key)
        emitEntity(.create, .apiKey(key), context: context, changes: &changes)
        return key
    }

    /// Updates an API key of the caller's account.
    public mutating func updateApiKey(
        id: String, version: Int64?, _ input: ApiKeyInput, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> ApiKey {
        var key = try apiKey(id, for: principal)
        try Self.checkVersion(version, current: key.version, entity: "ApiKey")
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        if let newKey = input.key, newKey != key.key {
            try directory.claim(.apiKey(newKey), for: accountId, log: &directoryLog, conflict: .conflict("that API key is already in use"))
            guard apiKeyIdByKey[newKey] == nil else { throw .conflict("that API key is already in use") }
            directory.release(.apiKey(key.key), log: &directoryLog)
            key.key = newKey
        }
        key.name = name
        key.description = input.description
        if let configuration = input.configuration { key.configuration = configuration }
        if let metadata = input.metadata { key.metadata = metadata }
        if let text = input.text { key.text = text }
        key.version += 1
        key.modificationTimestamp = context.now
        storeApiKey(key)
        changes.put(key)
        emitEntity(.update, .apiKey(key), context: context, changes: &changes)
        return key
    }

    /// Deletes an API key of the caller's account.
    public mutating func deleteApiKey(_ id: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet) throws(CollabError) {
        let key = try apiKey(id, for: principal)
        apiKeys[id] = nil
        apiKeyIdByKey[key.key] = nil
        directory.release(.apiKey(key.key), log: &directoryLog)
        changes.delete(.apiKey, id)
        emitEntity(.delete, .apiKey(key), context: context, changes: &changes)
    }
}
