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
        for key in apiKeys.values where key.accountId == id {
            apiKeys[key.id] = nil
            apiKeyIdByKey[key.key] = nil
            changes.delete(.apiKey, key.id)
        }
        for area in namedAreas.values where area.accountId == id {
            namedAreas[area.id] = nil
            changes.delete(.namedArea, area.id)
        }
        for user in users.values where user.accountId == id {
            users[user.id] = nil
            userIdByUsername[user.username] = nil
            changes.delete(.user, user.id)
        }
        for person in persons.values where person.accountId == id {
            persons[person.id] = nil
            personIdBySource[PersonSourceKey(accountId: id, source: person.personSource, sourceId: person.sourceId)] = nil
            changes.delete(.person, person.id)
        }
        for session in sessions.values where session.accountId == id {
            sessions[session.id] = nil
            changes.delete(.session, session.id)
        }
        for conversation in conversations.values where conversation.accountId == id {
            removeConversation(conversation.id, changes: &changes)
        }
        for session in clientSessions.values where session.accountId == id {
            clientSessions[session.id] = nil
            changes.delete(.clientSession, session.id)
        }
        for registration in webhooks.values where registration.accountId == id {
            webhooks[registration.id] = nil
            changes.delete(.webhookRegistration, registration.id)
        }
        for device in devices.values where device.accountId == id {
            devices[device.id] = nil
            changes.delete(.device, device.id)
        }
        for call in calls.values where call.accountId == id {
            calls[call.id] = nil
            changes.delete(.call, call.id)
        }
        if pushSettings.removeValue(forKey: id) != nil { changes.delete(.pushSettings, id) }
        for session in coBrowsingSessions.values where session.accountId == id {
            coBrowsingSessions[session.id] = nil
            changes.delete(.coBrowsingSession, session.id)
        }
        for record in presence.values where record.accountId == id {
            presence[record.id] = nil
            changes.delete(.presence, record.id)
        }
        guard !keepAccount else { return }
        if let account = accounts.removeValue(forKey: id) {
            accountIdByName[account.name] = nil
            changes.delete(.account, id)
        }
        if jwtSettings.removeValue(forKey: id) != nil { changes.delete(.jwtSettings, id) }
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
