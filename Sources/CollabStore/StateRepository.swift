public import CollabCore
import HeapModule
import Synchronization

/// The server's working state in memory — one shard per account, each under its own lock, plus the
/// shared ``Directory`` — written through to a ``Store``.
///
/// Reads lock one shard and copy out what they need. Writes change one shard under its lock, submit
/// their changes to the group-commit writer in the same critical section (so the order on disk is the
/// order the shard changed in), and return only once the changes are durable: a 2xx always means
/// "stored". Entities are encoded by the writer, outside every lock. If storage fails, every later
/// write fails with `unavailable`.
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
        }

        let accountId: String
        let box: Mutex<Box>

        init(_ state: AccountState) {
            self.accountId = state.accountId
            self.box = Mutex(Box(state: state))
        }
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
    private let writer: GroupCommitWriter
    private let store: any Store
    let publish: @Sendable ([DomainEvent], [PushIntent]) -> Void
    /// Set when the store is a cluster's change log (``ChangeLog``): writes go through it, and the
    /// shards follow what the other replicas commit.
    let cluster: ClusterReplica?

    /// Loads the state from `store`.
    /// - Parameters:
    ///   - store: Where changes are written.
    ///   - timing: The intervals timed work counts from.
    ///   - publish: Receives the events and push intents of each write once it is durable, in commit order.
    public init(
        store: any Store, timing: Timing = Timing(), publish: @escaping @Sendable ([DomainEvent], [PushIntent]) -> Void = { _, _ in }
    ) async throws {
        self.store = store
        self.timing = timing
        self.publish = publish
        self.writer = GroupCommitWriter(store: store)
        let directory = Directory()
        self.directory = directory
        var accounts: [String: Account] = [:]
        var owned: [String: [StoredRecord]] = [:]
        let records: [StoredRecord]
        if let log = store as? any ChangeLog, (store as? PostgresStore)?.isCluster ?? true {
            let (loaded, sequence) = try await log.loadAllWithSequence()
            records = loaded
            cluster = ClusterReplica(log: log, sequence: sequence)
        } else {
            records = try await store.loadAll()
            cluster = nil
        }
        for record in records {
            switch record.kind {
            case .globalConfiguration: directory.load(try RecordCoding.decode(GlobalConfiguration.self, from: record))
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
            let shard = Shard(try AccountState.load(account: account, records: owned[id] ?? [], directory: directory))
            loaded[id] = shard
        }
        shards.withLock { $0 = loaded }
        for shard in loaded.values { shard.box.withLock { scheduleNext(&$0, accountId: shard.accountId) } }
    }

    /// Whether storage still accepts writes.
    public var isHealthy: Bool { writer.failure == nil }

    /// `nil` when storage can take writes right now, else why not (the writer failed, or the
    /// database does not answer).
    public func storageProblem() async -> String? {
        if let failure = writer.failure { return "storage failed (\(failure)); the server accepts no writes" }
        if let problem = clusterProblem() { return problem }
        return await store.checkHealth().map { "storage is unreachable: \($0)" }
    }

    /// Whether no account exists yet (the default tenant is seeded into an empty state).
    public var isEmpty: Bool { shards.withLock { $0.isEmpty } }

    /// The ids of every account.
    public var accountIds: [String] { shards.withLock { Array($0.keys) } }

    func shard(_ accountId: String) throws(CollabError) -> Shard {
        guard let shard = shards.withLock({ $0[accountId] }) else { throw .notFound("Account", accountId) }
        return shard
    }

    // MARK: one account

    /// Runs `body` against an account's shard.
    /// - Throws: `notFound` when the account does not exist, or what `body` throws.
    public func read<Result: Sendable>(
        account accountId: String, _ body: (borrowing AccountState) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        let shard = try shard(accountId)
        return try shard.box.withLock { box throws(CollabError) -> Result in try body(box.state) }
    }

    /// Changes an account's shard in memory only, for bookkeeping nothing needs to store (a client's last
    /// activity, which the idle expiry reads).
    public func touch<Result: Sendable>(account accountId: String, _ body: (inout AccountState) -> Result) throws(CollabError) -> Result {
        let shard = try shard(accountId)
        return shard.box.withLock { box in body(&box.state) }
    }

    /// Changes an account's shard and waits until the change is durable.
    ///
    /// `body` must check everything before it changes anything (the operations on ``AccountState`` do):
    /// when it throws, nothing it did is persisted and its directory claims are taken back. Use
    /// ``writeAtomically(account:_:)`` for multi-step changes.
    public func write<Result: Sendable>(
        account accountId: String, _ body: (inout AccountState, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        let shard = try shard(accountId)
        return try await commit(shard) { box throws(CollabError) in
            var changes = ChangeSet()
            let result = try self.logged(&box.state) { state throws(CollabError) in try body(&state, &changes) }
            return (result, changes)
        }
    }

    /// Changes a copy of an account's shard and swaps it in only if `body` succeeds, then waits until
    /// durable. Costs a copy of what `body` changes in that one account.
    public func writeAtomically<Result: Sendable>(
        account accountId: String, _ body: (inout AccountState, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        let shard = try shard(accountId)
        return try await commit(shard) { box throws(CollabError) in
            var copy = box.state
            var changes = ChangeSet()
            let result = try self.logged(&copy) { state throws(CollabError) in try body(&state, &changes) }
            box.state = copy
            return (result, changes)
        }
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
        if let cluster {
            return try await clusterCommit(cluster, .everything, accounts: []) { () throws(CollabError) in
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
                let account = state.account
                let shard = Shard(state)
                shard.box.withLock { scheduleNext(&$0, accountId: account.id) }
                shards.withLock { $0[shard.accountId] = shard }
                return ((account, result), changes)
            }
        }
        try checkWritable()
        var changes = ChangeSet()
        var state = try AccountState.createAccount(input, directory: directory, context: context, changes: &changes)
        let result: Result
        do {
            result = try body(&state, &changes)
        } catch {
            directory.revert(state.directoryLog)
            throw error
        }
        directory.commit(state.directoryLog)
        state.resetDirectoryLog()
        let account = state.account
        let shard = Shard(state)
        shards.withLock { $0[shard.accountId] = shard }
        return try await commit(shard) { _ throws(CollabError) in ((account, result), changes) }
    }

    /// Deletes an account and everything it owns, after `check` allowed it.
    public func deleteAccount(_ accountId: String, check: (borrowing AccountState) throws(CollabError) -> Void) async throws {
        let shard = try shard(accountId)
        try await commit(shard, scope: .everything) { box throws(CollabError) in
            try check(box.state)
            var changes = ChangeSet()
            try self.logged(&box.state) { state throws(CollabError) in state.removeAccountData(keepAccount: false, changes: &changes) }
            self.shards.withLock { _ = $0.removeValue(forKey: accountId) }
            return ((), changes)
        }
    }

    /// Runs `body` on every shard in turn (one lock at a time): super-admin listings and stats.
    public func readEach<Result: Sendable>(_ body: (borrowing AccountState) throws(CollabError) -> Result) throws(CollabError) -> [Result] {
        let all = shards.withLock { $0.values.sorted { $0.accountId < $1.accountId } }
        var results: [Result] = []
        for shard in all {
            results.append(try shard.box.withLock { box throws(CollabError) -> Result in try body(box.state) })
        }
        return results
    }

    /// The first account (in id order) whose shard satisfies `predicate`, one lock at a time: control-API
    /// lookups by a bare id (a device, a co-browsing session). Costs one lookup per account.
    public func firstAccount(where predicate: (borrowing AccountState) -> Bool) -> String? {
        let all = shards.withLock { $0.values.sorted { $0.accountId < $1.accountId } }
        return all.first { shard in shard.box.withLock { predicate($0.state) } }?.accountId
    }

    // MARK: several accounts at once

    /// Applies a change across accounts atomically: the shards of the accounts `names` refers to are
    /// locked (in id order), copied into a ``ShardSet``, changed by `body`, and swapped in — with the new
    /// accounts' shards — only if `body` succeeds. Costs the accounts it touches, not the whole state.
    public func writeAcross<Result: Sendable>(
        accountNames names: [String], _ body: (inout ShardSet, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        if let cluster {
            return try await clusterCommit(cluster, .everything, accounts: []) { () throws(CollabError) in
                // Looked up inside the cluster's lock, after catching up with the other replicas.
                let ids = Set(names.compactMap { directory.accountId(for: .accountName($0)) })
                let involved = try ids.sorted().map { id throws(CollabError) in try shard(id) }
                var outcome: (Result, ChangeSet)?
                try withLocks(involved[...], collected: [:]) { boxes throws(CollabError) in
                    let (result, changes, updated) = try changeAcross(boxes, body)
                    outcome = (result, changes)
                    return updated
                }
                guard let outcome else { throw CollabError(.unavailable, "the change across accounts did not run") }
                return outcome
            }
        }
        try checkWritable()
        let ids = Set(names.compactMap { directory.accountId(for: .accountName($0)) })
        let involved = try ids.sorted().map { id throws(CollabError) in try shard(id) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            do {
                try withLocks(involved[...], collected: [:]) { boxes throws(CollabError) in
                    let (result, changes, updated) = try changeAcross(boxes, body)
                    submit(changes, result: result, continuation: continuation)
                    return updated
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The core of ``writeAcross(accountNames:_:)``: runs `body` on copies of the locked shards and
    /// returns its result, its changes and the boxes to swap in (new accounts' shards are added).
    private func changeAcross<Result>(
        _ boxes: [String: Shard.Box], _ body: (inout ShardSet, inout ChangeSet) throws(CollabError) -> Result
    ) throws(CollabError) -> (Result, ChangeSet, [String: Shard.Box]) {
        var set = ShardSet(directory: directory, states: boxes.mapValues { $0.state })
        for id in set.states.keys { set.states[id]?.resetDirectoryLog() }
        var changes = ChangeSet()
        let result: Result
        do throws(CollabError) {
            result = try body(&set, &changes)
        } catch {
            for log in set.logs { directory.revert(log) }
            throw error
        }
        for log in set.logs { directory.commit(log) }
        var updated: [String: Shard.Box] = [:]
        for (id, var state) in set.states {
            state.resetDirectoryLog()
            if var box = boxes[id] {
                box.state = state
                scheduleNext(&box, accountId: id)
                updated[id] = box
            } else {
                let shard = Shard(state)
                shard.box.withLock { scheduleNext(&$0, accountId: id) }
                shards.withLock { $0[id] = shard }
            }
        }
        return (result, changes, updated)
    }

    /// Removes every account (a full reset): every shard is locked in turn and emptied.
    public func removeAll() async throws {
        if let cluster {
            try await clusterCommit(cluster, .everything, accounts: []) { () throws(CollabError) in ((), try removingAll()) }
            return
        }
        try checkWritable()
        let submitted = try removingAll()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            submit(submitted, result: (), continuation: continuation)
        }
    }

    /// Empties every shard and removes it; returns the changes to store.
    private func removingAll() throws(CollabError) -> ChangeSet {
        let all = shards.withLock { $0.values.sorted { $0.accountId < $1.accountId } }
        var changes = ChangeSet()
        for shard in all {
            shard.box.withLock { box in
                box.state.resetDirectoryLog()
                box.state.removeAccountData(keepAccount: false, changes: &changes)
                directory.commit(box.state.directoryLog)
                box.state.resetDirectoryLog()
            }
        }
        shards.withLock { shards in for shard in all { shards[shard.accountId] = nil } }
        var log = DirectoryLog()
        if !directory.globalConfiguration.properties.isEmpty {
            try AccountState.setGlobalConfiguration([:], directory: directory, log: &log, changes: &changes)
        }
        return changes
    }

    /// Locks `shards` one after another and runs `body` with all their boxes; the boxes `body` returns
    /// replace the locked ones.
    func withLocks(
        _ remaining: ArraySlice<Shard>, collected: [String: Shard.Box], _ body: ([String: Shard.Box]) throws(CollabError) -> [String: Shard.Box]
    ) throws(CollabError) {
        guard let first = remaining.first else {
            _ = try body(collected)
            return
        }
        var error: CollabError?
        first.box.withLock { box in
            var collected = collected
            collected[first.accountId] = box
            do throws(CollabError) {
                try withLocks(remaining.dropFirst(), collected: collected) { boxes throws(CollabError) in
                    let updated = try body(boxes)
                    if let mine = updated[first.accountId] { box = mine }
                    return updated
                }
            } catch let thrown {
                error = thrown
            }
        }
        if let error { throw error }
    }

    // MARK: timed work

    /// Runs the work that is due by `now` in every account that has some: `body` gets the shard and the
    /// due work items. Costs the accounts and items that are due, not the size of the state.
    public func runDueWork(now: Timestamp, _ body: (inout AccountState, inout ChangeSet) -> Void) async throws {
        // In a cluster one replica runs timed work, so it fires once.
        if let cluster, !(await cluster.log.holdsLeadership()) { return }
        let due: Set<String> = deadlines.withLock { heap in
            var accounts: Set<String> = []
            while let first = heap.min, first.at <= now {
                heap.removeMin()
                accounts.insert(first.accountId)
            }
            return accounts
        }
        for accountId in due.sorted() {
            guard let shard = try? shard(accountId) else { continue }
            try await commit(shard) { box throws(CollabError) in
                box.scheduled = nil
                var changes = ChangeSet()
                try self.logged(&box.state) { state throws(CollabError) in body(&state, &changes) }
                return ((), changes)
            }
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

    // MARK: committing

    func checkWritable() throws(CollabError) {
        if cluster != nil { return }
        if let failure = writer.failure {
            throw CollabError(.unavailable, "storage failed earlier and accepts no more writes: \(failure)")
        }
    }

    private func commit<Result: Sendable>(
        _ shard: Shard, scope: ChangeLogScope? = nil, _ body: (inout Shard.Box) throws(CollabError) -> (Result, ChangeSet)
    ) async throws -> Result {
        if let cluster {
            return try await clusterCommit(cluster, scope ?? .accounts([shard.accountId]), accounts: [shard.accountId]) { () throws(CollabError) in
                try shard.box.withLock { box throws(CollabError) in
                    let outcome = try body(&box)
                    scheduleNext(&box, accountId: shard.accountId)
                    return outcome
                }
            }
        }
        try checkWritable()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            do {
                try shard.box.withLock { box throws(CollabError) in
                    let (result, changes) = try body(&box)
                    scheduleNext(&box, accountId: shard.accountId)
                    submit(changes, result: result, continuation: continuation)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Submits `changes` (called under the changed shards' locks, so batches reach the writer in the
    /// order the shards changed) and resumes once they are durable.
    func submit<Result: Sendable>(_ changes: ChangeSet, result: Result, continuation: CheckedContinuation<Result, any Error>) {
        guard !changes.isEmpty else {
            continuation.resume(returning: result)
            return
        }
        if let cluster {
            // Snapshot restores change memory first; their changes then go through the log like any write.
            Task {
                do {
                    try await self.clusterCommit(cluster, .everything, accounts: []) { () throws(CollabError) in ((), changes) }
                    continuation.resume(returning: result)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            return
        }
        // Event-only writes go through the writer too, so events keep commit order.
        let events = changes.events
        let pushes = changes.pushes
        let publish = self.publish
        writer.submit(changes.changes) { error in
            if let error {
                continuation.resume(throwing: CollabError(.unavailable, "storage failed: \(error)"))
            } else {
                if !events.isEmpty || !pushes.isEmpty { publish(events, pushes) }
                continuation.resume(returning: result)
            }
        }
    }

    /// Waits for pending writes, then closes the store.
    public func close() async throws {
        await writer.waitUntilIdle()
        try await store.close()
    }
}
