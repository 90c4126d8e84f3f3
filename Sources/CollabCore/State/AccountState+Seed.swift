/// Counts of what applying a seed did.
public struct SeedReport: Sendable, Codable, Equatable {
    public var created = 0
    public var updated = 0
    public var unchanged = 0
    public init() {}

    /// Counts one seeded setting that exists either way: `update` stores it when it `changed`.
    mutating func setting(changed: Bool, _ update: () throws(CollabError) -> Void) throws(CollabError) {
        guard changed else {
            unchanged += 1
            return
        }
        try update()
        updated += 1
    }
}

/// The account shards a change across accounts works on (a seed): the existing shards it touches,
/// copied out under their locks, and the shards of the accounts it creates.
public struct ShardSet: Sendable {
    /// Names, keys and tokens across accounts.
    public let directory: Directory
    /// The shards, by account id.
    public var states: [String: AccountState]
    /// Directory changes that belong to no one account (the GLOBAL configuration).
    public internal(set) var log = DirectoryLog()

    /// - Parameter states: The existing shards the change may touch, by account id.
    public init(directory: Directory, states: [String: AccountState] = [:]) {
        self.directory = directory
        self.states = states
    }

    /// Replaces the GLOBAL configuration scope (`global/update`).
    public mutating func replaceGlobalConfiguration(_ properties: [String: String], changes: inout ChangeSet) throws(CollabError) {
        try AccountState.setGlobalConfiguration(properties, directory: directory, log: &log, changes: &changes)
    }

    /// Installs or removes the server's licence (`global/installLicense`, `removeLicense`).
    public mutating func replaceGlobalLicense(_ license: GlobalLicense, changes: inout ChangeSet) {
        AccountState.setGlobalLicense(license, directory: directory, log: &log, changes: &changes)
    }

    /// Changes the global file-upload interceptors with `body` (the generic interceptor operations),
    /// stored on the GLOBAL level with the rest of it.
    public mutating func changeGlobalFileUploadInterceptors<Result>(
        changes: inout ChangeSet, _ body: (inout [String: FileUploadInterceptor]) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        var configuration = directory.globalConfiguration
        let result = try body(&configuration.fileUploadInterceptors)
        if configuration != directory.globalConfiguration {
            directory.setGlobal(configuration, log: &log)
            changes.put(configuration)
        }
        return result
    }

    /// The shard of the account named `name`, if it is in the set.
    public func state(named name: String) -> AccountState? {
        directory.accountId(for: .accountName(name)).flatMap { states[$0] }
    }

    /// Every directory log of the change, to commit or revert together.
    public var logs: [DirectoryLog] { [log] + states.values.map(\.directoryLog) }

    /// Applies a seed idempotently: entities are matched by natural key and updated in place, accounts
    /// the seed names are created when missing.
    ///
    /// Work on copies (see the repository): a seed touches many entities and may fail half-way, and then
    /// the copies and the logs' claims (``Directory/revert(_:)``) are thrown away.
    ///
    /// A seed says what exists, it does nothing that happens: it is stored and announces nothing (no
    /// webhook, live event or push), so a reset between tests does not send the next test the fixture's
    /// creation events.
    /// - Parameter passwordHashes: New hashes by username, for users whose password must be (re)set;
    ///   users not listed keep their stored hash.
    public mutating func apply(
        seed: Seed, passwordHashes: [String: String], context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> SeedReport {
        try seed.checkUnique()
        let mark = changes.announcementMark
        defer { changes.withdrawAnnouncements(since: mark) }
        var report = SeedReport()
        if let global = seed.global?.configuration {
            let current = directory.globalConfiguration.properties
            let merged = current.merging(global) { _, new in new }
            try report.setting(changed: merged != current) { () throws(CollabError) in
                try AccountState.setGlobalConfiguration(merged, directory: directory, log: &log, changes: &changes)
            }
        }
        for (index, body) in (seed.global?.fileUploadInterceptors ?? []).enumerated() {
            do throws(CollabError) {
                try changeGlobalFileUploadInterceptors(changes: &changes) { list throws(CollabError) in
                    try list.apply(seed: body, context: context, report: &report)
                }
            } catch {
                throw CollabError(error.kind, "seed: global.fileUploadInterceptors[\(index)]: \(error.message)")
            }
        }
        for accountSeed in seed.accounts {
            var state: AccountState
            if let existing = directory.account(named: accountSeed.name) {
                guard let prepared = states[existing.id] else {
                    throw CollabError(.internalError, "seed: the account '\(accountSeed.name)' was not prepared for the change")
                }
                state = prepared
                try state.applyAccountFields(accountSeed, context: context, changes: &changes, report: &report)
            } else {
                let input = AccountInput(name: accountSeed.name, configuration: accountSeed.configuration, metadata: accountSeed.metadata)
                state = try AccountState.createAccount(input, directory: directory, context: context, changes: &changes)
                report.created += 1
            }
            // Kept in the set even when a later step throws: its directory log holds the claims made so far
            // (the new account's name, usernames, API keys), which the caller reverts with the rest.
            defer { states[state.accountId] = state }
            try state.apply(accountSeed, passwordHashes: passwordHashes, context: context, changes: &changes, report: &report)
            try state.applyEntities(accountSeed.entities, context: context, changes: &changes, report: &report)
            try state.applyOutbound(accountSeed, context: context, changes: &changes, report: &report)
            try state.checkTeams(of: accountSeed)
        }
        return report
    }
}

extension AccountState {
    /// Refuses a seeded user whose `teamId` names no team of the account (checked once the seed's own
    /// teams, in `entities.teams`, are in place).
    fileprivate func checkTeams(of seed: Seed.AccountSeed) throws(CollabError) {
        let teams = declared.table(Team.self)
        for (position, user) in (seed.users ?? []).enumerated() {
            guard let teamId = user.teamId, teams[teamId] == nil else { continue }
            throw .badRequest(
                "invalid seed: account '\(seed.name)': users[\(position)].teamId '\(teamId)' names no team of the account "
                    + "(seed one under entities.teams with that id)"
            )
        }
    }

    fileprivate mutating func applyAccountFields(
        _ seed: Seed.AccountSeed, context: OperationContext, changes: inout ChangeSet, report: inout SeedReport
    ) throws(CollabError) {
        let existing = account
        var input = AccountInput(name: seed.name, configuration: seed.configuration, metadata: seed.metadata)
        input.configuration = seed.configuration ?? existing.configuration
        let changed = input.configuration != existing.configuration || (seed.metadata != nil && seed.metadata != existing.metadata)
        try report.setting(changed: changed) { () throws(CollabError) in
            _ = try updateAccount(id: existing.id, version: existing.version, input, for: .control, context: context, changes: &changes)
        }
    }

    fileprivate mutating func apply(
        _ seed: Seed.AccountSeed, passwordHashes: [String: String], context: OperationContext, changes: inout ChangeSet,
        report: inout SeedReport
    ) throws(CollabError) {
        let system = Principal.control
        let accountId = account.id

        for (position, keySeed) in (seed.apiKeys ?? []).enumerated() {
            if let owner = directory.accountId(for: .apiKey(keySeed.key)), owner != accountId {
                throw .conflict("seed: API key '\(keySeed.key)' belongs to another account")
            }
            let draft = ApiKey(
                key: keySeed.key, name: keySeed.name ?? keySeed.key, description: keySeed.description, configuration: keySeed.configuration
            )
            let path = "seed: account '\(account.name)': apiKeys[\(position)]"
            try applySeed(draft, at: path, by: .control(of: accountId), context: context, changes: &changes, report: &report)
        }

        for areaSeed in seed.namedAreas ?? [] {
            let draft = NamedArea(
                siteId: areaSeed.siteId, name: areaSeed.name ?? areaSeed.siteId, description: areaSeed.description, type: areaSeed.type,
                configuration: areaSeed.configuration, metadata: areaSeed.metadata
            )
            try upsert(
                namedArea(siteId: areaSeed.siteId, accountId: accountId), report: &report,
                unchanged: { existing in
                    existing.name == draft.name && existing.description == draft.description && (draft.type == nil || draft.type == existing.type)
                        && (draft.configuration == nil || draft.configuration == existing.configuration)
                        && (draft.metadata == nil || draft.metadata == existing.metadata)
                },
                create: { state throws(CollabError) in
                    _ = try state.createEntity(draft, for: .control(of: accountId), context: context, changes: &changes)
                },
                update: { state, existing throws(CollabError) in
                    var update = draft
                    update.id = existing.id
                    update.version = existing.version
                    _ = try state.updateEntity(update, for: .control(of: accountId), context: context, changes: &changes)
                }
            )
        }

        for userSeed in seed.users ?? [] {
            let input = UserInput(
                username: userSeed.username, email: userSeed.email, phone: userSeed.phone, teamId: userSeed.teamId,
                authorizationRole: userSeed.role ?? .registeredUser, displayName: userSeed.displayName, firstName: userSeed.firstName,
                lastName: userSeed.lastName, configuration: userSeed.configuration, metadata: userSeed.metadata
            )
            let newHash = passwordHashes[userSeed.username]
            if let owner = directory.accountId(for: .username(userSeed.username)), owner != accountId {
                throw .conflict("seed: username '\(userSeed.username)' belongs to another account")
            }
            func sameFields(_ existing: User) -> Bool {
                existing.email == input.email && existing.phone == input.phone && existing.teamId == input.teamId
                    && existing.authorizationRole == input.authorizationRole && existing.displayName == input.displayName
                    && existing.firstName == input.firstName && existing.lastName == input.lastName
                    && (input.configuration == nil || input.configuration == existing.configuration)
                    && (input.metadata == nil || input.metadata == existing.metadata)
            }
            try upsert(
                user(loginName: userSeed.username), report: &report,
                unchanged: { existing in newHash == nil && sameFields(existing) },
                create: { state throws(CollabError) in
                    _ = try state.createUser(
                        input, passwordHash: newHash, accountId: accountId, grantor: .superAdmin, teamsLater: true, context: context,
                        changes: &changes
                    )
                },
                update: { state, existing throws(CollabError) in
                    if !sameFields(existing) {
                        _ = try state.updateUser(
                            id: existing.id, version: existing.version, input, for: system, teamsLater: true, context: context, changes: &changes
                        )
                    }
                    if let newHash {
                        _ = try state.setPassword(userId: existing.id, passwordHash: newHash, for: system, context: context, changes: &changes)
                    }
                }
            )
        }

        for personSeed in seed.persons ?? [] {
            let input = PersonInput(
                sourceId: personSeed.sourceId, personType: personSeed.personType, firstName: personSeed.firstName,
                lastName: personSeed.lastName, displayName: personSeed.displayName, email: personSeed.email
            )
            let key = PersonSourceKey(source: .virtual, sourceId: personSeed.sourceId)
            // One operation creates the person or updates the one with the same source id.
            func store(_ state: inout AccountState) throws(CollabError) {
                _ = try state.createOrUpdateVirtualPerson(input, accountId: accountId, context: context, changes: &changes)
            }
            try upsert(
                personIdBySource[key].flatMap({ persons[$0] }), report: &report,
                unchanged: { existing in
                    (input.personType == nil || input.personType == existing.personType)
                        && (input.firstName == nil || input.firstName == existing.firstName)
                        && (input.lastName == nil || input.lastName == existing.lastName)
                        && (input.displayName == nil || input.displayName == existing.displayName)
                        && (input.email == nil || input.email == existing.email)
                },
                create: store, update: { state, _ throws(CollabError) in try store(&state) }
            )
        }

        if let push = seed.push {
            let settings = PushSettings(id: accountId, apns: push.apns, fcm: push.fcm, simulatorDirectory: push.simulatorDirectory)
            try report.setting(changed: pushSettings[accountId] != settings) { () throws(CollabError) in
                try setPushSettings(settings, changes: &changes)
            }
        }

        if let jwt = seed.jwt {
            try jwt.validate()
            let current = jwtSettings[accountId]
            var settings = JWTValidationSettings(
                id: accountId, issuer: jwt.issuer, audience: jwt.audience, keys: jwt.keys ?? [], jwks: jwt.jwks,
                testTokenSecret: jwt.testTokenSecret ?? current?.testTokenSecret ?? context.ids.makeSecret(), cookieName: jwt.cookie
            )
            // Revocations are the server's own record, not the seed's: applying a seed keeps them.
            settings.revokedTokens = current?.revokedTokens
            try report.setting(changed: settings != current) {
                jwtSettings[accountId] = settings
                changes.put(settings)
            }
        }
    }

    /// The user whose stored hash a seed password must be checked against, if any.
    public func passwordHash(ofLoginName username: String) -> String? {
        user(loginName: username)?.passwordHash
    }
}

extension Seed.JWTSeed {
    /// HS256 secrets must be at least as long as the hash (RFC 7518, section 3.2).
    static let minimumSecretBytes = 32

    func validate() throws(CollabError) {
        let secrets = (keys ?? []).compactMap(\.hs256Secret) + [testTokenSecret].compactMap { $0 }
        for secret in secrets where secret.utf8.count < Self.minimumSecretBytes {
            throw .badRequest("seed: HS256 secrets must be at least \(Self.minimumSecretBytes) bytes long")
        }
        for key in keys ?? [] where key.hs256Secret == nil && key.rs256PublicKeyPEM == nil && key.es256PublicKeyPEM == nil {
            throw .badRequest("seed: a JWT key needs hs256Secret, rs256PublicKeyPEM or es256PublicKeyPEM")
        }
        if let cookie, !JWTValidationSettings.isValidCookieName(cookie) {
            throw .badRequest("seed: jwt.cookie must be a cookie name (1 to 64 letters, digits and !#$%&'*+-.^_`|~)")
        }
    }
}

extension AccountState {
    /// Creates an entry the account does not have, updates one that differs, and counts which it was.
    mutating func upsert<Entity>(
        _ existing: Entity?, report: inout SeedReport, unchanged: (Entity) -> Bool, create: (inout AccountState) throws(CollabError) -> Void,
        update: (inout AccountState, Entity) throws(CollabError) -> Void
    ) throws(CollabError) {
        guard let existing else {
            try create(&self)
            report.created += 1
            return
        }
        if unchanged(existing) {
            report.unchanged += 1
        } else {
            try update(&self, existing)
            report.updated += 1
        }
    }
}
