import Synchronization

/// A one-way "stop now" that devices check between steps and that wakes their waits.
final class StopSignal: Sendable {
    private let state = Mutex(State())

    private struct State {
        var stopped = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    /// Sleeps up to this long are not woken by ``stop()``.
    static let shortSleep = Duration.milliseconds(500)

    /// Whether ``stop()`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Stops: every waiter wakes; later waits return at once.
    func stop() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.stopped = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once stopped (or when the task is cancelled).
    func wait() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if state.stopped || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Sleeps until `deadline` unless stopped first; returns whether it slept the whole time and was
    /// not stopped meanwhile.
    ///
    /// A sleep shorter than ``shortSleep`` (a device's next frame, a tick) is a plain sleep checked on
    /// waking: it may notice a stop up to that much late, and costs no task group — each frame a device
    /// sends sleeps once.
    func sleep(until deadline: ContinuousClock.Instant) async -> Bool {
        guard !isStopped else { return false }
        if deadline - .now <= Self.shortSleep {
            return (try? await Task.sleep(until: deadline, clock: .continuous)) != nil && !isStopped
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await Task.sleep(until: deadline, clock: .continuous)) != nil }
            group.addTask {
                await self.wait()
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first && !isStopped
        }
    }
}
