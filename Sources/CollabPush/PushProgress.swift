import CollabCore
import Synchronization

/// Counts push intents queued and composed, in all and per account, so a caller can wait until every
/// intent queued before a point in time — of one account, or of all — has reached the outbox: the
/// barrier behind `GET /_mock/v1/pushes/settle`, which lets a test say "no push was made" without
/// sleeping. An account's wait ends once its own intents are through, whatever other accounts queued.
///
/// Each account's counts and waits sit behind the account's own lock, so a push never waits on another
/// account's; the counts of all accounts are atomic, and the waits for all of them are touched only
/// while there are any.
final class PushProgress: Sendable {
    /// The waits for composed intents to reach a target.
    private struct Waiters {
        struct Waiter {
            var id: Int
            var target: Int
            var continuation: CheckedContinuation<Bool, Never>
        }

        var parked: [Waiter] = []
        /// Waits cancelled before they parked.
        var cancelled: Set<Int> = []

        /// Parks a wait for `target`, unless `composed` reached it, the pipeline `finished`, or the wait
        /// was cancelled: then the answer.
        mutating func park(
            _ id: Int, target: Int, composed: Int, finished: Bool, _ continuation: CheckedContinuation<Bool, Never>
        ) -> Bool? {
            if composed >= target { return true }
            if finished || cancelled.remove(id) != nil { return false }
            parked.append(Waiter(id: id, target: target, continuation: continuation))
            return nil
        }

        /// Takes the waits whose target `composed` reached.
        mutating func ready(at composed: Int) -> [CheckedContinuation<Bool, Never>] {
            var ready: [CheckedContinuation<Bool, Never>] = []
            parked.removeAll { waiter in
                guard waiter.target <= composed else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }

        /// Takes a cancelled wait back, or remembers it when it has not parked yet.
        mutating func cancel(_ id: Int) -> CheckedContinuation<Bool, Never>? {
            guard let index = parked.firstIndex(where: { $0.id == id }) else {
                cancelled.insert(id)
                return nil
            }
            return parked.remove(at: index).continuation
        }

        /// Takes every wait (the pipeline stopped).
        mutating func takeAll() -> [CheckedContinuation<Bool, Never>] {
            defer { parked = [] }
            return parked.map(\.continuation)
        }
    }

    private struct AccountCounts {
        var queued = 0
        var composed = 0
        var waiters = Waiters()
    }

    private final class AccountProgress: Sendable {
        let state = Mutex(AccountCounts())
    }

    private let accounts = AccountShards { AccountProgress() }
    private let allQueued = Atomic<Int>(0)
    private let allComposed = Atomic<Int>(0)
    /// The waits for every account's intents, and how many are parked.
    private let allWaiters = Mutex(Waiters())
    private let allParked = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    private let nextWaiter = Atomic<Int>(0)

    /// An intent of `accountId` is about to be queued.
    func queued(accountId: String) {
        _ = queued(accountId: accountId, limit: .max)
    }

    /// An intent of `accountId` is about to be queued, unless the account already has `limit` intents
    /// queued and not yet composed (or rejected tokens not yet removed): then nothing is counted.
    /// - Returns: Whether it was counted, checked and counted under the account's lock.
    func queued(accountId: String, limit: Int) -> Bool {
        let counted = accounts.shard(accountId).state.withLock { counts in
            guard counts.queued - counts.composed < limit else { return false }
            counts.queued += 1
            return true
        }
        if counted { allQueued.wrappingAdd(1, ordering: .sequentiallyConsistent) }
        return counted
    }

    /// An intent of `accountId` left the queue: composed into the outbox, or dropped because the queue
    /// was full.
    func composed(accountId: String) {
        var ready = accounts.shard(accountId).state.withLock { counts in
            counts.composed += 1
            return counts.waiters.ready(at: counts.composed)
        }
        allComposed.wrappingAdd(1, ordering: .sequentiallyConsistent)
        // A wait for all parks after it counts itself and reads the count under the same lock, so one
        // that parked after this check read the count this intent moved on.
        if allParked.load(ordering: .sequentiallyConsistent) > 0 {
            ready += allWaiters.withLock { waiters in
                let taken = waiters.ready(at: allComposed.load(ordering: .sequentiallyConsistent))
                allParked.wrappingSubtract(taken.count, ordering: .sequentiallyConsistent)
                return taken
            }
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// The pipeline stopped: nothing more will be composed, so every waiter is answered `false`.
    func finish() {
        finished.store(true, ordering: .sequentiallyConsistent)
        var waiting = allWaiters.withLock { waiters in
            let taken = waiters.takeAll()
            allParked.wrappingSubtract(taken.count, ordering: .sequentiallyConsistent)
            return taken
        }
        for account in accounts.shards(for: nil) { waiting += account.state.withLock { $0.waiters.takeAll() } }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    /// Whether every intent of `accountId` (or of all accounts, `nil`) queued so far has been composed.
    func isSettled(accountId: String?) -> Bool {
        guard let accountId else {
            return allComposed.load(ordering: .sequentiallyConsistent) >= allQueued.load(ordering: .sequentiallyConsistent)
        }
        return accounts.existing(accountId)?.state.withLock { $0.composed >= $0.queued } ?? true
    }

    /// Waits until every intent of `accountId` (or of all accounts, `nil`) queued before the call has
    /// been composed.
    /// - Returns: `true` once they are; `false` when the pipeline stopped or the task was cancelled first.
    func settle(accountId: String?) async -> Bool {
        let id = nextWaiter.wrappingAdd(1, ordering: .relaxed).oldValue
        let account = accountId.map { accounts.shard($0) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer: Bool?
                if let account {
                    // `finished` is read under the account's lock, which ``finish()`` takes after setting it.
                    answer = account.state.withLock { counts in
                        let finished = finished.load(ordering: .sequentiallyConsistent)
                        return counts.waiters.park(id, target: counts.queued, composed: counts.composed, finished: finished, continuation)
                    }
                } else {
                    // Target and count are read after this wait counts itself parked: see ``composed(accountId:)``.
                    answer = allWaiters.withLock { waiters in
                        allParked.wrappingAdd(1, ordering: .sequentiallyConsistent)
                        let answer = waiters.park(
                            id, target: allQueued.load(ordering: .sequentiallyConsistent),
                            composed: allComposed.load(ordering: .sequentiallyConsistent),
                            finished: finished.load(ordering: .sequentiallyConsistent), continuation
                        )
                        if answer != nil { allParked.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
                        return answer
                    }
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Bool, Never>?
            if let account {
                waiter = account.state.withLock { $0.waiters.cancel(id) }
            } else {
                waiter = allWaiters.withLock { waiters in
                    let taken = waiters.cancel(id)
                    if taken != nil { allParked.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
                    return taken
                }
            }
            waiter?.resume(returning: false)
        }
    }
}
