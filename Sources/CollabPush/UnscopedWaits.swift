import Synchronization

/// Waits that name no account, for an owner that keeps each account's values and waits in a part behind
/// the part's own lock (the push outbox, the webhook delivery log): such a wait cannot look and park
/// under one lock, so it parks first and then looks. A value recorded before it parked is found by the
/// look; one recorded after finds it parked; whichever takes it back from the parked waits resumes it.
/// Recording a value touches these waits only while there are any.
public final class UnscopedWaits<Filter: Sendable, Value: Sendable>: Sendable {
    private let waits = Mutex(ParkedWaits<Filter, Value>())
    private let parked = Atomic<Int>(0)

    public init() {}

    /// The first value `find` answers with (looking in every part, after this wait parked), or a value
    /// recorded later that `filter` matches, or `nil` after `timeout`.
    public func wait(for filter: Filter, timeout: Duration, find: @escaping @Sendable () -> Value?) async -> Value? {
        parked.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { parked.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        let id = waits.withLock { $0.makeId() }
        return await ParkedWaits<Filter, Value>.wait(
            timeout: timeout,
            parkUnlessFound: { continuation in
                self.waits.withLock { $0.park(id, filter: filter, continuation) }
                guard let found = find(), self.waits.withLock({ $0.take(id: id) }) != nil else { return nil }
                return found
            },
            expire: { self.waits.withLock { $0.take(id: id) } }
        )
    }

    /// Takes the waits `matches` accepts, to resume once the caller's locks are let go; called after a
    /// value is recorded in its part.
    public func take(matching matches: (Filter) -> Bool) -> [CheckedContinuation<Value?, Never>] {
        guard parked.load(ordering: .sequentiallyConsistent) > 0 else { return [] }
        return waits.withLock { $0.take(matching: matches) }
    }
}
