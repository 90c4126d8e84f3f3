import Synchronization

/// What an owner keeps in one account's part: the values held and the waits parked for more.
public protocol WaitableValues: Sendable {
    associatedtype Filter: Sendable
    associatedtype Value: Sendable
    /// The waits parked on the part.
    var waits: ParkedWaits<Filter, Value> { get set }
    /// The oldest value held that `filter` matches.
    func firstMatch(_ filter: Filter) -> Value?
}

/// One account's values and waits behind the account's own lock (a ring of the push outbox, a log of the
/// webhook deliveries).
public final class WaitingPart<Values: WaitableValues>: Sendable {
    private let values: Mutex<Values>

    public init(_ values: Values) {
        self.values = Mutex(values)
    }

    /// Runs `body` on the part under its lock.
    public func withLock<Result: Sendable>(_ body: (inout Values) -> Result) -> Result {
        values.withLock { body(&$0) }
    }

    /// The oldest value `filter` matches, held now or recorded later, or `nil` after `timeout`. Looking and
    /// parking are one step under the part's lock, so nothing recorded between the two is missed.
    public func wait(for filter: Values.Filter, timeout: Duration) async -> Values.Value? {
        let id = withLock { $0.waits.makeId() }
        return await ParkedWaits<Values.Filter, Values.Value>.wait(
            timeout: timeout,
            parkUnlessFound: { continuation in
                self.withLock { values in
                    if let found = values.firstMatch(filter) { return found }
                    values.waits.park(id, filter: filter, continuation)
                    return nil
                }
            },
            expire: { self.withLock { $0.waits.take(id: id) } }
        )
    }
}
