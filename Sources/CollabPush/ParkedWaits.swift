/// Waits parked until a value their filter matches arrives, each with a timeout: what the push outbox
/// and the webhook delivery log answer `…/wait` with.
///
/// The owner keeps a `ParkedWaits` inside its own lock, so looking for a value already there and parking
/// happen as one step: nothing recorded between the two is missed.
public struct ParkedWaits<Filter: Sendable, Value: Sendable>: Sendable {
    private struct Waiter {
        var filter: Filter
        var continuation: CheckedContinuation<Value?, Never>
        var id: Int
    }

    private var waiters: [Waiter] = []
    private var nextId = 0

    public init() {}

    /// A new wait's id.
    public mutating func makeId() -> Int {
        defer { nextId += 1 }
        return nextId
    }

    /// Parks a wait.
    public mutating func park(_ id: Int, filter: Filter, _ continuation: CheckedContinuation<Value?, Never>) {
        waiters.append(Waiter(filter: filter, continuation: continuation, id: id))
    }

    /// Takes the waits `value` matches, to resume with it once the lock is let go.
    public mutating func take(matching matches: (Filter) -> Bool) -> [CheckedContinuation<Value?, Never>] {
        var taken: [CheckedContinuation<Value?, Never>] = []
        waiters.removeAll { waiter in
            guard matches(waiter.filter) else { return false }
            taken.append(waiter.continuation)
            return true
        }
        return taken
    }

    /// Takes a wait whose time is up, if it is still parked.
    public mutating func take(id: Int) -> CheckedContinuation<Value?, Never>? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).continuation
    }

    /// Waits for a value: `parkUnlessFound` looks (under the owner's lock) for one already there and
    /// parks the wait when there is none; after `timeout`, `expire` takes the wait back if still parked.
    /// - Returns: The value found or delivered, or `nil` when the time ran out.
    public static func wait(
        timeout: Duration,
        parkUnlessFound: @escaping @Sendable (CheckedContinuation<Value?, Never>) -> Value?,
        expire: @escaping @Sendable () -> CheckedContinuation<Value?, Never>?
    ) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    if let found = parkUnlessFound(continuation) { continuation.resume(returning: found) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                expire()?.resume(returning: nil)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // The timer task resumes the wait if it is still parked; collect the other result.
            let second = await group.next() ?? nil
            return first ?? second
        }
    }
}
