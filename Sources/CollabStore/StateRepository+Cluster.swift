import CollabCore
import Foundation
import Synchronization

/// A cluster replica's following of the change log, its read barrier and its place among the replicas.
/// (Its writes take the repository's one commit path; see ``ClusterReplica``.)
extension StateRepository {
    /// Whether the state is one replica of a cluster sharing a database.
    public var isClusterReplica: Bool { replica != nil }

    /// The log sequence this replica started from (`nil` outside a cluster): its live event ids begin after it.
    public var clusterStartSequence: Int64? { replica?.startSequence }

    /// Follows the other replicas' changes until cancelled: wakes on the database's notifications and
    /// applies what the log holds beyond this replica's position.
    public func followCluster() async {
        guard let cluster = replica else { return }
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
        guard let cluster = replica else { return }
        let entries = try await cluster.log.entries(after: cluster.appliedSequence)
        applyLogged(entries, cluster)
    }

    /// Returns once everything committed before the call — by any replica — is applied here, so a request
    /// served after it sees every write acknowledged before it arrived (read-your-writes across replicas,
    /// with no sticky sessions). Concurrent callers share one read of the log per round.
    public func catchUpBarrier() async throws {
        guard let cluster = replica else { return }
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


    // MARK: following

    /// Rebuilds the shards of `accounts` that a failed write left stale, from the tables (the caller
    /// holds their locks).
    func rebuildStale(_ accounts: [String], scope: ChangeLogScope, _ cluster: ClusterReplica, _ transaction: any ChangeLogTransaction) async throws {
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
                    shard.withLock { box in box.state.unloadReplicaDirectoryEntries() }
                    shards.withLock { _ = $0.removeValue(forKey: accountId) }
                }
                directory.unloadAccount(accountId)
                cluster.stale.withLock { _ = $0.remove(accountId) }
                continue
            }
            let account = try RecordCoding.decode(Account.self, from: accountRecord)
            if let shard = try? shard(accountId) {
                shard.withLock { box in box.state.unloadReplicaDirectoryEntries() }
            }
            let state = try AccountState.load(account: account, records: records, directory: directory)
            let shard = Shard(state)
            shard.withLock { scheduleNext(&$0, accountId: accountId) }
            shards.withLock { $0[accountId] = shard }
            cluster.stale.withLock { _ = $0.remove(accountId) }
        }
    }

    // MARK: applying

    /// Applies log entries in sequence order and hands each to the sink: another replica's changes go
    /// into the shards and its live events to the connections; an entry this replica appended goes with
    /// the events and effects its write resolved (kept since the append, see ``ClusterReplica``).
    func applyLogged(_ entries: [LoggedEntry], _ cluster: ClusterReplica) {
        guard !entries.isEmpty else { return }
        // Decoded before the lock that orders the applying (an entry already applied is decoded for nothing).
        let decoder = JSONDecoder()
        let decoded = entries.map { logged in
            (logged, logged.origin == cluster.origin ? nil : try? decoder.decode(ChangeLogEntry.self, from: logged.body))
        }
        cluster.applied.withLock { applied in
            for (logged, entry) in decoded where logged.sequence > applied.sequence {
                var next = logged.sequence << CommittedEvent.clusterEventBits
                let batch: CommittedBatch
                if logged.origin == cluster.origin {
                    // Appended here: its records are in the shards already, its events and effects kept since
                    // the append (an entry whose commit reported a failure is read back, without effects).
                    var kept = applied.pending.removeValue(forKey: logged.sequence)
                    if kept == nil, let entry = try? decoder.decode(ChangeLogEntry.self, from: logged.body) {
                        kept = StagedCommit(events: entry.events, accountIds: entry.accounts)
                        kept?.deletedAccountIds = entry.deletedAccounts ?? []
                    }
                    let staged = kept ?? StagedCommit()
                    var ended = ReplicatedEffects()
                    ended.removedAccountIds = staged.deletedAccountIds
                    batch = CommittedBatch(
                        sequence: logged.sequence, accountIds: staged.accountIds, events: CommittedEvent.numbering(staged.events, from: &next),
                        effects: staged.effects, isLocal: true, endedConnections: ended
                    )
                } else {
                    guard let entry else {
                        cluster.broken.withLock { $0 = $0 ?? "the change log holds entry \(logged.sequence), which this build cannot read" }
                        return
                    }
                    batch = CommittedBatch(
                        sequence: logged.sequence, accountIds: entry.accounts, events: CommittedEvent.numbering(entry.events, from: &next),
                        effects: ResolvedEffects(), isLocal: false, endedConnections: apply(entry), clock: entry.clock
                    )
                }
                applied.sequence = logged.sequence
                cluster.sink.committed(batch)
            }
        }
    }

    /// Applies another replica's entry to the shards it names. A shard whose account data the entry
    /// removes without writing the account again goes; the parts let go of the accounts the entry names
    /// as deleted, as on the replica that committed it (an entry of an older build names none: there
    /// every shard that goes counts as deleted).
    private func apply(_ entry: ChangeLogEntry) -> ReplicatedEffects {
        var effects = ReplicatedEffects()
        var removed: Set<String> = []
        for change in entry.changes {
            switch change {
            case .put(let record) where record.kind == .globalConfiguration:
                if let global = try? RecordCoding.decode(GlobalConfiguration.self, from: record) { directory.load(global) }
            case .put(let record) where record.kind == .virtualClock:
                continue  // the entry's `clock` sets it
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
        }
        effects.removedAccountIds = entry.deletedAccounts ?? removed.sorted()
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
        shard.withLock { box in
            do {
                if try !box.state.applyReplicated(change, effects: &effects) { removed.insert(accountId) }
            } catch {
                // A record this build cannot read: rebuild the shard from the tables before its next write.
                _ = self.replica?.stale.withLock { $0.insert(accountId) }
            }
            scheduleNext(&box, accountId: accountId)
        }
    }
}

extension StateRepository {
    /// How long a replica keeps log entries it applied: a replica away longer must restart.
    public static let logRetentionSeconds = 600

    /// This replica's name in the log (`nil` outside a cluster).
    public var clusterOrigin: String? { replica?.origin }

    /// Keeps this replica announced under `url`, prunes the log while it leads, and stops taking writes
    /// if the log was pruned past what it applied (it was cut off longer than the retention). Runs until
    /// cancelled, then withdraws the announcement.
    public func maintainCluster(url: String, every interval: Duration = .seconds(5)) async {
        guard let cluster = replica else { return }
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
        guard let cluster = replica else { return [] }
        return try await cluster.log.replicaURLs(seenWithinSeconds: 30)
    }
}
