import Synchronization

/// A clock a test moves by hand: whoever sleeps on it wakes when the test moves it past their deadline,
/// so time-based limits are driven without waiting and without timing anything.
package final class ManualClock: Clock, Sendable {
    package init() {}

    package struct Instant: InstantProtocol {
        package var offset: Duration

        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
        var nextId = 0
    }

    private let state = Mutex(State())

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                let sleeper = state.sleepers.removeValue(forKey: id)
                if sleeper == nil { state.cancelled.insert(id) }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline it passes.
    package func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// How many wait on the clock now.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until `count` wait on the clock (a barrier: the server has started what sleeps on it). It
    /// returns as soon as they do; the timeout only bounds a failure, and is generous because a loaded
    /// 2-core CI machine running the suite in parallel has taken over 30 s to reach a delivery's backoff.
    package func waitForSleepers(_ count: Int, what: String, timeout: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + timeout
        while sleeperCount < count {
            guard ContinuousClock.now < deadline else { throw ManualClockTimeout(what: what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// ``ManualClock/waitForSleepers(_:what:timeout:)`` gave up.
package struct ManualClockTimeout: Error, CustomStringConvertible {
    package var what: String
    package var description: String { "timed out waiting for \(what) to wait on the manual clock" }
}
