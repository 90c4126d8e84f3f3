import Synchronization

/// Counts push intents queued and composed, in all and per account, so a caller can wait until every
/// intent queued before a point in time — of one account, or of all — has reached the outbox: the
/// barrier behind `GET /_mock/v1/pushes/settle`, which lets a test say "no push was made" without
/// sleeping. An account's wait ends once its own intents are through, whatever other accounts queued.
final class PushProgress: Sendable {
    private struct Counts {
        var queued = 0
        var composed = 0
    }

    private struct Waiter {
        var id: Int
        /// The account whose intents it waits for, `nil` for all.
        var accountId: String?
        var target: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var all = Counts()
        /// Only accounts with intents still queued: an account's counts start over once it is through,
        /// so this holds no more accounts than have pushes in flight.
        var accounts: [String: Counts] = [:]
        var finished = false
        var nextWaiter = 0
        var waiters: [Waiter] = []
        /// Waiters cancelled before they were registered.
        var cancelled: Set<Int> = []

        func composed(_ accountId: String?) -> Int {
            guard let accountId else { return all.composed }
            return accounts[accountId]?.composed ?? 0
        }

        func queued(_ accountId: String?) -> Int {
            guard let accountId else { return all.queued }
            return accounts[accountId]?.queued ?? 0
        }
    }

    private let state = Mutex(State())

    /// An intent of `accountId` is about to be queued.
    func queued(accountId: String) {
        state.withLock { state in
            state.all.queued += 1
            state.accounts[accountId, default: Counts()].queued += 1
        }
    }

    /// An intent of `accountId` is about to be queued, unless the account already has `limit` intents
    /// queued and not yet composed (or rejected tokens not yet removed): then nothing is counted.
    /// - Returns: Whether it was counted, checked and counted under one lock.
    func queued(accountId: String, limit: Int) -> Bool {
        state.withLock { state in
            let counts = state.accounts[accountId] ?? Counts()
            guard counts.queued - counts.composed < limit else { return false }
            state.all.queued += 1
            state.accounts[accountId, default: Counts()].queued += 1
            return true
        }
    }

    /// An intent of `accountId` left the queue: composed into the outbox, or dropped because the queue
    /// was full.
    func composed(accountId: String) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.all.composed += 1
            state.accounts[accountId, default: Counts()].composed += 1
            let (all, account) = (state.all.composed, state.composed(accountId))
            var ready: [CheckedContinuation<Bool, Never>] = []
            state.waiters.removeAll { waiter in
                let composed = waiter.accountId == nil ? all : waiter.accountId == accountId ? account : nil
                guard let composed, waiter.target <= composed else { return false }
                ready.append(waiter.continuation)
                return true
            }
            // Through: no waiter of the account is left (each one's target is at most what was queued).
            if let counts = state.accounts[accountId], counts.composed >= counts.queued { state.accounts[accountId] = nil }
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// The pipeline stopped: nothing more will be composed, so every waiter is answered `false`.
    func finish() {
        let waiting = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    /// Whether every intent of `accountId` (or of all accounts, `nil`) queued so far has been composed.
    func isSettled(accountId: String?) -> Bool {
        state.withLock { $0.composed(accountId) >= $0.queued(accountId) }
    }

    /// Waits until every intent of `accountId` (or of all accounts, `nil`) queued before the call has
    /// been composed.
    /// - Returns: `true` once they are; `false` when the pipeline stopped or the task was cancelled first.
    func settle(accountId: String?) async -> Bool {
        let id = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // The target is read in the same lock as the check: an account's counts start over once it
                // is through, so a target read earlier could outlast them.
                let answer: Bool? = state.withLock { state in
                    let target = state.queued(accountId)
                    if state.composed(accountId) >= target { return true }
                    if state.finished || state.cancelled.remove(id) != nil { return false }
                    state.waiters.append(Waiter(id: id, accountId: accountId, target: target, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}
