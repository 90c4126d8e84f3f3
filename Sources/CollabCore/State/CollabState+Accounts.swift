/// The editable fields of an account.
public struct AccountInput: Sendable {
    public var name: String?
    public var configuration: [String: String]?
    public var metadata: [String: String]?
    public var translations: [String: Account.Translation]?
    public var text: [String: [String: String]]?

    public init(
        name: String? = nil, configuration: [String: String]? = nil, metadata: [String: String]? = nil,
        translations: [String: Account.Translation]? = nil, text: [String: [String: String]]? = nil
    ) {
        self.name = name
        self.configuration = configuration
        self.metadata = metadata
        self.translations = translations
        self.text = text
    }

    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        try Limits.checkProperties(configuration, field: "configuration")
        try Limits.checkProperties(metadata, field: "metadata")
    }
}

extension CollabState {
    /// The caller's own account.
    public func currentAccount(_ principal: Principal) throws(CollabError) -> Account {
        let id = try callerAccountId(principal)
        guard let account = accounts[id] else { throw .notFound("Account", id) }
        return account
    }

    /// An account by id: any account for super admins, only their own for everyone else.
    public func account(_ id: String, for principal: Principal) throws(CollabError) -> Account {
        guard let account = accounts[id], principal.role == .superAdmin || principal.canAccess(accountId: id) else {
            throw .notFound("Account", id)
        }
        return account
    }

    /// Searches all accounts (a super-admin operation).
    public func searchAccounts(_ query: SearchQuery) throws(CollabError) -> SearchPage<Account> {
        try SearchSchemas.account.run(query, over: accounts.values, id: \.id)
    }

    /// Creates an account, with its JWT test-token secret.
    public mutating func createAccount(_ input: AccountInput, context: OperationContext, changes: inout ChangeSet) throws(CollabError) -> Account {
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        guard accountIdByName[name] == nil else { throw .conflict("an account named '\(name)' already exists") }
        let account = Account(
            id: context.ids.make(), name: name, creationTimestamp: context.now, modificationTimestamp: context.now,
            configuration: input.configuration ?? [:], metadata: input.metadata, translations: input.translations, text: input.text
        )
        storeAccount(account)
        changes.put(account)
        let jwt = JWTValidationSettings(id: account.id, testTokenSecret: context.ids.makeSecret())
        jwtSettings[account.id] = jwt
        changes.put(jwt)
        return account
    }

    /// Updates an account; the caller must name its current version.
    ///
    /// Configuration, metadata, translations and text are replaced only when given (they are returned
    /// only on `expand`, so a client echoing a plain read must not wipe them).
    public mutating func updateAccount(
        id: String, version: Int64?, _ input: AccountInput, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Account {
        var account = try self.account(id, for: principal)
        try Self.checkVersion(version, current: account.version, entity: "Account")
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        if let other = accountIdByName[name], other != id { throw .conflict("an account named '\(name)' already exists") }
        account.name = name
        if let configuration = input.configuration { account.configuration = configuration }
        if let metadata = input.metadata { account.metadata = metadata }
        if let translations = input.translations { account.translations = translations }
        if let text = input.text { account.text = text }
        account.version += 1
        account.modificationTimestamp = context.now
        storeAccount(account)
        changes.put(account)
        return account
    }

    /// Deletes an account and everything it owns. A caller cannot delete the account it is logged into.
    public mutating func deleteAccount(_ id: String, for principal: Principal, changes: inout ChangeSet) throws(CollabError) {
        _ = try account(id, for: principal)
        guard principal.accountId != id else { throw .badRequest("an account cannot delete itself; log in to another account first") }
        removeAccountData(id, keepAccount: false, changes: &changes)
    }

    /// Removes all data of an account, optionally keeping the account record itself.
    public mutating func removeAccountData(_ id: String, keepAccount: Bool, changes: inout ChangeSet) {
        for key in Self.purge(&apiKeys, accountId: id, changes: &changes) { apiKeyIdByKey[key.key] = nil }
        for user in Self.purge(&users, accountId: id, changes: &changes) { userIdByUsername[user.username] = nil }
        for person in Self.purge(&persons, accountId: id, changes: &changes) {
            personIdBySource[PersonSourceKey(accountId: id, source: person.personSource, sourceId: person.sourceId)] = nil
        }
        for conversation in conversations.values where conversation.accountId == id {
            removeConversation(conversation.id, changes: &changes)
        }
        Self.purge(&namedAreas, accountId: id, changes: &changes)
        Self.purge(&sessions, accountId: id, changes: &changes)
        Self.purge(&clientSessions, accountId: id, changes: &changes)
        Self.purge(&webhooks, accountId: id, changes: &changes)
        Self.purge(&devices, accountId: id, changes: &changes)
        Self.purge(&calls, accountId: id, changes: &changes)
        Self.purge(&pushSettings, accountId: id, changes: &changes)
        Self.purge(&coBrowsingSessions, accountId: id, changes: &changes)
        Self.purge(&presence, accountId: id, changes: &changes)
        guard !keepAccount else { return }
        if let account = accounts.removeValue(forKey: id) {
            accountIdByName[account.name] = nil
            changes.delete(.account, id)
        }
        Self.purge(&jwtSettings, accountId: id, changes: &changes)
    }

    /// Removes the entities of one account from a table, records the deletions, and returns what it
    /// removed (for index clean-up).
    @discardableResult
    static func purge<E: StorableEntity>(_ table: inout [String: E], accountId: String, changes: inout ChangeSet) -> [E] {
        let removed = table.values.filter { $0.storageAccountId == accountId }
        for entity in removed {
            table[entity.id] = nil
            changes.delete(E.kind, entity.id)
        }
        return removed
    }

    /// Removes everything.
    public mutating func removeAll(changes: inout ChangeSet) {
        for id in Array(accounts.keys) { removeAccountData(id, keepAccount: false, changes: &changes) }
        if !globalConfiguration.properties.isEmpty {
            globalConfiguration = GlobalConfiguration()
            changes.put(globalConfiguration)
        }
    }

    /// An account by its name (seeds and the control API address accounts by name).
    public func account(named name: String) -> Account? {
        accountIdByName[name].flatMap { accounts[$0] }
    }
}
