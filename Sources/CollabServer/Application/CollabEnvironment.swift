import CollabCore
import CollabPush
import CollabStore
import Logging
import Synchronization

/// The parts every surface of the server shares: state, clock, identifiers, auth helpers, journal. The
/// route handlers' view of the server; the consumers of the committed stream never hold it.
final class CollabEnvironment: Sendable {
    let configuration: ServerConfiguration
    let repository: StateRepository
    let clock: AdjustableClock
    let ids: EntityIDGenerator
    let hasher: PasswordHasher
    let credentials: CredentialCache
    let tokens: AccessTokenValidator
    let journal: RequestJournal
    /// Live events for WebSockets.
    let events: EventHub
    /// Co-browsing frames.
    let frames: FrameIngest
    /// Fault rules in force (`/_mock/v1/faults`).
    let faults: FaultRules
    /// The bytes of files shared in conversations.
    let files: FileStorage
    /// The base of absolute links.
    let publicURL: PublicURL
    /// The push pipeline (its outbox).
    let pushes: PushPipeline
    /// Work driven by the clock.
    let clockTasks: ClockDrivenTasks
    /// Stores mobile clients' activity for the other replicas of a cluster.
    let clientActivity: ClientActivityWriter
    /// The guessing limits on invitation tokens, one budget per account for every surface that takes a
    /// token (the mobile API's redemption, the Web API's `invitations/getAcceptLink`).
    let redemptions: RedemptionGuard
    /// Encoded Web API answers of accounts, kept per account while the account stays the same.
    let encodedBodies: EncodedBodies<Account>
    /// Co-browsing frames between cluster replicas, when this server is one.
    let frameRelay: FrameRelay?
    let logger: Logger
    /// The seed applied at start, re-applied by a control-API reset.
    let startupSeed: Seed
    private let startupHashes = Mutex<[String: String]>([:])

    /// The password hashes of the startup seed's users as stored right after start.
    var startupPasswordHashes: [String: String] { startupHashes.withLock { $0 } }

    init(
        configuration: ServerConfiguration, repository: StateRepository, parts: ServerParts, clockTasks: ClockDrivenTasks, clock: AdjustableClock,
        logger: Logger
    ) {
        self.configuration = configuration
        self.repository = repository
        self.events = parts.events
        self.frames = parts.frames
        self.files = parts.files
        self.publicURL = PublicURL(configuration: configuration)
        self.journal = parts.faults.journal
        self.faults = parts.faults.rules
        self.pushes = parts.pushes
        self.frameRelay = parts.relay
        self.clockTasks = clockTasks
        self.clientActivity = ClientActivityWriter(repository: repository, logger: logger)
        self.clock = clock
        self.redemptions = parts.redemptions
        self.credentials = parts.credentials
        self.encodedBodies = parts.encodedBodies
        self.ids = .system
        self.hasher = PasswordHasher(cost: configuration.passwordHashCost)
        self.tokens = AccessTokenValidator(clock: clock)
        self.startupSeed = configuration.seed ?? .defaultTenant
        self.logger = logger
    }

    /// A context for an operation happening now.
    var operation: OperationContext { OperationContext(now: clock.now(), ids: ids, limits: configuration.storedRecordLimits) }

    /// Reads an account's state. `nil` (a caller outside every account) is refused.
    func read<Result: Sendable>(
        account accountId: String?, _ body: (borrowing AccountState) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        try repository.read(account: try Self.required(accountId), body)
    }

    /// Reads the state of the caller's account.
    func read<Result: Sendable>(
        _ principal: Principal, _ body: (borrowing AccountState) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        try read(account: principal.accountId, body)
    }

    /// Changes an account's state durably; see ``StateRepository/write(account:_:)``.
    func write<Result: Sendable>(
        account accountId: String?, _ body: (inout AccountState, inout ChangeSet, OperationContext) throws(CollabError) -> Result
    ) async throws -> Result {
        let context = operation
        return try await repository.write(account: try Self.required(accountId)) { state, changes throws(CollabError) in
            try body(&state, &changes, context)
        }
    }

    /// Changes the state of the caller's account durably.
    func write<Result: Sendable>(
        _ principal: Principal, _ body: (inout AccountState, inout ChangeSet, OperationContext) throws(CollabError) -> Result
    ) async throws -> Result {
        try await write(account: principal.accountId, body)
    }

    /// Changes an account's state atomically and durably; see ``StateRepository/writeAtomically(account:_:)``.
    func writeAtomically<Result: Sendable>(
        account accountId: String?, _ body: (inout AccountState, inout ChangeSet, OperationContext) throws(CollabError) -> Result
    ) async throws -> Result {
        let context = operation
        return try await repository.writeAtomically(account: try Self.required(accountId)) { state, changes throws(CollabError) in
            try body(&state, &changes, context)
        }
    }

    private static func required(_ accountId: String?) throws(CollabError) -> String {
        guard let accountId else { throw .unauthorized("this operation needs a caller that belongs to an account") }
        return accountId
    }

    /// The account a directory entry (username, API key, token) belongs to.
    func accountId(for key: Directory.Key) -> String? {
        repository.directory.accountId(for: key)
    }

    /// Hashes the passwords a seed sets, skipping users whose stored hash already matches.
    func passwordHashes(for seed: Seed) async throws -> [String: String] {
        try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for (username, password) in seed.passwords {
                guard Limits.fits(password, Limits.passwordLength), !password.isEmpty else {
                    throw CollabError.badRequest("seed: the password of '\(username)' must be 1 to \(Limits.passwordLength) characters")
                }
                let existing = passwordHash(ofLoginName: username)
                group.addTask {
                    if let existing, try await self.hasher.verify(password, against: existing) { return (username, nil) }
                    return (username, try await self.hasher.hash(password))
                }
            }
            var hashes: [String: String] = [:]
            for try await (username, hash) in group {
                if let hash { hashes[username] = hash }
            }
            return hashes
        }
    }

    /// Applies the startup seed (or, with none configured, the default tenant to an empty store) and
    /// remembers the resulting password hashes for resets.
    /// - Returns: Whether the seed was applied (with none configured: whether the default tenant was made).
    func applyStartupSeed(explicit: Bool) async throws -> Bool {
        let applies = explicit || repository.isEmpty
        if applies {
            _ = try await apply(seed: startupSeed)
        }
        var hashes: [String: String] = [:]
        for (username, _) in startupSeed.passwords {
            if let hash = passwordHash(ofLoginName: username) { hashes[username] = hash }
        }
        startupHashes.withLock { $0 = hashes }
        return applies
    }

    /// Applies a seed idempotently and atomically.
    func apply(seed: Seed) async throws -> SeedReport {
        let faultRules = try checkedSeedFaults(seed)
        for (index, account) in seed.accounts.enumerated() {
            if let jwt = account.jwt {
                let place = "invalid seed: accounts[\(index)] ('\(account.name)').jwt"
                try await AccessTokenValidator.check(jwt.keys ?? [], jwks: jwt.jwks, place: place)
            }
            guard let push = account.push else { continue }
            do {
                try PushCredentialCheck.check(
                    PushSettings(id: account.name, apns: push.apns, fcm: push.fcm, simulatorDirectory: push.simulatorDirectory))
            } catch {
                throw CollabError(error.kind, "invalid seed: accounts[\(index)] ('\(account.name)').push: \(error.message)")
            }
        }
        let hashes = try await passwordHashes(for: seed)
        let context = operation
        let report = try await repository.writeAcross(accountNames: seed.accounts.map(\.name)) { shards, changes throws(CollabError) in
            try shards.apply(seed: seed, passwordHashes: hashes, context: context, changes: &changes)
        }
        try installSeedFaults(faultRules)
        return report
    }

    /// The stored hash of a user's password, wherever the user is.
    func passwordHash(ofLoginName username: String) -> String? {
        guard let accountId = accountId(for: .username(username)) else { return nil }
        return try? read(account: accountId) { $0.passwordHash(ofLoginName: username) }
    }
}
