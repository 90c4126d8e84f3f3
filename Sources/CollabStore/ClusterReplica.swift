import CollabCore
import Foundation
import Synchronization

/// The commit path of one replica of a cluster sharing a PostgreSQL change log.
///
/// A write runs inside a database transaction that holds its scope's locks: the replica first catches up
/// with the log (and rebuilds shards a failed write left stale), then runs the operation on its shards
/// exactly as a lone process would, appends one log entry and commits. Writes to one account that
/// arrive meanwhile are batched into the next transaction (``AccountWriteGate``). Once committed, the
/// entry reaches the sink in sequence order with the entries other replicas committed before it (see
/// ``StateRepository/applyLogged(_:_:)``), with the effects this replica resolved: effects run once per
/// cluster, where the write committed.
final class ClusterReplica: Committer {
    /// How far the replica has applied the log, and the entries it appended whose commit it has not yet
    /// handed to the sink (with their events and effects, which the log does not carry).
    struct Applied {
        var sequence: Int64
        var pending: [Int64: StagedCommit] = [:]
    }

    let log: any ChangeLog
    let sink: any CommitSink
    /// This process's name in the log's `origin` column: entries it committed are already in its shards.
    let origin = UUID().uuidString
    /// Entries apply and reach the sink under this lock, in sequence order.
    let applied: Mutex<Applied>
    /// The sequence the replica started from (its event ids begin after it).
    let startSequence: Int64
    /// Accounts whose shard may hold a change that never committed: rebuilt from the tables before
    /// their next write.
    let stale = Mutex<Set<String>>([])
    /// Group commit per account (see ``AccountWriteGate``).
    let gates = Mutex<[String: AccountWriteGate]>([:])
    /// Read barriers waiting for a catch-up (see ``StateRepository/catchUpBarrier()``).
    let barrier = Mutex(BarrierRounds())
    /// Set when a change spanning accounts failed after it changed memory: the replica must restart.
    let broken = Mutex<String?>(nil)

    init(log: any ChangeLog, sequence: Int64, sink: any CommitSink) {
        self.log = log
        self.sink = sink
        self.applied = Mutex(Applied(sequence: sequence))
        self.startSequence = sequence
        sink.opened(at: CommitPosition(sequence: sequence, nextEventId: (sequence + 1) << CommittedEvent.clusterEventBits))
    }

    var appliedSequence: Int64 { applied.withLock { $0.sequence } }

    /// The group-commit gate of an account's writes.
    func gate(for accountId: String) -> AccountWriteGate {
        gates.withLock { gates in
            if let gate = gates[accountId] { return gate }
            let gate = AccountWriteGate()
            gates[accountId] = gate
            return gate
        }
    }

    // MARK: Committer

    var isHealthy: Bool { true }

    func storageProblem() async -> String? {
        if let problem = broken.withLock({ $0 }) { return problem }
        return await log.checkHealth().map { "storage is unreachable: \($0)" }
    }

    func runsTimedWork() async -> Bool {
        await log.holdsLeadership()
    }

    func close() async throws {
        try await log.close()
    }

    func commit<Result: Sendable>(
        _ scope: ChangeLogScope, accounts: [String], in repository: StateRepository, _ operation: (CommitStage) throws(CollabError) -> Result
    ) async throws -> Result {
        if let problem = broken.withLock({ $0 }) { throw CollabError(.unavailable, problem) }
        if case .accounts(let ids) = scope, ids.count == 1, accounts == ids {
            return try await batchedCommit(accountId: ids[0], in: repository, operation)
        }
        let mutated = Mutex(false)
        let appended = Mutex<Int64?>(nil)
        let outcome: (Result, [LoggedEntry])
        do {
            outcome = try await log.write(scope) { transaction in
                try await repository.rebuildStale(accounts, scope: scope, self, transaction)
                repository.applyLogged(try await transaction.entries(after: appliedSequence), self)
                let (result, staged) = try Self.run(operation)
                guard !staged.isEmpty else { return (result, []) }
                mutated.withLock { $0 = true }
                return (result, try await append(staged, accounts: accounts, transaction, appended: appended))
            }
        } catch {
            forget(appended)
            if mutated.withLock({ $0 }) { markStale(accounts, scope: scope, in: repository) }
            throw Self.unavailable(error)
        }
        repository.applyLogged(outcome.1, self)
        return outcome.0
    }

    /// Runs an operation, keeping what it stages.
    private static func run<Result>(_ operation: (CommitStage) throws(CollabError) -> Result) throws(CollabError) -> (Result, StagedCommit) {
        let staged = Mutex(StagedCommit())
        let result = try operation(CommitStage { commit in staged.withLock { $0 = commit } })
        return (result, staged.withLock { $0 })
    }

    /// A write within one account, committed in a batch with the account's other writes that arrive
    /// meanwhile (see ``AccountWriteGate``): one transaction, one lock, one log entry for all of them.
    private func batchedCommit<Result: Sendable>(
        accountId: String, in repository: StateRepository, _ operation: (CommitStage) throws(CollabError) -> Result
    ) async throws -> Result {
        let gate = gate(for: accountId)
        switch await gate.arrive() {
        case .failed(let error):
            throw Self.unavailable(error)
        case .joiner:
            switch await gate.joinAndWait({ () throws(CollabError) in try Self.run(operation) }) {
            case .success(let result): return result
            case .failure(let error): throw Self.unavailable(error)
            }
        case .leader:
            let progress = BatchProgress<Result>()
            let appended = Mutex<Int64?>(nil)
            do {
                let entries: [LoggedEntry] = try await log.write(.accounts([accountId])) { transaction in
                    try await repository.rebuildStale([accountId], scope: .accounts([accountId]), self, transaction)
                    repository.applyLogged(try await transaction.entries(after: appliedSequence), self)
                    var own = StagedCommit()
                    do throws(CollabError) {
                        let (result, staged) = try Self.run(operation)
                        progress.own.withLock { $0 = .success(result) }
                        own = staged
                    } catch {
                        progress.own.withLock { $0 = .failure(error) }
                    }
                    progress.opened.withLock { $0 = true }
                    await gate.open(with: own)
                    let batch = await gate.close()
                    guard !batch.isEmpty else { return [] }
                    progress.mutated.withLock { $0 = true }
                    return try await append(batch, accounts: [accountId], transaction, appended: appended)
                }
                repository.applyLogged(entries, self)
                gate.finish(nil, opened: true)
            } catch {
                forget(appended)
                if progress.mutated.withLock({ $0 }) { markStale([accountId], scope: .accounts([accountId]), in: repository) }
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

    /// Writes a staged commit's records and appends its log entry (inside the write's transaction), and
    /// keeps its events and effects for the sink until the entry is applied.
    /// - Returns: The entries other replicas committed since this replica caught up, then its own.
    private func append(
        _ staged: StagedCommit, accounts: [String], _ transaction: any ChangeLogTransaction, appended: borrowing Mutex<Int64?>
    ) async throws -> [LoggedEntry] {
        var touched = Set(accounts).union(staged.accountIds)
        for change in staged.changes {
            switch change {
            case .put(let entity): if let id = entity.storageAccountId { touched.insert(id) }
            case .deleteAccountData(let id): touched.insert(id)
            case .delete: break
            }
        }
        let entry = ChangeLogEntry(
            accounts: touched.sorted(), changes: staged.changes.map(ReplicatedChange.init), events: staged.events.filter { !$0.isWebhookOnly },
            clock: staged.clock, deletedAccounts: staged.deletedAccountIds
        )
        let body = try JSONEncoder().encode(entry)
        let (sequence, missing) = try await transaction.append(staged.changes, entry: body, origin: origin) { [self] in appliedSequence }
        // Registered before the commit makes the entry visible, so a catch-up that reads it finds it.
        applied.withLock { $0.pending[sequence] = staged }
        appended.withLock { $0 = sequence }
        return missing + [LoggedEntry(sequence: sequence, origin: origin, body: body)]
    }

    /// Drops what a failed transaction appended (if the entry did commit after all, a catch-up applies it
    /// without its effects: the write was answered with an error).
    private func forget(_ appended: borrowing Mutex<Int64?>) {
        guard let sequence = appended.withLock({ $0 }) else { return }
        applied.withLock { _ = $0.pending.removeValue(forKey: sequence) }
    }

    /// A storage failure as the typed error a request answers with (503), or the operation's own error.
    static func unavailable(_ error: any Error) -> CollabError {
        if let error = error as? CollabError { return error }
        return CollabError(.unavailable, "storage failed: \(error)")
    }

    private func markStale(_ accounts: [String], scope: ChangeLogScope, in repository: StateRepository) {
        switch scope {
        case .accounts:
            stale.withLock { $0.formUnion(accounts) }
        case .everything:
            stale.withLock { $0.formUnion(repository.accountIds) }
            if accounts.isEmpty {
                broken.withLock { $0 = $0 ?? "a change across accounts failed after changing memory; restart this replica" }
            }
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

/// What a batch leader's transaction did, readable after it ends (whether it failed or not).
final class BatchProgress<Result: Sendable>: Sendable {
    let own = Mutex<Swift.Result<Result, CollabError>?>(nil)
    let opened = Mutex(false)
    let mutated = Mutex(false)
}
