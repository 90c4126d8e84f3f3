import CollabCore
public import CollabWire
import DequeModule
import Synchronization

/// Every push the server composed, newest last, in a bounded ring; queryable, streamable, and waitable.
public final class PushOutbox: Sendable {
    private struct State {
        /// Oldest first; a deque, so trimming the oldest of a full outbox on every push costs O(1), not a
        /// shift of the whole ring (which made each push beyond 10,000 copy every entry held).
        var entries: Deque<OutboxEntry> = []
        var nextId: Int64 = 1
        /// Entries recorded since start per account (not reduced by trimming or clearing).
        var recordedByAccount: [String: Int] = [:]
        var waits = ParkedWaits<OutboxFilter, OutboxEntry>()
        var subscribers: [Int: AsyncStream<OutboxEntry>.Continuation] = [:]
        var nextSubscriberId = 0

        /// The position of the first entry whose id is above `id`. Ids rise along the ring (they are
        /// assigned in order, and trimming or clearing only removes), so a binary search finds it.
        func firstIndex(after id: Int64) -> Int {
            var low = entries.startIndex
            var high = entries.endIndex
            while low < high {
                let middle = low + (high - low) / 2
                if entries[middle].id <= id { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// The position of the entry with `id`, if it is still held.
        func index(of id: Int64) -> Int? {
            let index = firstIndex(after: id - 1)
            return index < entries.endIndex && entries[index].id == id ? index : nil
        }
    }

    private let state = Mutex(State())
    /// How many entries are kept.
    public let capacity: Int

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Adds an entry (its `id` is assigned here) and wakes waiters and streams. Returns the stored entry.
    @discardableResult
    public func record(_ entry: OutboxEntry) -> OutboxEntry {
        var stored = entry
        let (waiters, subscribers) = state.withLock { state in
            stored.id = state.nextId
            state.nextId += 1
            state.recordedByAccount[stored.accountId, default: 0] += 1
            state.entries.append(stored)
            if state.entries.count > capacity { state.entries.removeFirst(state.entries.count - capacity) }
            return (state.waits.take { $0.matches(stored) }, Array(state.subscribers.values))
        }
        for waiter in waiters { waiter.resume(returning: stored) }
        for subscriber in subscribers { subscriber.yield(stored) }
        return stored
    }

    /// Replaces an entry's delivery state and attempts.
    public func update(id: Int64, _ change: (inout OutboxEntry) -> Void) {
        typealias Woken = (OutboxEntry?, [CheckedContinuation<OutboxEntry?, Never>], [AsyncStream<OutboxEntry>.Continuation])
        let (updated, waiters, subscribers) = state.withLock { state -> Woken in
            guard let index = state.index(of: id) else { return (nil, [], []) }
            change(&state.entries[index])
            let updated = state.entries[index]
            // A wait may be for a delivery state the entry only now reached.
            return (updated, state.waits.take { $0.matches(updated) }, Array(state.subscribers.values))
        }
        guard let updated else { return }
        for waiter in waiters { waiter.resume(returning: updated) }
        for subscriber in subscribers { subscriber.yield(updated) }
    }

    /// Entries matching `filter`, oldest first, at most `limit`: the newest, or with `filter.after` the
    /// oldest after that id (so pages read on without a gap).
    public func entries(matching filter: OutboxFilter, limit: Int = 1_000) -> [OutboxEntry] {
        let limit = max(0, limit)
        return state.withLock { state in
            if let after = filter.after {
                return Array(state.entries[state.firstIndex(after: after)...].lazy.filter(filter.matches).prefix(limit))
            }
            // The newest matches: read back from the end, and stop at the limit.
            return Array(state.entries.reversed().lazy.filter(filter.matches).prefix(limit).reversed())
        }
    }

    /// The first entry matching `filter` (already there or yet to come), or `nil` after `timeout`.
    public func wait(for filter: OutboxFilter, timeout: Duration) async -> OutboxEntry? {
        let id = state.withLock { $0.waits.makeId() }
        return await ParkedWaits<OutboxFilter, OutboxEntry>.wait(
            timeout: timeout,
            parkUnlessFound: { continuation in
                self.state.withLock { state in
                    let start = filter.after.map(state.firstIndex(after:)) ?? state.entries.startIndex
                    if let match = state.entries[start...].first(where: { filter.matches($0) }) { return match }
                    state.waits.park(id, filter: filter, continuation)
                    return nil
                }
            },
            expire: { self.state.withLock { $0.waits.take(id: id) } }
        )
    }

    /// A stream of new and updated entries (bounded; a slow reader loses the oldest).
    public func subscribe(bufferSize: Int = 1_000) -> (id: Int, stream: AsyncStream<OutboxEntry>) {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboxEntry.self, bufferingPolicy: .bufferingNewest(bufferSize))
        let id: Int = state.withLock { state in
            defer { state.nextSubscriberId += 1 }
            state.subscribers[state.nextSubscriberId] = continuation
            return state.nextSubscriberId
        }
        return (id, stream)
    }

    /// Open streams.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Ends a stream.
    public func unsubscribe(_ id: Int) {
        state.withLock { $0.subscribers.removeValue(forKey: id) }?.finish()
    }

    /// Ends every stream (shutdown).
    public func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Empties the outbox.
    public func clear() {
        state.withLock { $0.entries.removeAll() }
    }

    /// Forgets the entries of one account (an account reset); the count since start is kept.
    public func removeAll(accountId: String) {
        state.withLock { $0.entries.removeAll { $0.accountId == accountId } }
    }

    public var count: Int { state.withLock { $0.entries.count } }

    /// Pushes recorded since start, for one account or all; clearing the outbox does not reduce it.
    public func recordedCount(accountId: String?) -> Int {
        state.withLock { state in
            if let accountId { return state.recordedByAccount[accountId] ?? 0 }
            return state.recordedByAccount.values.reduce(0, +)
        }
    }
}
