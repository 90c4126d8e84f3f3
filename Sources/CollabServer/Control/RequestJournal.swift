import CollabCore
import CollabWire
import DequeModule
import Foundation
import Synchronization

/// A bounded record of the requests the server answered, newest last.
///
/// Bounded three ways, because anonymous callers choose what goes in: each entry keeps at most
/// ``maxFieldBytes`` of path and of query (cut entries are marked `truncated`); the journal keeps at most
/// `capacity` entries and at most `maxBytes` bytes (the oldest go first); a read returns the newest
/// `limit` matching entries that fit in ``maxReadBytes``, oldest first (marked `truncated` when older
/// matches were left out). Entries hold no
/// bodies, headers or secrets; query parameters that carry secrets (API keys, tokens) are redacted.
final class RequestJournal: Sendable {
    private struct Held {
        var entries: Deque<JournalEntry> = []
        var bytes = 0
        var nextId: Int64 = 1
    }

    private let held = Mutex(Held())
    /// How many entries the journal keeps.
    let capacity: Int
    /// How many bytes the journal's entries may take, as ``size(of:)`` counts them.
    let maxBytes: Int
    /// The most of a path, and of a query, one entry keeps (UTF-8 bytes).
    static let maxFieldBytes = 2 * 1024
    /// The most one read returns, as ``size(of:)`` counts it.
    static let maxReadBytes = 4 * 1024 * 1024
    /// What an entry costs besides its strings (numbers, optionals, bookkeeping), roughly.
    static let entryOverhead = 128

    init(capacity: Int, maxBytes: Int = 16 * 1024 * 1024) {
        self.capacity = max(1, capacity)
        self.maxBytes = max(Self.entryOverhead + 3 * Self.maxFieldBytes, maxBytes)
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
    func record(_ entry: consuming JournalEntry) {
        var cut = false
        entry.method = Self.prefix(entry.method, bytes: 32, cut: &cut)
        entry.path = Self.prefix(entry.path, bytes: Self.maxFieldBytes, cut: &cut)
        entry.query = entry.query.map { Self.prefix($0, bytes: Self.maxFieldBytes, cut: &cut) }
        entry.accountId = entry.accountId.map { Self.prefix($0, bytes: 256, cut: &cut) }
        entry.userId = entry.userId.map { Self.prefix($0, bytes: 256, cut: &cut) }
        entry.truncated = cut ? true : nil
        let size = Self.size(of: entry)
        held.withLock { held in
            entry.id = held.nextId
            held.nextId += 1
            held.entries.append(entry)
            held.bytes += size
            while held.entries.count > capacity || held.bytes > maxBytes, let oldest = held.entries.popFirst() {
                held.bytes -= Self.size(of: oldest)
            }
        }
    }

    /// The entries matching `filter`, oldest first, as many as `filter.limit` (default 1000) and
    /// ``maxReadBytes`` allow: the newest, or with `filter.after` the oldest after that id (so pages read
    /// on without a gap); `truncated` when a matching entry was left out.
    func entries(matching filter: JournalFilter) -> (entries: [JournalEntry], truncated: Bool) {
        let limit = max(1, filter.limit ?? 1000)
        return held.withLock { held in
            if let after = filter.after {
                // Ids increase along the deque: start at the first one past the cursor.
                let start = Self.firstIndex(in: held.entries, after: after)
                return Self.pick(held.entries[start...].lazy.filter(filter.matches), limit: limit)
            }
            let (newestFirst, truncated) = Self.pick(held.entries.reversed().lazy.filter(filter.matches), limit: limit)
            return (newestFirst.reversed(), truncated)
        }
    }

    /// The index of the first entry whose id is greater than `id` (a binary search: ids increase).
    private static func firstIndex(in entries: Deque<JournalEntry>, after id: Int64) -> Int {
        var (low, high) = (entries.startIndex, entries.endIndex)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].id > id { high = middle } else { low = middle + 1 }
        }
        return low
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

    /// How many entries match `filter` (its limit ignored).
    func count(matching filter: JournalFilter) -> Int {
        held.withLock { held in held.entries.reduce(0) { $0 + (filter.matches($1) ? 1 : 0) } }
    }

    /// Forgets every entry.
    func clear() {
        held.withLock { held in
            held.entries.removeAll()
            held.bytes = 0
        }
    }

    /// Forgets the entries of one account (an account reset).
    func removeAll(accountId: String) {
        held.withLock { held in
            held.entries.removeAll { $0.accountId == accountId }
            held.bytes = held.entries.reduce(0) { $0 + Self.size(of: $1) }
        }
    }

    /// How many entries are held.
    var count: Int { held.withLock { $0.entries.count } }

    /// How many bytes the held entries take, as ``size(of:)`` counts them.
    var bytes: Int { held.withLock { $0.bytes } }

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
