public import CollabCore
import HeapModule
import Synchronization

/// The server's working state in memory — one shard per account, each under its own lock, plus the
/// shared ``Directory`` — written through to storage, and the stream of what it committed.
///
/// Reads lock one shard and copy out what they need. A write changes one shard under its lock and,
/// still under it, has its effects resolved (``EffectResolver``: pushes with their tokens and keys,
/// webhook deliveries with their bodies, bot offers) and its commit staged; it returns once the commit
/// is durable and the batch has been handed to the ``CommitSink`` — a 2xx always means "stored", and
/// nothing after the commit reads the state again. Every write takes this one path; the difference
/// between a store of this process and a cluster's change log is behind ``Committer``.
///
/// Lock order: a shard's lock, then the directory's (innermost); the shard map's lock is only held for a
/// lookup. Operations on several shards (seeds, a full reset) lock them in account-id order.
public final class StateRepository: Sendable {
    /// Intervals the deadline queues count from (see ``DeadlineQueue``).
    public struct Timing: Sendable {
        /// How old a notification key gets before it is rotated, in milliseconds.
        public var keyRotationInterval: Int64
        /// How long a started client may stay silent before it is stopped, in milliseconds.
        public var clientIdleTimeout: Int64

        public init(keyRotationInterval: Int64 = 30 * 24 * 3_600_000, clientIdleTimeout: Int64 = 24 * 3_600_000) {
            self.keyRotationInterval = keyRotationInterval
            self.clientIdleTimeout = clientIdleTimeout
        }
    }

    final class Shard: Sendable {
        struct Box: Sendable {
            var state: AccountState
            /// The earliest deadline handed to the scheduler and not yet run.
            var scheduled: Timestamp?
            /// How often the lock was taken (see ``StateRepository/lockAcquisitions(account:)``): counted
            /// under the lock itself, so it costs no atomic operation.
            var acquisitions = 0
        }

        let accountId: String
        private let box: Mutex<Box>

        init(_ state: AccountState) {
            self.accountId = state.accountId
            self.box = Mutex(Box(state: state))
        }

        /// Runs `body` under the shard's lock.
        func withLock<Result, Failure: Error>(_ body: (inout Box) throws(Failure) -> Result) throws(Failure) -> Result {
            try box.withLock { box throws(Failure) -> Result in
                box.acquisitions &+= 1
                return try body(&box)
            }
        }

        /// The lock count, read without counting.
        var acquisitions: Int { box.withLock { $0.acquisitions } }
    }

    private struct AccountDeadline: Comparable, Sendable {
        var at: Timestamp
        var accountId: String
        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.at, lhs.accountId) < (rhs.at, rhs.accountId) }
    }

    /// Names, keys and tokens across accounts.
    public let directory: Directory
    public let timing: Timing
    let shards = Mutex<[String: Shard]>([:])
    private let deadlines = Mutex(Heap<AccountDeadline>())
    let resolver: EffectResolver
    let committer: any Committer
    /// Set when the store is a cluster's change log: the shards follow what the other replicas commit.
    let replica: ClusterReplica?
    /// The virtual clock's setting as storage held it at load (`nil`: never set, the system time).
    public let storedClock: ClockSetting?

    /// Loads the state from a store this process owns (memory, SQLite, a lone PostgreSQL).
    /// - Parameters:
    ///   - store: Where changes are written.
    ///   - timing: The intervals timed work counts from.
    ///   - resolver: Resolves each write's effects at commit.
    ///   - sink: Receives the committed stream.
    ///   - firstEventId: The first live event id (ids increase from it in commit order).
    public convenience init(
        store: any Store, timing: Timing = Timing(), resolver: EffectResolver = EffectResolver(), sink: any CommitSink = DiscardingCommitSink(),
        firstEventId: Int64 = 1
    ) async throws {
        let records = try await store.loadAll()
        try self.init(records: records, timing: timing, resolver: resolver) { _ in
            (LocalCommitter(store: store, sink: sink, firstEventId: firstEventId), nil)
        }
    }

    /// Loads the state as one replica of a cluster sharing `log`: writes go through the log, and the shards
    /// follow what the other replicas commit. Live event ids derive from the log's sequence (the same on
    /// every replica).
    public convenience init(
        replicaOf log: any ChangeLog, timing: Timing = Timing(), resolver: EffectResolver = EffectResolver(),
        sink: any CommitSink = DiscardingCommitSink()
    ) async throws {
        let (records, sequence) = try await log.loadAllWithSequence()
        try self.init(records: records, timing: timing, resolver: resolver) { _ in
            let replica = ClusterReplica(log: log, sequence: sequence, sink: sink)
            return (replica, replica)
        }
    }

    private init(
        records: [StoredRecord], timing: Timing, resolver: EffectResolver, committer make: (Directory) -> (any Committer, ClusterReplica?)
    ) throws {
        self.timing = timing
        self.resolver = resolver
        let directory = Directory()
        self.directory = directory
        (committer, replica) = make(directory)
        var accounts: [String: Account] = [:]
        var owned: [String: [StoredRecord]] = [:]
        var clock: ClockSetting?
        for record in records {
            switch record.kind {
            case .globalConfiguration: directory.load(try RecordCoding.decode(GlobalConfiguration.self, from: record))
            case .virtualClock: clock = try RecordCoding.decode(ClockSetting.self, from: record)
            case .account:
                let account = try RecordCoding.decode(Account.self, from: record)
                accounts[account.id] = account
            default:
                guard let accountId = record.accountId else { continue }
                owned[accountId, default: []].append(record)
            }
        }
        var loaded: [String: Shard] = [:]
        for (id, account) in accounts {
            loaded[id] = Shard(try AccountState.load(account: account, records: owned[id] ?? [], directory: directory))
        }
        storedClock = clock
        shards.withLock { $0 = loaded }
        for shard in loaded.values { shard.withLock { scheduleNext(&$0, accountId: shard.accountId) } }
    }

    /// Whether storage still accepts writes.
    public var isHealthy: Bool { committer.isHealthy }

    /// `nil` when storage can take writes right now, else why not (the writer failed, the database does
    /// not answer, or a replica fell behind).
    public func storageProblem() async -> String? {
        await committer.storageProblem()
    }

    /// Whether no account exists yet (the default tenant is seeded into an empty state).
    public var isEmpty: Bool { shards.withLock { $0.isEmpty } }

    /// The ids of every account.
    public var accountIds: [String] { shards.withLock { Array($0.keys) } }

    func shard(_ accountId: String) throws(CollabError) -> Shard {
        guard let shard = shards.withLock({ $0[accountId] }) else { throw .notFound("Account", accountId) }
        return shard
    }

    /// How many times the lock of an account's shard was taken since it was loaded (reads and writes
    /// alike): tests count what one request costs.
    public func lockAcquisitions(account accountId: String) throws(CollabError) -> Int {
        try shard(accountId).acquisitions
    }

    // MARK: one account

    /// Runs `body` against an account's shard.
    /// - Throws: `notFound` when the account does not exist, or what `body` throws.
    public func read<Result: Sendable>(
        account accountId: String, _ body: (borrowing AccountState) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        try shard(accountId).withLock { box throws(CollabError) -> Result in try body(box.state) }
    }

    /// Changes an account's shard in memory only, for bookkeeping nothing needs to store (a client's last
    /// activity, which the idle expiry reads).
    public func touch<Result: Sendable>(account accountId: String, _ body: (inout AccountState) -> Result) throws(CollabError) -> Result {
        try shard(accountId).withLock { box in body(&box.state) }
    }

    /// Changes an account's shard and waits until the change is durable.
    ///
    /// `body` must check everything before it changes anything (the operations on ``AccountState`` do):
    /// when it throws, nothing it did is persisted and its directory claims are taken back. Use
    /// ``writeAtomically(account:_:)`` for multi-step changes.
    public func write<Result: Sendable>(
        account accountId: String, _ body: (inout AccountState, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        try await commit(account: accountId) { box, stage throws(CollabError) in
            var changes = ChangeSet()
            let result = try self.logged(&box.state) { state throws(CollabError) in try body(&state, &changes) }
            stage(self.staged(changes, in: box.state))
            return result
        }
    }

    /// Changes a copy of an account's shard and swaps it in only if `body` succeeds, then waits until
    /// durable. Costs a copy of what `body` changes in that one account.
    public func writeAtomically<Result: Sendable>(
        account accountId: String, _ body: (inout AccountState, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        try await commit(account: accountId) { box, stage throws(CollabError) in
            var copy = box.state
            var changes = ChangeSet()
            let result = try self.logged(&copy) { state throws(CollabError) in try body(&state, &changes) }
            box.state = copy
            stage(self.staged(changes, in: box.state))
            return result
        }
    }

    /// The one path of a write within one account: the shard is looked up and locked inside the commit
    /// (on a replica, after catching up with the log), `body` changes it and stages its commit, and the
    /// shard's next deadline is handed to the scheduler.
    private func commit<Result: Sendable>(
        account accountId: String, scope: ChangeLogScope? = nil, _ body: (inout Shard.Box, CommitStage) throws(CollabError) -> Result
    ) async throws -> Result {
        _ = try shard(accountId)
        return try await committer.commit(scope ?? .accounts([accountId]), accounts: [accountId], in: self) { stage throws(CollabError) in
            let shard = try self.shard(accountId)
            return try shard.withLock { box throws(CollabError) in
                defer { self.scheduleNext(&box, accountId: accountId) }
                return try body(&box, stage)
            }
        }
    }

    /// An operation's changes as a commit, with its effects resolved against the state it left (called
    /// under the shard's lock).
    func staged(_ changes: ChangeSet, in state: borrowing AccountState) -> StagedCommit {
        StagedCommit(
            changes: changes.changes, events: resolver.named(changes.events, in: state), effects: resolver.resolve(changes, in: state),
            accountIds: [state.accountId]
        )
    }

    /// Runs `body` with a fresh directory log, committing the log when it succeeds and reverting it when
    /// it throws.
    private func logged<Result>(
        _ state: inout AccountState, _ body: (inout AccountState) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        state.resetDirectoryLog()
        do {
            let result = try body(&state)
            directory.commit(state.directoryLog)
            state.resetDirectoryLog()
            return result
        } catch {
            directory.revert(state.directoryLog)
            state.resetDirectoryLog()
            throw error
        }
    }

    // MARK: accounts

    /// Creates an account and its shard, then runs `body` on the new shard (an admin user, say); the
    /// whole creation is one durable batch, and when `body` throws nothing is created.
    public func createAccount<Result: Sendable>(
        _ input: AccountInput, context: OperationContext, then body: (inout AccountState, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> (Account, Result) {
        try await committer.commit(.everything, accounts: [], in: self) { stage throws(CollabError) in
            var changes = ChangeSet()
            var state = try AccountState.createAccount(input, directory: directory, context: context, changes: &changes)
            let result: Result
            do throws(CollabError) {
                result = try body(&state, &changes)
            } catch {
                directory.revert(state.directoryLog)
                throw error
            }
            directory.commit(state.directoryLog)
            state.resetDirectoryLog()
            let shard = Shard(state)
            let account = state.account
            shard.withLock { box in
                scheduleNext(&box, accountId: account.id)
                stage(staged(changes, in: box.state))
            }
            shards.withLock { $0[account.id] = shard }
            return (account, result)
        }
    }

    /// Deletes an account and everything it owns, after `check` allowed it.
    public func deleteAccount(_ accountId: String, check: (borrowing AccountState) throws(CollabError) -> Void) async throws {
        try await commit(account: accountId, scope: .everything) { box, stage throws(CollabError) in
            try check(box.state)
            var changes = ChangeSet()
            try self.logged(&box.state) { state throws(CollabError) in state.removeAccountData(keepAccount: false, changes: &changes) }
            self.shards.withLock { _ = $0.removeValue(forKey: accountId) }
            var staged = self.staged(changes, in: box.state)
            staged.deletedAccountIds = [accountId]
            stage(staged)
        }
    }

    /// Runs `body` on every shard in turn (one lock at a time): super-admin listings and stats.
    public func readEach<Result: Sendable>(_ body: (borrowing AccountState) throws(CollabError) -> Result) throws(CollabError) -> [Result] {
        let all = shards.withLock { $0.values.sorted { $0.accountId < $1.accountId } }
        var results: [Result] = []
        for shard in all {
            results.append(try shard.withLock { box throws(CollabError) -> Result in try body(box.state) })
        }
        return results
    }

    /// The first account (in id order) whose shard satisfies `predicate`, one lock at a time: control-API
    /// lookups by a bare id (a device, a co-browsing session). Costs one lookup per account.
    public func firstAccount(where predicate: (borrowing AccountState) -> Bool) -> String? {
        let all = shards.withLock { $0.values.sorted { $0.accountId < $1.accountId } }
        return all.first { shard in shard.withLock { predicate($0.state) } }?.accountId
    }

    // MARK: timed work

    /// Runs the work that is due by `now` in every account that has some: `body` gets the shard and the
    /// due work items. Costs the accounts and items that are due, not the size of the state.
    ///
    /// In a cluster one replica runs timed work as time passes (the leader), so it fires once without
    /// a transaction per replica. A caller that must see the work done before it answers (the control
    /// API moved the clock) passes `onAnyReplica`: a follower runs it too, and it still fires once,
    /// since each account's run commits under the account's cluster-wide lock after catching up with
    /// the log, and the work only acts on what the state still shows due (a call still ringing, a key
    /// still old): the second of two runs finds nothing left to do.
    ///
    /// Calls must not overlap on one replica: a run takes the due accounts off the queue before it
    /// commits their work, so a second run beside it would find nothing due and return before the work
    /// is done (``ClockDrivenTasks`` runs its ticks one at a time).
    public func runDueWork(now: Timestamp, onAnyReplica: Bool = false, _ body: (inout AccountState, inout ChangeSet) -> Void) async throws {
        if !onAnyReplica, await !committer.runsTimedWork() { return }
        let due: Set<String> = deadlines.withLock { heap in
            var accounts: Set<String> = []
            while let first = heap.min, first.at <= now {
                heap.removeMin()
                accounts.insert(first.accountId)
            }
            return accounts
        }
        var remaining = due.sorted()[...]
        while let accountId = remaining.first {
            do {
                try await commit(account: accountId) { box, stage throws(CollabError) in
                    box.scheduled = nil
                    var changes = ChangeSet()
                    try self.logged(&box.state) { state throws(CollabError) in body(&state, &changes) }
                    stage(self.staged(changes, in: box.state))
                }
            } catch let error as CollabError where error.kind == .notFound {
                // The account is gone: nothing to do.
            } catch {
                // A write that failed (a cluster's database gone) did not do the work, and the queue no
                // longer holds it: it goes back, due now, for this account and the ones not reached, so
                // the next run tries again instead of the work waiting for a restart.
                deadlines.withLock { heap in
                    for id in remaining { heap.insert(AccountDeadline(at: now, accountId: id)) }
                }
                throw error
            }
            remaining.removeFirst()
        }
    }

    /// When the earliest timed work of any account falls due.
    public var nextDeadline: Timestamp? { deadlines.withLock { $0.min?.at } }

    /// Hands the shard's earliest deadline to the scheduler when it is earlier than the one it has.
    func scheduleNext(_ box: inout Shard.Box, accountId: String) {
        guard let next = box.state.deadlines.next(keyRotationInterval: timing.keyRotationInterval, clientIdleTimeout: timing.clientIdleTimeout)
        else { return }
        if let scheduled = box.scheduled, scheduled <= next { return }
        box.scheduled = next
        deadlines.withLock { $0.insert(AccountDeadline(at: next, accountId: accountId)) }
    }

    /// Waits for pending writes, then closes the store.
    public func close() async throws {
        try await committer.close()
    }
}
