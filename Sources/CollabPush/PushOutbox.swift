public import CollabCore
public import CollabWire
import DequeModule
import Synchronization

/// Every push the server composed, newest last, kept per account; queryable, streamable, and waitable.
///
/// Each account's pushes sit in their own bounded ring behind their own lock, with the waits that name
/// that account, so one tenant's pushes never push out another's and never wait on its lock. Each
/// account keeps its newest `capacity` entries; all accounts together keep at most four times that
/// (beyond it the account holding the most gives up its oldest, found by a ``SharedCeiling`` rather than
/// by visiting every ring, so a push past the ceiling costs the same however many accounts there
/// are). Ids increase across the outbox.
public final class PushOutbox: Sendable {
    /// One account's entries, oldest first, and the waits that name the account.
    private struct Ring: WaitableValues {
        /// A deque, so trimming the oldest of a full ring on every push costs O(1), not a shift of
        /// the whole ring.
        var entries: Deque<OutboxEntry> = []
        /// Entries recorded since start (not reduced by trimming or clearing).
        var recorded = 0
        /// The final states those entries reached (not reduced by trimming or clearing).
        var outcomes = StateStats.PushOutcomes()
        var waits = ParkedWaits<OutboxFilter, OutboxEntry>()

        /// The position of the first entry whose id is above `id`. Ids rise along a ring (each is
        /// assigned under the ring's lock, and trimming or clearing only removes), so a binary search
        /// finds it.
        func firstIndex(after id: Int64) -> Int {
            entries.partitionIndex { $0.id > id }
        }

        /// The position of the entry with `id`, if it is still held.
        func index(of id: Int64) -> Int? {
            let index = firstIndex(after: id - 1)
            return index < entries.endIndex && entries[index].id == id ? index : nil
        }

        /// The first entry matching `filter` after `filter.after` (from the oldest without it).
        func firstMatch(_ filter: OutboxFilter) -> OutboxEntry? {
            let start = filter.after.map(firstIndex(after:)) ?? entries.startIndex
            return entries[start...].first(where: { filter.matches($0) })
        }

        /// The entries matching `filter`, oldest first, at most `limit`: the newest, or with
        /// `filter.after` the oldest after that id.
        func entries(matching filter: OutboxFilter, limit: Int) -> [OutboxEntry] {
            if let after = filter.after {
                return Array(entries[firstIndex(after: after)...].lazy.filter(filter.matches).prefix(limit))
            }
            // The newest matches: read back from the end, and stop at the limit.
            return Array(entries.reversed().lazy.filter(filter.matches).prefix(limit).reversed())
        }
    }

    private final class AccountOutbox: Sendable {
        let accountId: String
        let ring = WaitingPart(Ring())

        init(accountId: String) {
            self.accountId = accountId
        }
    }

    /// Streams by the account whose entries they follow (`nil`: every account's): touched by a push only
    /// while there are any, and then only the pushing account's and the server-wide ones.
    private struct Subscribers {
        var streams: [String?: [Int: AsyncStream<OutboxEntry>.Continuation]] = [:]
        var accountOf: [Int: String?] = [:]
        var nextId = 0

        var count: Int { accountOf.count }

        mutating func remove(_ id: Int) -> AsyncStream<OutboxEntry>.Continuation? {
            guard let accountId = accountOf.removeValue(forKey: id) else { return nil }
            defer { if streams[accountId]?.isEmpty == true { streams[accountId] = nil } }
            return streams[accountId]?.removeValue(forKey: id)
        }
    }

    /// Streams open at once that follow one account's entries, or every account's.
    public static let maxStreamsPerAccount = 64

    /// The accounts' rings.
    private let accounts = AccountShards(keyed: { AccountOutbox(accountId: $0) })
    /// The ceiling of ``totalCapacity`` entries over all rings, with the accounts ranked by how many they
    /// hold: a ring ranks itself anew under its lock whenever its count changes (not for a push into a
    /// full ring, which drops one as it adds one).
    private let ceiling: SharedCeiling
    /// Waits that name no account.
    private let unscoped = UnscopedWaits<OutboxFilter, OutboxEntry>()
    private let subscribers = Mutex(Subscribers())
    /// Streams open now.
    private let streaming = Atomic<Int>(0)
    private let nextId = Atomic<Int64>(1)
    /// How many entries each account keeps.
    public let capacity: Int
    /// How many entries all accounts keep together: four times ``capacity``.
    public var totalCapacity: Int { capacity * 4 }

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
        self.ceiling = SharedCeiling(limit: self.capacity * 4)
    }


    /// Adds an entry (its `id` is assigned here) and wakes waiters and streams. Returns the stored entry.
    @discardableResult
    public func record(_ entry: OutboxEntry) -> OutboxEntry {
        var stored = entry
        let (waiters, trimmed) = accounts.shard(entry.accountId).ring.withLock { ring in
            // The id is taken under the ring's lock, so a ring's ids increase along it.
            stored.id = nextId.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
            ring.recorded += 1
            let before = ring.entries.count
            ring.entries.append(stored)
            let trimmed = max(0, ring.entries.count - capacity)
            ring.entries.removeFirst(trimmed)
            ceiling.rank(entry.accountId, from: before, to: ring.entries.count)
            return (ring.waits.take { $0.matches(stored) }, trimmed)
        }
        // Past the ceiling, the ring holding the most gives up its oldest.
        ceiling.add(1 - trimmed) { accountId, excess in
            accounts.existing(accountId)?.ring.withLock { ring in
                let before = ring.entries.count
                let dropped = min(before, max(1, excess))
                ring.entries.removeFirst(dropped)
                ceiling.rank(accountId, from: before, to: ring.entries.count)
                return dropped
            }
        }
        announce(stored, to: waiters)
        return stored
    }

    /// Resumes the account's waits `entry` matches, and the waits naming no account and the streams.
    private func announce(_ entry: OutboxEntry, to waiters: [CheckedContinuation<OutboxEntry?, Never>]) {
        for waiter in waiters + unscoped.take(matching: { $0.matches(entry) }) { waiter.resume(returning: entry) }
        guard streaming.load(ordering: .sequentiallyConsistent) > 0 else { return }
        let streams = subscribers.withLock { Array(($0.streams[entry.accountId] ?? [:]).values) + Array(($0.streams[nil] ?? [:]).values) }
        for stream in streams { stream.yield(entry) }
    }

    /// How many rings trimming to ``totalCapacity`` visited since start: one per round, whatever the
    /// number of accounts.
    var trimVisits: Int { ceiling.trimVisits }

    /// Adds to the attempts (or otherwise changes) an entry of `accountId` that is still pending; its
    /// final state is set by ``settle(id:accountId:as:_:)``.
    public func update(id: Int64, accountId: String, _ change: (inout OutboxEntry) -> Void) {
        modify(id: id, accountId: accountId, settling: nil, change)
    }

    /// Gives an entry of `accountId` its final delivery state, counted in the account's outcomes (even
    /// when the entry itself was trimmed meanwhile), after `change`.
    public func settle(id: Int64, accountId: String, as state: OutboxEntry.State, _ change: (inout OutboxEntry) -> Void = { _ in }) {
        modify(id: id, accountId: accountId, settling: state) { entry in
            change(&entry)
            entry.state = state
        }
    }

    /// Counts the final state an entry was recorded in (no sink, suppressed, failed to compose), once
    /// nothing is to change it.
    public func countOutcome(_ state: OutboxEntry.State, accountId: String) {
        accounts.existing(accountId)?.ring.withLock { $0.outcomes.count(state) }
    }

    private func modify(id: Int64, accountId: String, settling state: OutboxEntry.State?, _ change: (inout OutboxEntry) -> Void) {
        guard let outbox = accounts.existing(accountId) else { return }
        let (updated, waiters) = outbox.ring.withLock { ring -> (OutboxEntry?, [CheckedContinuation<OutboxEntry?, Never>]) in
            if let state { ring.outcomes.count(state) }
            guard let index = ring.index(of: id) else { return (nil, []) }
            change(&ring.entries[index])
            let updated = ring.entries[index]
            // A wait may be for a delivery state the entry only now reached.
            return (updated, ring.waits.take { $0.matches(updated) })
        }
        guard let updated else { return }
        announce(updated, to: waiters)
    }

    /// Entries matching `filter`, oldest first, at most `limit`: the newest, or with `filter.after` the
    /// oldest after that id (so pages read on without a gap). A read naming an account reads its ring
    /// alone; one naming none merges every ring's pick by id.
    public func entries(matching filter: OutboxFilter, limit: Int = 1_000) -> [OutboxEntry] {
        let limit = max(0, limit)
        let picks = accounts.shards(for: filter.accountId).flatMap { outbox in outbox.ring.withLock { $0.entries(matching: filter, limit: limit) } }
        if filter.after != nil { return Array(picks.sorted { $0.id < $1.id }.prefix(limit)) }
        return Array(picks.sorted { $0.id < $1.id }.suffix(limit))
    }

    /// The first entry matching `filter` (already there or yet to come), or `nil` after `timeout`.
    public func wait(for filter: OutboxFilter, timeout: Duration) async -> OutboxEntry? {
        if let accountId = filter.accountId { return await accounts.shard(accountId).ring.wait(for: filter, timeout: timeout) }
        return await unscoped.wait(for: filter, timeout: timeout) { self.firstMatch(filter) }
    }

    /// The oldest entry in any ring matching `filter` (after `filter.after`).
    private func firstMatch(_ filter: OutboxFilter) -> OutboxEntry? {
        accounts.shards(for: nil).compactMap { outbox in outbox.ring.withLock { $0.firstMatch(filter) } }.min { $0.id < $1.id }
    }

    /// A stream of new and updated entries of `accountId` (`nil`: of every account), bounded: a slow
    /// reader loses the oldest. Another account's pushes never reach it, nor cost it anything.
    /// - Throws: `tooManyRequests` when ``maxStreamsPerAccount`` streams follow that account already.
    public func subscribe(accountId: String?, bufferSize: Int = 1_000) throws(CollabError) -> (id: Int, stream: AsyncStream<OutboxEntry>) {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboxEntry.self, bufferingPolicy: .bufferingNewest(bufferSize))
        let id: Int? = subscribers.withLock { subscribers in
            guard (subscribers.streams[accountId]?.count ?? 0) < Self.maxStreamsPerAccount else { return nil }
            defer { subscribers.nextId += 1 }
            subscribers.streams[accountId, default: [:]][subscribers.nextId] = continuation
            subscribers.accountOf[subscribers.nextId] = accountId
            return subscribers.nextId
        }
        guard let id else {
            continuation.finish()
            throw CollabError(.tooManyRequests, "\(Self.maxStreamsPerAccount) push streams are open for this account already; close one")
        }
        streaming.wrappingAdd(1, ordering: .sequentiallyConsistent)
        return (id, stream)
    }

    /// Open streams.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Ends a stream.
    public func unsubscribe(_ id: Int) {
        guard let stream = subscribers.withLock({ $0.remove(id) }) else { return }
        streaming.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        stream.finish()
    }

    /// Ends every stream (shutdown).
    public func finishAll() {
        let streams = subscribers.withLock { subscribers in
            defer { subscribers = Subscribers(nextId: subscribers.nextId) }
            return subscribers.streams.values.flatMap(\.values)
        }
        streaming.wrappingSubtract(streams.count, ordering: .sequentiallyConsistent)
        for stream in streams { stream.finish() }
    }

    /// Empties the outbox; the counts since start are kept.
    public func clear() {
        for outbox in accounts.shards(for: nil) { empty(outbox) }
    }

    /// Forgets the entries of one account (an account reset): its ring alone; the count since start is kept.
    public func removeAll(accountId: String) {
        for outbox in accounts.shards(for: accountId) { empty(outbox) }
    }

    private func empty(_ outbox: AccountOutbox) {
        let removed = outbox.ring.withLock { ring in
            let removed = ring.entries.count
            ring.entries.removeAll()
            ceiling.rank(outbox.accountId, from: removed, to: 0)
            return removed
        }
        ceiling.release(removed)
    }

    /// Entries held, in all.
    public var count: Int { ceiling.held }

    /// Entries held for one account.
    public func count(accountId: String) -> Int {
        accounts.existing(accountId)?.ring.withLock { $0.entries.count } ?? 0
    }

    /// The final states pushes reached since start, for one account or all; clearing the outbox does not
    /// reduce them.
    public func outcomes(accountId: String?) -> StateStats.PushOutcomes {
        accounts.shards(for: accountId).reduce(StateStats.PushOutcomes()) { sum, outbox in sum + outbox.ring.withLock { $0.outcomes } }
    }

    /// Pushes recorded since start, for one account or all; clearing the outbox does not reduce it.
    public func recordedCount(accountId: String?) -> Int {
        accounts.shards(for: accountId).reduce(0) { sum, outbox in sum + outbox.ring.withLock { $0.recorded } }
    }
}
