import Synchronization

/// The few things that span accounts: which account an account name, API key, username, session token
/// or client token belongs to, the account records for cross-account reads, and the GLOBAL configuration.
///
/// Everything else lives in one ``AccountState`` per account. Every shard holds a reference to the
/// directory and calls it while holding its own lock; the directory never calls back into a shard, so
/// its lock is always the innermost one and is held only for a dictionary lookup or update.
///
/// A shard changes the directory through ``DirectoryLog``: claims (a new username, API key, …) apply at
/// once so two accounts cannot take the same name concurrently, and are undone when the operation fails;
/// releases wait until the operation succeeded, so a failed operation never frees a name another
/// account could then take.
public final class Directory: Sendable {
    /// What a directory entry maps to an account.
    public enum Key: Hashable, Sendable {
        case accountName(String)
        case apiKey(String)
        case username(String)
        /// A login session or a one-time authentication token.
        case session(String)
        /// A started mobile client's token.
        case client(String)
    }

    struct Tables: Sendable {
        var owners: [Key: String] = [:]
        var accounts = IndexedTable<Account>(orders: [Indexes.accountById] + Indexes.accountOrders.values.sorted { $0.slot < $1.slot })
        var global = GlobalConfiguration()
    }

    private let tables = Mutex(Tables())

    /// An empty directory.
    public init() {}

    // MARK: lookups

    /// The account an entry belongs to.
    public func accountId(for key: Key) -> String? {
        tables.withLock { $0.owners[key] }
    }

    /// An account record.
    public func account(_ id: String) -> Account? {
        tables.withLock { $0.accounts[id] }
    }

    /// An account by name.
    public func account(named name: String) -> Account? {
        tables.withLock { tables in tables.owners[.accountName(name)].flatMap { tables.accounts[$0] } }
    }

    /// Every account (full resets, totals over the server).
    public var accounts: [Account] {
        tables.withLock { Array($0.accounts.values) }
    }

    /// The account records with their orders, as they are now: a copy (the rows are shared until the
    /// directory next changes an account), so a search over it holds no lock.
    var accountTable: IndexedTable<Account> {
        tables.withLock { $0.accounts }
    }

    /// How many accounts there are.
    public var accountCount: Int { tables.withLock { $0.accounts.count } }

    /// One of the accounts' ids, picked by `value`'s hash (seeded anew in each process): the same one
    /// for a value while the accounts stay the same, values spread over all of them; `nil` without
    /// accounts. Walks the ids without copying them (accounts are the operator's, a handful).
    public func accountId(spreading value: some Hashable) -> String? {
        tables.withLock { tables in
            let ids = tables.accounts.keys
            guard !ids.isEmpty else { return nil }
            let offset = Int(UInt(bitPattern: value.hashValue) % UInt(ids.count))
            return ids[ids.index(ids.startIndex, offsetBy: offset)]
        }
    }

    /// The GLOBAL configuration scope.
    public var globalConfiguration: GlobalConfiguration {
        tables.withLock { $0.global }
    }

    // MARK: changes (through a log)

    /// Takes `key` for `accountId`, or throws `conflict` when another account holds it.
    func claim(_ key: Key, for accountId: String, log: inout DirectoryLog, conflict: @autoclosure () -> CollabError) throws(CollabError) {
        // nil: newly claimed; true: another account's; false: already this account's.
        let taken: Bool? = tables.withLock { tables in
            if let owner = tables.owners[key] { return owner != accountId }
            tables.owners[key] = accountId
            return nil
        }
        switch taken {
        case nil: log.claims.append(key)
        case true?: throw conflict()
        // Already this account's: if the same operation released it (a reset that re-seeds), it stays.
        case false?: log.releases.remove(key)
        }
    }

    /// Records that `key` is free once the operation succeeds.
    func release(_ key: Key, log: inout DirectoryLog) {
        log.releases.insert(key)
    }

    /// Stores an account record (undone when the operation fails).
    func put(_ account: Account, log: inout DirectoryLog) {
        let previous = tables.withLock { tables in
            defer { tables.accounts[account.id] = account }
            return tables.accounts[account.id]
        }
        log.undo.append(.account(id: account.id, previous: previous))
    }

    /// Removes an account record once the operation succeeds.
    func removeAccount(_ id: String, log: inout DirectoryLog) {
        log.removedAccounts.append(id)
    }

    /// Replaces the GLOBAL configuration (undone when the operation fails).
    func setGlobal(_ configuration: GlobalConfiguration, log: inout DirectoryLog) {
        let previous = tables.withLock { tables in
            defer { tables.global = configuration }
            return tables.global
        }
        log.undo.append(.global(previous))
    }

    /// Makes a successful operation's releases take effect.
    public func commit(_ log: DirectoryLog) {
        guard !log.releases.isEmpty || !log.removedAccounts.isEmpty else { return }
        tables.withLock { tables in
            for key in log.releases { tables.owners[key] = nil }
            for id in log.removedAccounts { tables.accounts[id] = nil }
        }
    }

    /// Takes back what a failed operation claimed and stored.
    public func revert(_ log: DirectoryLog) {
        guard !log.claims.isEmpty || !log.undo.isEmpty else { return }
        tables.withLock { tables in
            for key in log.claims { tables.owners[key] = nil }
            for step in log.undo.reversed() {
                switch step {
                case .account(let id, let previous): tables.accounts[id] = previous
                case .global(let previous): tables.global = previous
                }
            }
        }
    }

    /// Registers loaded entries without a log (start-up, before any request).
    func load(_ key: Key, for accountId: String) {
        tables.withLock { $0.owners[key] = accountId }
    }

    func load(_ account: Account) {
        tables.withLock { $0.accounts[account.id] = account }
    }

    /// Removes an entry without a log (a change another replica made, see ``AccountState/applyReplicated(_:)``).
    func unload(_ key: Key) {
        tables.withLock { _ = $0.owners.removeValue(forKey: key) }
    }

    /// Removes an account record and its name without a log (another replica deleted the account).
    public func unloadAccount(_ id: String) {
        tables.withLock { tables in
            if let account = tables.accounts.removeValue(forKey: id), tables.owners[.accountName(account.name)] == id {
                tables.owners[.accountName(account.name)] = nil
            }
        }
    }

    /// Sets the GLOBAL configuration as loaded from storage (start-up only).
    public func load(_ global: GlobalConfiguration) {
        tables.withLock { $0.global = global }
    }
}

/// The directory changes one operation made, so they can be committed or reverted with it.
public struct DirectoryLog: Sendable {
    enum Undo: Sendable {
        case account(id: String, previous: Account?)
        case global(GlobalConfiguration)
    }

    var claims: [Directory.Key] = []
    var releases: Set<Directory.Key> = []
    var removedAccounts: [String] = []
    var undo: [Undo] = []

    public init() {}

    /// Whether the operation touched the directory at all.
    public var isEmpty: Bool { claims.isEmpty && releases.isEmpty && removedAccounts.isEmpty && undo.isEmpty }
}
