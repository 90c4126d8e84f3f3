import Synchronization

/// Runs async bodies one at a time, in the order their callers arrived: a caller waits (without holding
/// a thread) until the body before it has finished.
///
/// ``ClockDrivenTasks`` runs its ticks through one: a tick takes the due accounts off the repository's
/// deadline queue before it commits their work, so a tick running beside another could find nothing
/// due while the other still commits.
final class OneAtATime: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every body that arrived before it has finished.
    func run(_ body: () async -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        await body()
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Callers waiting for their turn (tests wait on it instead of sleeping).
    var waitingCount: Int { state.withLock { $0.waiting.count } }
}
