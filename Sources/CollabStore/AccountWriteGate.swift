import CollabCore
import Synchronization

/// Group commit of one account's writes on a cluster replica.
///
/// A cluster write holds its account's database lock for a whole transaction (lock, catch-up, records,
/// log append, commit), so one account's writes would go one transaction at a time. Instead, writes to
/// an account that arrive while one is in flight wait, and the next transaction carries all of them:
/// its leader takes the lock and catches up, then every waiting write runs its operation on the
/// caught-up shard in its own task (so nothing of the caller escapes), and the batch commits as one
/// log entry. Each write is still answered only after that commit.
final class AccountWriteGate: Sendable {
    /// What an arriving write does.
    enum Role: Sendable {
        /// Open the next transaction (take the lock, catch up) and commit the batch.
        case leader
        /// Run the operation in the open batch (``join(_:)``), then wait for its commit.
        case joiner
        /// The transaction failed before the batch opened: fail with this error.
        case failed(any Error)
    }

    private enum Phase {
        case idle
        /// A leader is taking the lock and catching up.
        case opening
        /// Operations join the batch.
        case accepting
        /// The batch is being committed; new writes wait for the next one.
        case committing
    }

    private struct State {
        var phase = Phase.idle
        var batch = StagedCommit()
        /// Writes that joined the open batch, answered when it commits.
        var joined: [CheckedContinuation<(any Error)?, Never>] = []
        /// Writes waiting for the next batch to open.
        var waiting: [CheckedContinuation<Role, Never>] = []
        /// Woken writes that have not joined yet, and the leader waiting for them.
        var pendingJoins = 0
        var allJoined: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// How a write takes part: the first of a quiet account leads at once; others wait for a batch.
    func arrive() async -> Role {
        await withCheckedContinuation { (continuation: CheckedContinuation<Role, Never>) in
            let role: Role? = state.withLock { state in
                switch state.phase {
                case .idle:
                    state.phase = .opening
                    return .leader
                case .accepting:
                    // A batch is open: join it now.
                    state.pendingJoins += 1
                    return .joiner
                case .opening, .committing:
                    state.waiting.append(continuation)
                    return nil
                }
            }
            if let role { continuation.resume(returning: role) }
        }
    }

    /// Runs a write's operation in the open batch and waits until the batch committed. Call once after
    /// ``arrive()`` answered `.joiner`.
    /// - Returns: The operation's result, or its error (nothing of it joined the batch then), or the
    ///   batch's failure.
    func joinAndWait<Result>(_ operation: () throws(CollabError) -> (Result, StagedCommit)) async -> Swift.Result<Result, any Error> {
        var outcome: Swift.Result<Result, any Error>?
        let committed: (any Error)? = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            let wake: CheckedContinuation<Void, Never>? = state.withLock { state in
                do throws(CollabError) {
                    let (result, changes) = try operation()
                    state.batch.append(contentsOf: changes)
                    outcome = .success(result)
                    // Registered with the batch in the same step, so its commit cannot be missed.
                    state.joined.append(continuation)
                } catch {
                    outcome = .failure(error)
                }
                state.pendingJoins -= 1
                guard state.pendingJoins == 0, let waiter = state.allJoined else { return nil }
                state.allJoined = nil
                return waiter
            }
            wake?.resume()
            if case .failure = outcome { continuation.resume(returning: nil) }
        }
        if let committed { return .failure(committed) }
        return outcome ?? .failure(CollabError(.unavailable, "the write did not run"))
    }

    /// The leader, holding the lock and caught up, opens the batch with its own changes: the writes
    /// waiting are woken to join, and this returns once they all have (or failed their operation).
    func open(with changes: StagedCommit) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (waiting, mustWait): ([CheckedContinuation<Role, Never>], Bool) = state.withLock { state in
                state.phase = .accepting
                state.batch = changes
                let waiting = state.waiting
                state.waiting = []
                state.pendingJoins += waiting.count
                guard state.pendingJoins > 0 else { return (waiting, false) }
                state.allJoined = continuation
                return (waiting, true)
            }
            if !mustWait { continuation.resume() }
            for waiter in waiting { waiter.resume(returning: .joiner) }
        }
    }

    /// Closes the open batch and returns everything in it, in join order.
    ///
    /// The batch stops taking writes in the same step that starts waiting for the ones already let in:
    /// a write arriving while the leader waits goes to the next batch. (Closing it only after the wait
    /// let a write join between the two steps, into a batch nobody commits, and be answered as stored.)
    func close() async -> StagedCommit {
        // Writes that arrived in `accepting` and have not run their operation yet are waited for.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                state.phase = .committing
                if state.pendingJoins == 0 { return true }
                state.allJoined = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        return state.withLock { state in
            defer { state.batch = StagedCommit() }
            return state.batch
        }
    }

    /// Writes waiting for the next batch (tests wait on it instead of sleeping).
    func waitingCountForTests() async -> Int {
        state.withLock { $0.waiting.count }
    }

    /// Whether the open batch was closed to new writes (tests wait on it instead of sleeping).
    func isClosedForTests() async -> Bool {
        state.withLock { if case .committing = $0.phase { true } else { false } }
    }

    /// Ends the leader's transaction: answers the writes that joined (with `error` when it failed),
    /// then hands the next batch to a waiting write. When the batch never opened, the waiting writes
    /// fail with the same error instead of each waiting out its own attempt.
    func finish(_ error: (any Error)?, opened: Bool) {
        let (joined, next, failed):
            ([CheckedContinuation<(any Error)?, Never>], CheckedContinuation<Role, Never>?, [CheckedContinuation<Role, Never>]) =
            state.withLock { state in
                let joined = state.joined
                state.joined = []
                state.batch = StagedCommit()
                if !opened, error != nil {
                    let failed = state.waiting
                    state.waiting = []
                    state.phase = .idle
                    return (joined, nil, failed)
                }
                guard !state.waiting.isEmpty else {
                    state.phase = .idle
                    return (joined, nil, [])
                }
                state.phase = .opening
                return (joined, state.waiting.removeFirst(), [])
            }
        for waiter in joined { waiter.resume(returning: error) }
        if let error { for waiter in failed { waiter.resume(returning: .failed(error)) } }
        next?.resume(returning: .leader)
    }
}
