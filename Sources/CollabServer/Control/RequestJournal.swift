import CollabCore
import CollabWire
import Synchronization

/// A bounded record of the requests the server answered, newest last.
///
/// A ring buffer: when full, the oldest entry goes. Entries hold no bodies, headers or secrets; query
/// parameters that carry secrets (API keys, tokens) are redacted.
final class RequestJournal: Sendable {
    private struct Ring {
        var entries: [JournalEntry] = []
        var start = 0
        var nextId: Int64 = 1
    }

    private let ring = Mutex(Ring())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Query parameters whose values are never recorded.
    static let redactedParameters: Set<String> = ["x-unblu-apikey", "apiKey", "authenticationToken", "token", "password", "access_token"]

    /// Records one answered request.
    func record(_ entry: JournalEntry) {
        ring.withLock { ring in
            var entry = entry
            entry.id = ring.nextId
            ring.nextId += 1
            if ring.entries.count < capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.start] = entry
                ring.start = (ring.start + 1) % capacity
            }
        }
    }

    /// The entries matching `filter`, oldest first, at most `filter.limit`.
    func entries(matching filter: JournalFilter) -> [JournalEntry] {
        let all: [JournalEntry] = ring.withLock { ring in
            Array(ring.entries[ring.start...] + ring.entries[..<ring.start])
        }
        let matching = all.filter { filter.matches($0) }
        return Array(matching.suffix(filter.limit ?? 1000))
    }

    /// Forgets every entry.
    func clear() {
        ring.withLock { ring in
            ring.entries.removeAll(keepingCapacity: true)
            ring.start = 0
        }
    }

    /// How many entries are held.
    var count: Int { ring.withLock { $0.entries.count } }

    /// The query string with secret-bearing parameters redacted.
    static func redact(query: String?) -> String? {
        guard let query, !query.isEmpty else { return nil }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return redactedParameters.contains(name) ? "\(name)=REDACTED" : String(pair)
        }.joined(separator: "&")
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
        return true
    }
}
