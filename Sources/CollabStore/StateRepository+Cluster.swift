public import CollabCore
import Foundation
import Synchronization

/// A replica's place in its cluster: the change log it writes through and follows, how far it has
/// applied it, and where applied entries go.
final class ClusterReplica: Sendable {
    /// What the server does with the log's entries (see ``StateRepository/attachCluster(_:)``). A class:
    /// function values kept in generic storage and read back on every entry get re-thunked by the
    /// optimizer on each read (see PushFaultHook), a reference does not.
    final class Hooks: Sendable {
        let entryApplied: @Sendable (_ sequence: Int64, _ events: [DomainEvent]) -> Void
        let committed: @Sendable (_ sequence: Int64, _ events: [DomainEvent], _ pushes: [PushIntent]) -> Void
        let clockChanged: @Sendable (ClockSetting) -> Void
        let connectionsEnded: @Sendable (ReplicatedEffects) -> Void

        init(_ hooks: ClusterHooks) {
            entryApplied = hooks.entryApplied
            committed = hooks.committed
            clockChanged = hooks.clockChanged
            connectionsEnded = hooks.connectionsEnded
        }

        /// Until the server attaches its own: nothing is published.
        init() {
            entryApplied = { _, _ in }
            committed = { _, _, _ in }
            clockChanged = { _ in }
            connectionsEnded = { _ in }
        }
    }

    let log: any ChangeLog
    /// This process's name in the log's `origin` column: entries it committed are already in its shards.
    let origin = UUID().uuidString
    /// The last sequence applied to the shards and published; entries apply under this lock, in order.
    let applied: Mutex<Int64>
    /// The sequence the replica started from (its event ids begin after it).
    let startSequence: Int64
    let hooks = Mutex(Hooks())
    /// Accounts whose shard may hold a change that never committed: rebuilt from the tables before
    /// their next write.
    let stale = Mutex<Set<String>>([])
    /// Group commit per account (see ``AccountWriteGate``).
    let gates = Mutex<[String: AccountWriteGate]>([:])
    /// Read barriers waiting for a catch-up (see ``StateRepository/catchUpBarrier()``).
    let barrier = Mutex(BarrierRounds())
    /// Set when a change spanning accounts failed after it changed memory: the replica must restart.
    let broken = Mutex<String?>(nil)

    init(log: any ChangeLog, sequence: Int64) {
        self.log = log
        self.applied = Mutex(sequence)
        self.startSequence = sequence
    }

    var appliedSequence: Int64 { applied.withLock { $0 } }

    /// The group-commit gate of an account's writes.
    func gate(for accountId: String) -> AccountWriteGate {
        gates.withLock { gates in
            if let gate = gates[accountId] { return gate }
            let gate = AccountWriteGate()
            gates[accountId] = gate
            return gate
        }
    }
}

/// The rounds of the read barrier: a round reads the log once for every request that arrived before it
/// started; requests arriving meanwhile wait for the next round.
struct BarrierRounds {
    var running = false
    var current: [CheckedContinuation<Void, any Error>] = []
    var next: [CheckedContinuation<Void, any Error>] = []
}

/// Hooks a cluster replica's server installs.
public struct ClusterHooks: Sendable {
    /// The live events of each log entry, in sequence order, on every replica (ids derive from `sequence`).
    public var entryApplied: @Sendable (_ sequence: Int64, _ events: [DomainEvent]) -> Void
    /// What this replica committed (every event, webhook-only ones too, and the pushes), once per cluster.
    public var committed: @Sendable (_ sequence: Int64, _ events: [DomainEvent], _ pushes: [PushIntent]) -> Void
    /// The virtual clock another replica set.
    public var clockChanged: @Sendable (ClockSetting) -> Void
    /// Sessions, users and accounts another replica's change ended: their live connections close here too.
    public var connectionsEnded: @Sendable (ReplicatedEffects) -> Void

    public init(
        entryApplied: @escaping @Sendable (Int64, [DomainEvent]) -> Void, committed: @escaping @Sendable (Int64, [DomainEvent], [PushIntent]) -> Void,
        clockChanged: @escaping @Sendable (ClockSetting) -> Void, connectionsEnded: @escaping @Sendable (ReplicatedEffects) -> Void
    ) {
        self.entryApplied = entryApplied
        self.committed = committed
        self.clockChanged = clockChanged
        self.connectionsEnded = connectionsEnded
    }
}

extension StateRepository {
    /// Whether the state is one replica of a cluster sharing a database.
    public var isClusterReplica: Bool { cluster != nil }

    /// The log sequence this replica started from (`nil` outside a cluster): its live event ids begin after it.
    public var clusterStartSequence: Int64? { cluster?.startSequence }

    /// Installs what the server does with log entries; call before serving.
    public func attachCluster(_ hooks: ClusterHooks) {
        cluster?.hooks.withLock { $0 = ClusterReplica.Hooks(hooks) }
    }

    /// Follows the other replicas' changes until cancelled: wakes on the database's notifications and
    /// applies what the log holds beyond this replica's position.
    public func followCluster() async {
        guard let cluster else { return }
        let (wakes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await cluster.log.follow { continuation.yield() } }
            group.addTask {
                for await _ in wakes {
                    try? await self.catchUp()
                }
            }
            await group.next()
            continuation.finish()
            group.cancelAll()
        }
    }

    /// Applies every entry committed so far (before a live connection resumes from an id another
    /// replica gave out, say).
    public func catchUp() async throws {
        guard let cluster else { return }
        let entries = try await cluster.log.entries(after: cluster.appliedSequence)
        applyLogged(entries, cluster)
    }

    /// Returns once everything committed before the call — by any replica — is applied here, so a request
    /// served after it sees every write acknowledged before it arrived (read-your-writes across replicas,
    /// with no sticky sessions). Concurrent callers share one read of the log per round.
    public func catchUpBarrier() async throws {
        guard let cluster else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let start: Bool = cluster.barrier.withLock { rounds in
                if rounds.running {
                    rounds.next.append(continuation)
                    return false
                }
                rounds.running = true
                rounds.current = [continuation]
                return true
            }
            if start { Task { await self.runBarrierRounds(cluster) } }
        }
    }

    private func runBarrierRounds(_ cluster: ClusterReplica) async {
        while true {
            var failure: (any Error)?
            do {
                try await catchUp()
            } catch {
                failure = error
            }
            // One runner at a time: it stops in the same step that lets the next caller start another,
            // so every waiter is answered by a read that started after it arrived.
            let (waiters, more): ([CheckedContinuation<Void, any Error>], Bool) = cluster.barrier.withLock { rounds in
                let done = rounds.current
                rounds.current = rounds.next
                rounds.next = []
                if rounds.current.isEmpty { rounds.running = false }
                return (done, !rounds.current.isEmpty)
            }
            for waiter in waiters {
                if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
            }
            guard more else { return }
        }
    }

    /// Why this replica cannot take writes, if it cannot (for `/readyz`).
    func clusterProblem() -> String? {
        cluster?.broken.withLock { $0 }
    }

    /// Sets the virtual clock on every replica: an entry of its own in the log.
    public func shareClock(_ setting: ClockSetting) async throws {
        guard let cluster else { return }
        try await clusterCommit(cluster, .everything, accounts: [], clock: setting) { () throws(CollabError) in ((), ChangeSet()) }
    }

    // MARK: writing

    /// Runs `mutate` inside a cluster write: with the scope's locks held, after catching up with the
    /// log (and rebuilding shards a failed write left stale), then appends its changes to the log and
    /// commits. Publishes once committed.
    func clusterCommit<Result: Sendable>(
        _ cluster: ClusterReplica, _ scope: ChangeLogScope, accounts: [String], clock: ClockSetting? = nil,
        _ mutate: () throws(CollabError) -> (Result, ChangeSet)
    ) async throws -> Result {
        if let problem = cluster.broken.withLock({ $0 }) { throw CollabError(.unavailable, problem) }
        if case .accounts(let ids) = scope, ids.count == 1, accounts == ids, clock == nil {
            return try await batchedCommit(cluster, accountId: ids[0], mutate)
        }
        let mutated = Mutex(false)
        let outcome: (Result, ChangeSet, Int64?, [LoggedEntry])
        do {
            outcome = try await cluster.log.write(scope) { transaction in
                try await self.rebuildStale(accounts, scope: scope, cluster, transaction)
                self.applyLogged(try await transaction.entries(after: cluster.appliedSequence), cluster)
                let (result, changes) = try mutate()
                guard !changes.changes.isEmpty || !changes.events.isEmpty || clock != nil else { return (result, changes, nil, []) }
                mutated.withLock { $0 = true }
                let (sequence, missing) = try await self.append(changes, accounts: accounts, clock: clock, cluster, transaction)
                return (result, changes, sequence, missing)
            }
        } catch {
            if mutated.withLock({ $0 }) { markStale(accounts, scope: scope, cluster) }
            throw Self.unavailable(error)
        }
        let (result, changes, sequence, missing) = outcome
        publishCommitted(changes, sequence: sequence, missing: missing, cluster)
        return result
    }

    /// Writes `changes` and appends their log entry (inside the write's transaction).
    private func append(
        _ changes: ChangeSet, accounts: [String], clock: ClockSetting?, _ cluster: ClusterReplica, _ transaction: any ChangeLogTransaction
    ) async throws -> (sequence: Int64, missing: [LoggedEntry]) {
        var touched = Set(accounts)
        for change in changes.changes {
            switch change {
            case .put(let entity): if let id = entity.storageAccountId { touched.insert(id) }
            case .deleteAccountData(let id): touched.insert(id)
            case .delete: break
            }
        }
        let entry = ChangeLogEntry(
            accounts: touched.sorted(), changes: changes.changes.map(ReplicatedChange.init), events: changes.events.filter { !$0.isWebhookOnly },
            clock: clock
        )
        let body = try JSONEncoder().encode(entry)
        return try await transaction.append(changes.changes, entry: body, origin: cluster.origin) { cluster.appliedSequence }
    }

    /// Once committed: the entry's live events in log order with what other replicas committed before
    /// it, then every event and push to this replica's observers and push pipeline. `sequence` is `nil`
    /// when nothing was stored (pushes without records still go out).
    private func publishCommitted(_ changes: ChangeSet, sequence: Int64?, missing: [LoggedEntry], _ cluster: ClusterReplica) {
        guard let sequence else {
            if !changes.pushes.isEmpty { publish([], changes.pushes) }
            return
        }
        applyLogged(missing, cluster, own: (sequence, changes.events.filter { !$0.isWebhookOnly }))
        cluster.hooks.withLock { $0 }.committed(sequence, changes.events, changes.pushes)
    }

    /// A write within one account, committed in a batch with the account's other writes that arrive
    /// meanwhile (see ``AccountWriteGate``): one transaction, one lock, one log entry for all of them.
    private func batchedCommit<Result: Sendable>(
        _ cluster: ClusterReplica, accountId: String, _ mutate: () throws(CollabError) -> (Result, ChangeSet)
    ) async throws -> Result {
        let gate = cluster.gate(for: accountId)
        switch await gate.arrive() {
        case .failed(let error):
            throw Self.unavailable(error)
        case .joiner:
            switch await gate.joinAndWait(mutate) {
            case .success(let result): return result
            case .failure(let error): throw Self.unavailable(error)
            }
        case .leader:
            let progress = BatchProgress<Result>()
            do {
                let (sequence, missing, batch): (Int64?, [LoggedEntry], ChangeSet) = try await cluster.log.write(.accounts([accountId])) { transaction in
                    try await self.rebuildStale([accountId], scope: .accounts([accountId]), cluster, transaction)
                    self.applyLogged(try await transaction.entries(after: cluster.appliedSequence), cluster)
                    var own = ChangeSet()
                    do throws(CollabError) {
                        let (result, changes) = try mutate()
                        progress.own.withLock { $0 = .success(result) }
                        own = changes
                    } catch {
                        progress.own.withLock { $0 = .failure(error) }
                    }
                    progress.opened.withLock { $0 = true }
                    await gate.open(with: own)
                    let batch = await gate.close()
                    guard !batch.changes.isEmpty || !batch.events.isEmpty else { return (nil, [], batch) }
                    progress.mutated.withLock { $0 = true }
                    let (sequence, missing) = try await self.append(batch, accounts: [accountId], clock: nil, cluster, transaction)
                    return (sequence, missing, batch)
                }
                publishCommitted(batch, sequence: sequence, missing: missing, cluster)
                gate.finish(nil, opened: true)
            } catch {
                if progress.mutated.withLock({ $0 }) { markStale([accountId], scope: .accounts([accountId]), cluster) }
                let failure = Self.unavailable(error)
                gate.finish(failure, opened: progress.opened.withLock { $0 })
                throw failure
            }
            switch progress.own.withLock({ $0 }) {
            case .success(let result)?: return result
            case .failure(let error)?: throw error
            case nil: throw CollabError(.unavailable, "the write did not run")
            }
        }
    }

    /// A storage failure as the typed error a request answers with (503), or the operation's own error.
    static func unavailable(_ error: any Error) -> CollabError {
        if let error = error as? CollabError { return error }
        return CollabError(.unavailable, "storage failed: \(error)")
    }

    private func markStale(_ accounts: [String], scope: ChangeLogScope, _ cluster: ClusterReplica) {
        switch scope {
        case .accounts:
            cluster.stale.withLock { $0.formUnion(accounts) }
        case .everything:
            cluster.stale.withLock { $0.formUnion(accountIds) }
            if accounts.isEmpty {
                cluster.broken.withLock { $0 = $0 ?? "a change across accounts failed after changing memory; restart this replica" }
            }
        }
    }

    /// Rebuilds the shards of `accounts` that a failed write left stale, from the tables (the caller
    /// holds their locks).
    private func rebuildStale(_ accounts: [String], scope: ChangeLogScope, _ cluster: ClusterReplica, _ transaction: any ChangeLogTransaction) async throws {
        let due: [String] = cluster.stale.withLock { stale in
            let due: [String]
            switch scope {
            case .accounts: due = accounts.filter { stale.contains($0) }
            case .everything: due = Array(stale)
            }
            return due
        }
        for accountId in due.sorted() {
            // The entries applied next may repeat what the tables already hold: applying is idempotent.
            let records = try await transaction.records(account: accountId)
            guard let accountRecord = records.first(where: { $0.kind == .account }) else {
                if let shard = try? shard(accountId) {
                    shard.box.withLock { box in box.state.unloadReplicaDirectoryEntries() }
                    shards.withLock { _ = $0.removeValue(forKey: accountId) }
                }
                directory.unloadAccount(accountId)
                cluster.stale.withLock { _ = $0.remove(accountId) }
                continue
            }
            let account = try RecordCoding.decode(Account.self, from: accountRecord)
            if let shard = try? shard(accountId) {
                shard.box.withLock { box in box.state.unloadReplicaDirectoryEntries() }
            }
            let state = try AccountState.load(account: account, records: records, directory: directory)
            let shard = Shard(state)
            shard.box.withLock { scheduleNext(&$0, accountId: accountId) }
            shards.withLock { $0[accountId] = shard }
            cluster.stale.withLock { _ = $0.remove(accountId) }
        }
    }

    // MARK: following

    /// Applies log entries in sequence order: another replica's changes go into the shards; every
    /// entry's live events go to the connections. `own` is the entry this replica just committed.
    func applyLogged(_ entries: [LoggedEntry], _ cluster: ClusterReplica, own: (sequence: Int64, events: [DomainEvent])? = nil) {
        guard !entries.isEmpty || own != nil else { return }
        let hooks = cluster.hooks.withLock { $0 }
        // Decoded before the lock that orders the applying (an entry already applied is decoded for nothing).
        let decoder = JSONDecoder()
        let decoded = entries.map { logged in (logged, try? decoder.decode(ChangeLogEntry.self, from: logged.body)) }
        cluster.applied.withLock { applied in
            for (logged, entry) in decoded where logged.sequence > applied {
                guard let entry else {
                    cluster.broken.withLock { $0 = $0 ?? "the change log holds entry \(logged.sequence), which this build cannot read" }
                    return
                }
                if logged.origin != cluster.origin {
                    let effects = apply(entry)
                    if !effects.isEmpty { hooks.connectionsEnded(effects) }
                }
                if let clock = entry.clock, logged.origin != cluster.origin { hooks.clockChanged(clock) }
                applied = logged.sequence
                if !entry.events.isEmpty { hooks.entryApplied(logged.sequence, entry.events) }
            }
            if let own, own.sequence > applied {
                applied = own.sequence
                if !own.events.isEmpty { hooks.entryApplied(own.sequence, own.events) }
            }
        }
    }

    /// Applies another replica's entry to the shards it names.
    private func apply(_ entry: ChangeLogEntry) -> ReplicatedEffects {
        var effects = ReplicatedEffects()
        var removed: Set<String> = []
        for change in entry.changes {
            switch change {
            case .put(let record) where record.kind == .globalConfiguration:
                if let global = try? RecordCoding.decode(GlobalConfiguration.self, from: record) { directory.load(global) }
            case .put(let record):
                guard let accountId = record.accountId else { continue }
                if record.kind == .account { removed.remove(accountId) }
                applyToShard(accountId, change, record: record, removed: &removed, effects: &effects)
            case .deleteAccountData(let accountId):
                applyToShard(accountId, change, record: nil, removed: &removed, effects: &effects)
            case .delete:
                for accountId in entry.accounts { applyToShard(accountId, change, record: nil, removed: &removed, effects: &effects) }
            }
        }
        for accountId in removed.sorted() {
            shards.withLock { _ = $0.removeValue(forKey: accountId) }
            directory.unloadAccount(accountId)
            effects.removedAccountIds.append(accountId)
        }
        return effects
    }

    private func applyToShard(
        _ accountId: String, _ change: ReplicatedChange, record: StoredRecord?, removed: inout Set<String>, effects: inout ReplicatedEffects
    ) {
        let shard: Shard
        if let existing = shards.withLock({ $0[accountId] }) {
            shard = existing
        } else {
            // A new account: its record comes first in the entry that created it.
            guard let record, record.kind == .account, let account = try? RecordCoding.decode(Account.self, from: record) else { return }
            shard = Shard(AccountState.replica(of: account, directory: directory))
            shards.withLock { $0[accountId] = shard }
        }
        shard.box.withLock { box in
            do {
                if try !box.state.applyReplicated(change, effects: &effects) { removed.insert(accountId) }
            } catch {
                // A record this build cannot read: rebuild the shard from the tables before its next write.
                _ = self.cluster?.stale.withLock { $0.insert(accountId) }
            }
            scheduleNext(&box, accountId: accountId)
        }
    }
}

extension StateRepository {
    /// How long a replica keeps log entries it applied: a replica away longer must restart.
    public static let logRetentionSeconds = 600

    /// This replica's name in the log (`nil` outside a cluster).
    public var clusterOrigin: String? { cluster?.origin }

    /// Keeps this replica announced under `url`, prunes the log while it leads, and stops taking writes
    /// if the log was pruned past what it applied (it was cut off longer than the retention). Runs until
    /// cancelled, then withdraws the announcement.
    public func maintainCluster(url: String, every interval: Duration = .seconds(5)) async {
        guard let cluster else { return }
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            do {
                try await cluster.log.announce(origin: cluster.origin, url: url)
                let floor = try await cluster.log.floor()
                if cluster.appliedSequence < floor {
                    try await catchUp()
                    if cluster.appliedSequence < floor {
                        cluster.broken.withLock {
                            $0 = $0 ?? "this replica fell behind the change log's retained history (\(Self.logRetentionSeconds) s); restart it"
                        }
                    }
                }
                if ContinuousClock.now - lastPrune > .seconds(60), await cluster.log.holdsLeadership() {
                    lastPrune = ContinuousClock.now
                    _ = try await cluster.log.prune(olderThanSeconds: Self.logRetentionSeconds)
                }
            } catch {
                // The database is away: /readyz says so; try again next round.
            }
            try? await Task.sleep(for: interval)
        }
        try? await cluster.log.withdraw(origin: cluster.origin)
    }

    /// The replicas announced recently (this one included), for cluster-wide reads.
    public func clusterReplicas() async throws -> [(origin: String, url: String)] {
        guard let cluster else { return [] }
        return try await cluster.log.replicaURLs(seenWithinSeconds: 30)
    }
}

/// What a batch leader's transaction did, readable after it ends (whether it failed or not).
final class BatchProgress<Result: Sendable>: Sendable {
    let own = Mutex<Swift.Result<Result, CollabError>?>(nil)
    let opened = Mutex(false)
    let mutated = Mutex(false)
}
