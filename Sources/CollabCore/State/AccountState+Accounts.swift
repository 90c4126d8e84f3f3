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

extension AccountState {
    /// The caller's own account.
    public func currentAccount(_ principal: Principal) throws(CollabError) -> Account {
        _ = try callerAccountId(principal)
        return account
    }

    /// This account, if the caller may see it: super admins see every account, everyone else their own.
    public func account(_ id: String, for principal: Principal) throws(CollabError) -> Account {
        guard id == accountId, principal.role == .superAdmin || principal.canAccess(accountId: id) else {
            throw .notFound("Account", id)
        }
        return account
    }

    /// Searches all accounts (a super-admin operation), from the directory: a page in an order the
    /// directory keeps (id, name, creation, modification) reads about its own accounts.
    public static func searchAccounts(_ query: SearchQuery, in directory: Directory) throws(CollabError) -> SearchPage<Account> {
        let accounts = directory.accountTable
        return try SearchSchemas.account.run(query, lookups: accountLookups(accounts), row: { accounts[$0] }, all: accounts.values, id: \.id)
    }

    /// The look-ups and orders of an account search over `accounts`.
    static func accountLookups(_ accounts: IndexedTable<Account>) -> SearchLookups {
        SearchLookups().adding("ID", accounts.idLookup)
            .ordering("ID", count: accounts.count, walk: accounts.walk(Indexes.accountById))
            .ordering(Indexes.accountOrders, of: accounts)
    }

    /// A shard for a new account, with its JWT test-token secret; the account's name is claimed in the
    /// directory (undone by ``Directory/revert(_:)`` when the caller's operation fails).
    public static func createAccount(
        _ input: AccountInput, directory: Directory, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> AccountState {
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        var account = Account(
            id: context.ids.make(), name: name, creationTimestamp: context.now, modificationTimestamp: context.now,
            configuration: input.configuration ?? [:], metadata: input.metadata, translations: input.translations, text: input.text
        )
        account.secret = AccountSecret(id: context.ids.make(), secretKey: context.ids.makeSecret(), creationTimestamp: context.now)
        var state = AccountState(account: account, directory: directory)
        try state.storeAccount(account)
        changes.put(account)
        state.emitEntity(.create, .account(account), context: context, changes: &changes)
        let jwt = JWTValidationSettings(id: account.id, testTokenSecret: context.ids.makeSecret())
        state.jwtSettings[account.id] = jwt
        changes.put(jwt)
        return state
    }

    /// Updates the account; the caller must name its current version.
    ///
    /// Configuration, metadata, translations and text are replaced only when given (they are returned
    /// only on `expand`, so a client echoing a plain read must not wipe them).
    public mutating func updateAccount(
        id: String, version: Int64?, _ input: AccountInput, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Account {
        var account = try self.account(id, for: principal)
        try Self.checkVersion(version, current: account.version, entity: "Account")
        try input.validate()
        account.name = try Limits.checkName(input.name, field: "name")
        if let configuration = input.configuration { account.configuration = configuration }
        if let metadata = input.metadata { account.metadata = metadata }
        if let translations = input.translations { account.translations = translations }
        if let text = input.text { account.text = text }
        return try saveChanged(account, context: context, changes: &changes)
    }

    /// Stores a changed account under its next version and announces the update.
    mutating func saveChanged(_ account: Account, context: OperationContext, changes: inout ChangeSet) throws(CollabError) -> Account {
        var account = account
        account.version += 1
        account.modificationTimestamp = context.now
        try storeAccount(account)
        changes.put(account)
        emitEntity(.update, .account(account), context: context, changes: &changes)
        return account
    }

    /// Checks that the caller may delete this account. A caller cannot delete the account it is logged into.
    public func checkCanDelete(for principal: Principal) throws(CollabError) {
        _ = try account(accountId, for: principal)
        guard principal.accountId != accountId else { throw .badRequest("an account cannot delete itself; log in to another account first") }
    }

    /// Removes everything the account holds, optionally the account record itself, and releases its
    /// names and tokens in the directory. The store removes the rows in one statement per account.
    public mutating func removeAccountData(keepAccount: Bool, changes: inout ChangeSet) {
        for key in declared.globalKeys { directory.release(key, log: &directoryLog) }
        for name in userIdByUsername.keys { directory.release(.username(name), log: &directoryLog) }
        for token in sessions.keys { directory.release(.session(token), log: &directoryLog) }
        for token in clientSessions.keys { directory.release(.client(token), log: &directoryLog) }
        let kept = AccountState(account: account, directory: directory)
        let jwt = jwtSettings[accountId]
        let log = directoryLog
        self = kept
        directoryLog = log
        changes.deleteAccountData(accountId)
        if keepAccount {
            changes.put(account)
            if let jwt {
                jwtSettings[accountId] = jwt
                changes.put(jwt)
            }
        } else {
            directory.release(.accountName(account.name), log: &directoryLog)
            directory.removeAccount(accountId, log: &directoryLog)
        }
    }
}
