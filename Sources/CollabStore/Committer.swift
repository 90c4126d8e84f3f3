import CollabCore
import Synchronization

/// What one operation hands to the commit path: its durable changes, its events and the effects resolved
/// from them under its lock.
struct StagedCommit: Sendable {
    var changes: [StoreChange] = []
    var events: [DomainEvent] = []
    var effects = ResolvedEffects()
    /// The accounts the operation changed.
    var accountIds: [String] = []
    /// The accounts the operation deleted (``StateRepository/deleteAccount(_:check:)``): every part that
    /// keeps something per account forgets them.
    var deletedAccountIds: [String] = []
    /// The virtual clock's setting, stored and shared with a cluster's replicas (see ``StateRepository/storeClock(_:)``).
    var clock: ClockSetting?

    /// Whether there is nothing to store, publish or carry out.
    var isEmpty: Bool { changes.isEmpty && events.isEmpty && effects.isEmpty && clock == nil }

    /// Adds another operation's commit after this one (writes batched into one transaction).
    mutating func append(contentsOf other: StagedCommit) {
        changes += other.changes
        events += other.events
        effects.append(contentsOf: other.effects)
        let added = other.accountIds.filter { !accountIds.contains($0) }
        accountIds += added
        deletedAccountIds += other.deletedAccountIds
        clock = other.clock ?? clock
    }
}

/// Takes an operation's commit. The operation calls it once, last, while it still holds the locks of the
/// shards it changed — so commits of one shard reach the committer in the order the shard changed.
struct CommitStage {
    let hand: @Sendable (StagedCommit) -> Void

    func callAsFunction(_ staged: StagedCommit) { hand(staged) }
}

/// Where staged commits become durable and reach the ``CommitSink``, in commit order: the one difference
/// between a process that owns its store and a replica of a cluster that shares a change log.
protocol Committer: Sendable {
    /// Runs `operation` (which locks the shards it changes, changes them and stages its commit) and
    /// returns its result once the staged commit is durable and handed to the sink.
    /// - Parameters:
    ///   - scope: The locks the write needs across a cluster.
    ///   - accounts: The accounts whose shards the operation may change (the shards to rebuild if the
    ///     commit fails after changing them).
    func commit<Result: Sendable>(
        _ scope: ChangeLogScope, accounts: [String], in repository: StateRepository, _ operation: (CommitStage) throws(CollabError) -> Result
    ) async throws -> Result
    /// Whether storage still accepts writes.
    var isHealthy: Bool { get }
    /// `nil` when storage can take writes now, else why not.
    func storageProblem() async -> String?
    /// Whether this process runs timed work (in a cluster, one replica does).
    func runsTimedWork() async -> Bool
    /// Waits for pending commits, then closes the store.
    func close() async throws
}

/// A write waiting for its staged commit to become durable. The commit may finish before the operation
/// that staged it has returned (the writer runs on its own task), hence a small state machine.
final class CommitTicket: Sendable {
    private enum State {
        case open
        case staged
        case waiting(CheckedContinuation<Void, any Error>)
        case done((any Error)?)
    }

    private let state = Mutex(State.open)

    /// Marks a commit staged (before handing it on).
    func stage() {
        state.withLock { $0 = .staged }
    }

    /// Records the commit's outcome and wakes the write.
    func finish(_ error: (any Error)?) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            defer { state = .done(error) }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume() }
    }

    /// Returns once the staged commit is durable (at once when nothing was staged).
    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                switch state {
                case .open: return .success(())
                case .done(let error): return error.map { .failure($0) } ?? .success(())
                case .staged:
                    state = .waiting(continuation)
                    return nil
                case .waiting: return .failure(CollabError(.internalError, "a commit was waited for twice"))
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }
}
