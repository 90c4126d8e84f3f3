import Synchronization

/// Send times of things in flight (messages by client message id, calls by conversation), so the
/// receiving side can time their delivery.
final class PendingTimes: Sendable {
    private let times = Mutex<[String: ContinuousClock.Instant]>([:])

    func start(_ key: String, at instant: ContinuousClock.Instant) {
        times.withLock { $0[key] = instant }
    }

    /// Removes and returns the start time.
    func finish(_ key: String) -> ContinuousClock.Instant? {
        times.withLock { $0.removeValue(forKey: key) }
    }

    func cancel(_ key: String) {
        _ = finish(key)
    }
}
