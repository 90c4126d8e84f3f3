import Synchronization

/// Counts push intents queued and composed, so a caller can wait until every intent queued before a
/// point in time has reached the outbox: the barrier behind `GET /_mock/v1/pushes/settle`, which lets a
/// test say "no push was made" without sleeping.
final class PushProgress: Sendable {
    private struct Waiter {
        var id: Int
        var target: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var queued = 0
        var composed = 0
        var finished = false
        var nextWaiter = 0
        var waiters: [Waiter] = []
        /// Waiters cancelled before they were registered.
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    /// An intent is about to be queued.
    func queued() {
        state.withLock { $0.queued += 1 }
    }

    /// An intent left the queue: composed into the outbox, or dropped because the queue was full.
    func composed() {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.composed += 1
            let composed = state.composed
            let ready = state.waiters.filter { $0.target <= composed }
            state.waiters.removeAll { $0.target <= composed }
            return ready.map(\.continuation)
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

    /// Intents queued and composed so far.
    var counts: (queued: Int, composed: Int) {
        state.withLock { ($0.queued, $0.composed) }
    }

    /// Waits until every intent queued before the call has been composed.
    /// - Returns: `true` once they are; `false` when the pipeline stopped or the task was cancelled first.
    func settle() async -> Bool {
        let (id, target) = state.withLock { state -> (Int, Int) in
            defer { state.nextWaiter += 1 }
            return (state.nextWaiter, state.queued)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer: Bool? = state.withLock { state in
                    if state.composed >= target { return true }
                    if state.finished || state.cancelled.remove(id) != nil { return false }
                    state.waiters.append(Waiter(id: id, target: target, continuation: continuation))
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
