import CollabCore
import CollabWire
import DequeModule
import Foundation
import Synchronization

/// A bounded record of the requests the server answered, newest last, kept per account.
///
/// Each account's requests sit in its own ring behind its own lock (requests that name no account in
/// one more ring), so one tenant's traffic never pushes another's entries out and a read for one
/// account touches that account's entries alone. Bounded four ways, because anonymous callers choose
/// what goes in: each entry keeps at most ``maxFieldBytes`` of path and of query (cut entries are marked
/// `truncated`); each ring keeps at most `capacity` entries and at most ``accountMaxBytes`` bytes (a
/// quarter of `maxBytes`; its own oldest go first); the refusals filed under an account by a credential
/// that named it without proving anything (a known username with a wrong password: anyone can send one)
/// are kept apart, at most a quarter of that count and of those bytes, so a stranger's refusals push out
/// only such refusals, never the account's own entries; all rings together hold at most `maxBytes` (beyond
/// it the oldest entries of the largest ring go, found by a ``SharedCeiling`` rather than by visiting
/// every ring); a read returns the newest `limit` matching entries
/// that fit in ``maxReadBytes``, oldest first (marked `truncated` when older matches were left out).
/// Entries hold no bodies, headers or secrets; query parameters that carry secrets (API keys, tokens)
/// are redacted.
final class RequestJournal: Sendable {
    /// One account's entries, ids increasing, and apart from them its unproven refusals.
    private struct Ring {
        var entries: Deque<JournalEntry> = []
        /// Refusals of credentials that named the account without proving it, ids increasing.
        var refusals: Deque<JournalEntry> = []
        /// The bytes of both.
        var bytes = 0
        var refusalBytes = 0
        /// The id of the newest entry pushed out by the bounds: a read after an older id missed entries.
        var lastDropped: Int64 = 0

        var count: Int { entries.count + refusals.count }

        /// Drops the oldest entry (of the refusals, with `refusal`); returns its size.
        mutating func dropOldest(refusal: Bool = false) -> Int {
            guard let oldest = refusal ? refusals.popFirst() : entries.popFirst() else { return 0 }
            let size = RequestJournal.size(of: oldest)
            bytes -= size
            if refusal { refusalBytes -= size }
            lastDropped = max(lastDropped, oldest.id)
            return size
        }
    }

    private final class AccountRing: Sendable {
        let accountId: String
        let ring = Mutex(Ring())

        init(accountId: String) {
            self.accountId = accountId
        }
    }

    /// The rings by account id (`""` for requests that name no account).
    private let rings = AccountShards(keyed: { AccountRing(accountId: $0) })
    /// The ceiling of ``maxBytes`` over all rings, with the rings ranked by bytes held in steps of 1/1024
    /// of ``accountMaxBytes``: a ring ranks itself anew under its lock when it moves a step (rarely, for a
    /// full ring: it drops about what it adds).
    private let ceiling: SharedCeiling
    private let nextId = Atomic<Int64>(1)
    /// How many entries the journal keeps for each account.
    let capacity: Int
    /// How many bytes all entries may take together, as ``size(of:)`` counts them.
    let maxBytes: Int
    /// How many bytes one account's entries may take: a quarter of ``maxBytes``.
    let accountMaxBytes: Int
    /// How many unproven refusals an account keeps, apart from its entries: a quarter of ``capacity``.
    let refusalCapacity: Int
    /// How many bytes they may take: a quarter of ``accountMaxBytes``.
    let refusalMaxBytes: Int
    /// The most of a path, and of a query, one entry keeps (UTF-8 bytes).
    static let maxFieldBytes = 2 * 1024
    /// The most one read returns, as ``size(of:)`` counts it.
    static let maxReadBytes = 4 * 1024 * 1024
    /// What an entry costs besides its strings (numbers, optionals, bookkeeping), roughly.
    static let entryOverhead = 128

    init(capacity: Int, maxBytes: Int = 16 * 1024 * 1024) {
        let smallest = Self.entryOverhead + 3 * Self.maxFieldBytes
        self.capacity = max(1, capacity)
        self.maxBytes = max(smallest, maxBytes)
        self.accountMaxBytes = max(smallest, self.maxBytes / 4)
        self.refusalCapacity = max(1, self.capacity / 4)
        self.refusalMaxBytes = max(smallest, self.accountMaxBytes / 4)
        self.ceiling = SharedCeiling(limit: self.maxBytes, granularity: self.accountMaxBytes / 1024)
    }

    /// Whether a query parameter (its decoded, lower-cased name) may carry a credential, in any spelling
    /// (`token`, `x-unblu-apikey`, `accessToken`, `device_secret`, `callCredential`, `api-key`,
    /// `token[]`, `sig`), so a client that puts a secret in a URL never has it kept.
    static func isSecret(parameter name: String) -> Bool {
        let bare = name.filter { $0.isLetter || $0.isNumber }
        if ["sig", "pin", "auth"].contains(bare) { return true }
        return secretWords.contains { bare.contains($0) }
    }

    private static let secretWords = ["token", "secret", "password", "passwd", "apikey", "credential", "signature", "session", "cookie"]

    /// The bytes an entry is counted for.
    static func size(of entry: JournalEntry) -> Int {
        entryOverhead + entry.method.utf8.count + entry.path.utf8.count + (entry.query?.utf8.count ?? 0) + (entry.accountId?.utf8.count ?? 0)
            + (entry.userId?.utf8.count ?? 0)
    }

    /// Records one answered request, cutting its path and query to ``maxFieldBytes``.
    /// - Parameter unproven: Whether the entry is a refusal filed under the account its credential named
    ///   without proving it (a wrong password): it is kept with the account's other such refusals, apart.
    func record(_ entry: consuming JournalEntry, unproven: Bool = false) {
        var cut = false
        entry.method = Self.prefix(entry.method, bytes: 32, cut: &cut)
        entry.path = Self.prefix(entry.path, bytes: Self.maxFieldBytes, cut: &cut)
        entry.query = entry.query.map { Self.prefix($0, bytes: Self.maxFieldBytes, cut: &cut) }
        entry.accountId = entry.accountId.map { Self.prefix($0, bytes: 256, cut: &cut) }
        entry.userId = entry.userId.map { Self.prefix($0, bytes: 256, cut: &cut) }
        entry.truncated = cut ? true : nil
        let size = Self.size(of: entry)
        let accountRing = rings.shard(entry.accountId ?? "")
        let freed = accountRing.ring.withLock { ring in
            // The id is taken under the ring's lock, so a ring's ids increase along it.
            entry.id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
            let before = ring.bytes
            ring.bytes += size
            var freed = 0
            if unproven {
                ring.refusals.append(entry)
                ring.refusalBytes += size
                while ring.refusals.count > refusalCapacity || ring.refusalBytes > refusalMaxBytes { freed += ring.dropOldest(refusal: true) }
            } else {
                ring.entries.append(entry)
                while ring.entries.count > capacity || ring.bytes - ring.refusalBytes > accountMaxBytes { freed += ring.dropOldest() }
            }
            ceiling.rank(accountRing.accountId, from: before, to: ring.bytes)
            return freed
        }
        // Past the server's ceiling (more than four accounts at their share), the largest ring gives up
        // its oldest entries, about 64 KiB a round, so the next requests find room.
        ceiling.add(size - freed) { accountId, _ in
            rings.existing(accountId)?.ring.withLock { ring in
                let before = ring.bytes
                var freed = 0
                // Unproven refusals go first.
                while freed < 64 * 1024, !ring.refusals.isEmpty { freed += ring.dropOldest(refusal: true) }
                while freed < 64 * 1024, !ring.entries.isEmpty { freed += ring.dropOldest() }
                ceiling.rank(accountId, from: before, to: ring.bytes)
                return freed
            }
        }
    }

    /// How many rings bringing the journal under ``maxBytes`` visited since start: one per round,
    /// whatever the number of accounts.
    var trimVisits: Int { ceiling.trimVisits }

    /// The entries matching `filter`, oldest first, as many as `filter.limit` (default 1000) and
    /// ``maxReadBytes`` allow: the newest, or with `filter.after` the oldest after that id (so pages read
    /// on without a gap); `truncated` when a matching entry was left out; `evicted` when, with `after`,
    /// entries after that id were pushed out by the bounds before the read. A read for one account
    /// touches its ring alone; a read for all merges each ring's pick by id.
    func entries(matching filter: JournalFilter) -> (entries: [JournalEntry], truncated: Bool, evicted: Bool) {
        let limit = max(1, filter.limit ?? 1000)
        var candidates: [JournalEntry] = []
        var truncated = false
        var evicted = false
        for ring in rings.shards(for: filter.accountId) {
            let (picked, cut, dropped) = ring.ring.withLock { ring in
                let (picked, cut) = Self.pick(ring.entries, filter: filter, limit: limit)
                let (refusals, refusalsCut) = Self.pick(ring.refusals, filter: filter, limit: limit)
                return (picked + refusals, cut || refusalsCut, filter.after.map { $0 < ring.lastDropped } ?? false)
            }
            candidates.append(contentsOf: picked)
            truncated = truncated || cut
            evicted = evicted || dropped
        }
        if filter.after != nil {
            let (picked, cut) = Self.pick(candidates.sorted { $0.id < $1.id }, limit: limit)
            return (picked, truncated || cut, evicted)
        }
        let (newestFirst, cut) = Self.pick(candidates.sorted { $0.id > $1.id }, limit: limit)
        return (newestFirst.reversed(), truncated || cut, false)
    }

    /// One ring's pick: the oldest `limit` after `filter.after`, or the newest `limit` (newest first).
    private static func pick(_ entries: Deque<JournalEntry>, filter: JournalFilter, limit: Int) -> (entries: [JournalEntry], truncated: Bool) {
        if let after = filter.after {
            // Ids increase along the ring: start at the first one past the cursor.
            let start = entries.partitionIndex { $0.id > after }
            return pick(entries[start...].lazy.filter(filter.matches), limit: limit)
        }
        return pick(entries.reversed().lazy.filter(filter.matches), limit: limit)
    }

    /// The first `limit` of `matching` that fit in ``maxReadBytes``, and whether any was left out.
    private static func pick(_ matching: some Sequence<JournalEntry>, limit: Int) -> (entries: [JournalEntry], truncated: Bool) {
        var picked: [JournalEntry] = []
        var bytes = 0
        for entry in matching {
            let size = size(of: entry)
            guard picked.count < limit, bytes + size <= maxReadBytes else { return (picked, true) }
            bytes += size
            picked.append(entry)
        }
        return (picked, false)
    }

    /// What the journal holds for one account (its entries and unproven refusals, and their bytes, with
    /// the bounds of both together), or for all.
    func held(accountId: String?) -> (count: Int, bytes: Int, capacity: Int, maxBytes: Int) {
        guard let accountId else { return (count, bytes, capacity, maxBytes) }
        let (count, bytes) = rings.existing(accountId)?.ring.withLock { ($0.count, $0.bytes) } ?? (0, 0)
        return (count, bytes, capacity + refusalCapacity, accountMaxBytes + refusalMaxBytes)
    }

    /// Forgets every entry.
    func clear() {
        for ring in rings.removeAll() { discard(ring) }
    }

    /// Forgets the entries of one account (an account reset): its ring alone.
    func removeAll(accountId: String) {
        if let ring = rings.remove(accountId) { discard(ring) }
    }

    /// Empties a ring taken out of the journal, giving its bytes back to the total.
    private func discard(_ accountRing: AccountRing) {
        let freed = accountRing.ring.withLock { ring in
            let freed = ring.bytes
            ring = Ring()
            ceiling.rank(accountRing.accountId, from: freed, to: 0)
            return freed
        }
        ceiling.release(freed)
    }

    /// How many entries are held, in all.
    var count: Int { rings.shards(for: nil).reduce(0) { sum, ring in sum + ring.ring.withLock { $0.count } } }

    /// How many bytes the held entries take, in all, as ``size(of:)`` counts them.
    var bytes: Int { ceiling.held }

    /// The query string with secret-bearing parameters redacted.
    static func redact(query: String?) -> String? {
        guard let query, !query.isEmpty else { return nil }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let raw = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let name = (raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw).lowercased()
            return isSecret(parameter: name) ? "\(raw)=REDACTED" : String(pair)
        }.joined(separator: "&")
    }

    /// At most `bytes` UTF-8 bytes of `text`, never ending inside a UTF-8 sequence.
    private static func prefix(_ text: String, bytes: Int, cut: inout Bool) -> String {
        guard text.utf8.count > bytes else { return text }
        cut = true
        var kept = Array(text.utf8.prefix(bytes))
        var continuation = 0
        var index = kept.count - 1
        while index >= 0, kept[index] & 0xC0 == 0x80 {
            continuation += 1
            index -= 1
        }
        if index >= 0 {
            let lead = kept[index]
            let expected = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0
            if expected != continuation { kept.removeSubrange(index...) }
        }
        return String(decoding: kept, as: UTF8.self)
    }
}

extension JournalFilter {
    func matches(_ entry: JournalEntry) -> Bool {
        if let method, method.uppercased() != entry.method { return false }
        if let path, !entry.path.hasPrefix(path) { return false }
        if let status {
            if status < 10 {
                guard entry.status / 100 == status else { return false }
            } else if entry.status != status {
                return false
            }
        }
        if let since, entry.timestamp < since { return false }
        if let until, entry.timestamp > until { return false }
        if let accountId, entry.accountId != accountId { return false }
        if let after, entry.id <= after { return false }
        return true
    }
}
