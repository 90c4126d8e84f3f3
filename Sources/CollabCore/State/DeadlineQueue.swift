import HeapModule

/// Work that falls due as time passes, ordered by when, so the clock-driven tasks find what is due
/// without scanning calls, devices or sessions.
///
/// Entries are hints: the handler checks the entity when an entry comes up (a call answered since it
/// was scheduled is simply skipped). Each piece of work is held once, at the time last scheduled; an
/// entry for an earlier time is stale and dropped when it surfaces.
public struct DeadlineQueue: Sendable {
    /// What falls due.
    public enum Work: Hashable, Sendable {
        /// A ringing call's timeout (at its `timeoutAt`).
        case callTimeout(String)
        /// A device key's rotation (at its creation time plus the rotation interval).
        case keyRotation(String)
        /// A login session's or authentication token's expiry (at its `expiresAt`).
        case sessionExpiry(String)
        /// A client's idle expiry (at its last activity plus the idle timeout).
        case clientIdle(String)
        /// The expiry of the access token a client started with (at its `exp`).
        case clientAuthorization(String)
        /// An onboarding offer to a dialog bot still unanswered (at the dialog's `offerExpiresAt`).
        case botOffer(String)
    }

    struct Entry: Comparable, Sendable {
        var at: Timestamp
        var work: Work
        static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.at < rhs.at }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.at == rhs.at && lhs.work == rhs.work }
    }

    /// Separate heaps because key rotation and client idleness are due an interval after their stamp,
    /// and that interval is the server's configuration, not the core's.
    private var fixed = Heap<Entry>()
    private var keys = Heap<Entry>()
    private var clients = Heap<Entry>()
    private var scheduled: [Work: Timestamp] = [:]

    public init() {}

    /// Schedules `work` at `stamp` (for key rotation and client idleness: the stamp the interval
    /// counts from), replacing an earlier schedule of the same work.
    public mutating func schedule(_ work: Work, at stamp: Timestamp) {
        guard scheduled[work] != stamp else { return }
        scheduled[work] = stamp
        let entry = Entry(at: stamp, work: work)
        switch work {
        case .keyRotation: keys.insert(entry)
        case .clientIdle: clients.insert(entry)
        case .callTimeout, .sessionExpiry, .botOffer, .clientAuthorization: fixed.insert(entry)
        }
    }

    /// When the earliest work falls due, given the intervals.
    public func next(keyRotationInterval: Timestamp, clientIdleTimeout: Timestamp) -> Timestamp? {
        let rotation = keys.min.map { $0.at.adding(saturating: keyRotationInterval) }
        return [fixed.min?.at, rotation, clients.min.map { $0.at.adding(saturating: clientIdleTimeout) }].compactMap { $0 }.min()
    }

    /// Takes out the work due at `now`, earliest first within each kind.
    public mutating func takeDue(now: Timestamp, keyRotationInterval: Timestamp, clientIdleTimeout: Timestamp) -> [Work] {
        var due: [Work] = []
        Self.drain(&fixed, until: now, into: &due, scheduled: &scheduled)
        Self.drain(&keys, until: now.subtracting(saturating: keyRotationInterval), into: &due, scheduled: &scheduled)
        Self.drain(&clients, until: now.subtracting(saturating: clientIdleTimeout), into: &due, scheduled: &scheduled)
        return due
    }

    private static func drain(_ heap: inout Heap<Entry>, until limit: Timestamp, into due: inout [Work], scheduled: inout [Work: Timestamp]) {
        while let first = heap.min, first.at <= limit {
            heap.removeMin()
            // A stale entry: the work was rescheduled for a later time.
            guard scheduled[first.work] == first.at else { continue }
            scheduled[first.work] = nil
            due.append(first.work)
        }
    }

    /// How many pieces of work are scheduled.
    public var count: Int { scheduled.count }
}
