/// Counts of what applying a seed did.
public struct SeedReport: Sendable, Codable, Equatable {
    public var created = 0
    public var updated = 0
    public var unchanged = 0
    public init() {}
}

extension CollabState {
    /// Applies a seed idempotently.
    ///
    /// Call it on a copy of the state (see the repository's atomic writes): a seed touches many entities
    /// and may fail half-way.
    /// - Parameter passwordHashes: New hashes by username, for users whose password must be (re)set;
    ///   users not listed keep their stored hash.
    public mutating func apply(
        seed: Seed, passwordHashes: [String: String], context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> SeedReport {
        var report = SeedReport()
        if let global = seed.global?.configuration {
            var merged = globalConfiguration.properties
            merged.merge(global) { _, new in new }
            if merged != globalConfiguration.properties {
                try setGlobalConfiguration(merged, changes: &changes)
                report.updated += 1
            } else {
                report.unchanged += 1
            }
        }
        for accountSeed in seed.accounts {
            try apply(accountSeed, passwordHashes: passwordHashes, context: context, changes: &changes, report: &report)
        }
        return report
    }

    private mutating func apply(
        _ seed: Seed.AccountSeed, passwordHashes: [String: String], context: OperationContext, changes: inout ChangeSet,
        report: inout SeedReport
    ) throws(CollabError) {
        let system = Principal.control
        var account: Account
        if let existing = self.account(named: seed.name) {
            account = existing
            var input = AccountInput(name: seed.name, configuration: seed.configuration, metadata: seed.metadata)
            input.configuration = seed.configuration ?? existing.configuration
            if input.configuration != existing.configuration || (seed.metadata != nil && seed.metadata != existing.metadata) {
                account = try updateAccount(id: existing.id, version: existing.version, input, for: system, context: context, changes: &changes)
                report.updated += 1
            } else {
                report.unchanged += 1
            }
        } else {
            account = try createAccount(AccountInput(name: seed.name, configuration: seed.configuration, metadata: seed.metadata), context: context, changes: &changes)
            report.created += 1
        }
        let accountId = account.id

        for keySeed in seed.apiKeys ?? [] {
            let input = ApiKeyInput(key: keySeed.key, name: keySeed.name ?? keySeed.key, description: keySeed.description, configuration: keySeed.configuration)
            if let existing = apiKey(presented: keySeed.key) {
                guard existing.accountId == accountId else { throw .conflict("seed: API key '\(keySeed.key)' belongs to another account") }
                if existing.name != input.name || existing.description != input.description || (input.configuration != nil && input.configuration != existing.configuration) {
                    _ = try updateApiKey(id: existing.id, version: existing.version, input, for: system, context: context, changes: &changes)
                    report.updated += 1
                } else {
                    report.unchanged += 1
                }
            } else {
                _ = try createApiKey(input, accountId: accountId, context: context, changes: &changes)
                report.created += 1
            }
        }

        for areaSeed in seed.namedAreas ?? [] {
            let input = NamedAreaInput(
                name: areaSeed.name ?? areaSeed.siteId, description: areaSeed.description, type: areaSeed.type, siteId: areaSeed.siteId,
                configuration: areaSeed.configuration
            )
            if let existing = namedArea(siteId: areaSeed.siteId, accountId: accountId) {
                if existing.name != input.name || existing.description != input.description || (input.type != nil && input.type != existing.type)
                    || (input.configuration != nil && input.configuration != existing.configuration) {
                    _ = try updateNamedArea(id: existing.id, version: existing.version, input, for: system, context: context, changes: &changes)
                    report.updated += 1
                } else {
                    report.unchanged += 1
                }
            } else {
                _ = try createNamedArea(input, accountId: accountId, context: context, changes: &changes)
                report.created += 1
            }
        }

        for userSeed in seed.users ?? [] {
            let input = UserInput(
                username: userSeed.username, email: userSeed.email, phone: userSeed.phone, teamId: userSeed.teamId,
                authorizationRole: userSeed.role ?? .registeredUser, displayName: userSeed.displayName, firstName: userSeed.firstName,
                lastName: userSeed.lastName
            )
            let newHash = passwordHashes[userSeed.username]
            if let existing = user(loginName: userSeed.username) {
                guard existing.accountId == accountId else { throw .conflict("seed: username '\(userSeed.username)' belongs to another account") }
                var changed = false
                if existing.email != input.email || existing.phone != input.phone || existing.teamId != input.teamId
                    || existing.authorizationRole != input.authorizationRole || existing.displayName != input.displayName
                    || existing.firstName != input.firstName || existing.lastName != input.lastName {
                    _ = try updateUser(id: existing.id, version: existing.version, input, for: system, context: context, changes: &changes)
                    changed = true
                }
                if let newHash {
                    _ = try setPassword(userId: existing.id, passwordHash: newHash, for: system, context: context, changes: &changes)
                    changed = true
                }
                if changed { report.updated += 1 } else { report.unchanged += 1 }
            } else {
                _ = try createUser(input, passwordHash: newHash, accountId: accountId, grantor: .superAdmin, context: context, changes: &changes)
                report.created += 1
            }
        }

        for personSeed in seed.persons ?? [] {
            let input = PersonInput(
                sourceId: personSeed.sourceId, personType: personSeed.personType, firstName: personSeed.firstName,
                lastName: personSeed.lastName, displayName: personSeed.displayName, email: personSeed.email
            )
            let key = PersonSourceKey(accountId: accountId, source: .virtual, sourceId: personSeed.sourceId)
            if let existing = personIdBySource[key].flatMap({ persons[$0] }) {
                let same = (input.personType == nil || input.personType == existing.personType) && (input.firstName == nil || input.firstName == existing.firstName)
                    && (input.lastName == nil || input.lastName == existing.lastName) && (input.displayName == nil || input.displayName == existing.displayName)
                    && (input.email == nil || input.email == existing.email)
                if same {
                    report.unchanged += 1
                    continue
                }
                report.updated += 1
            } else {
                report.created += 1
            }
            _ = try createOrUpdateVirtualPerson(input, accountId: accountId, context: context, changes: &changes)
        }

        if let push = seed.push {
            let settings = PushSettings(id: accountId, apns: push.apns, fcm: push.fcm, simulatorDirectory: push.simulatorDirectory)
            if pushSettings[accountId] != settings {
                try setPushSettings(settings, changes: &changes)
                report.updated += 1
            } else {
                report.unchanged += 1
            }
        }

        if let jwt = seed.jwt {
            try jwt.validate()
            let current = jwtSettings[accountId]
            let settings = JWTValidationSettings(
                id: accountId, issuer: jwt.issuer, audience: jwt.audience, keys: jwt.keys ?? [], jwks: jwt.jwks,
                testTokenSecret: jwt.testTokenSecret ?? current?.testTokenSecret ?? context.ids.makeSecret()
            )
            if settings != current {
                jwtSettings[accountId] = settings
                changes.put(settings)
                report.updated += 1
            } else {
                report.unchanged += 1
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
    }
}
