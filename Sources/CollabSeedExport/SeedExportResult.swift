public import CollabCore
import CollabWire

/// A finished export: the seed, what went into it and what was left out, and why.
public struct SeedExportResult: Sendable {
    /// The seed, with one account.
    public var seed: Seed
    /// How many entities of each kind the seed holds, in the order they were read (`teams: 3`).
    public var exported: [(kind: String, count: Int)] = []
    /// One line per thing left out, with the reason (`bots: skipped, the server answered 403: …`).
    public var skipped: [String] = []
}

/// Reads one kind after another, recording counts and skips on the way.
struct KindReader {
    let pager: WebAPIPager
    let limit: Int
    let progress: @Sendable (String) -> Void
    var result: SeedExportResult

    /// The kind's items, or `nil` (and a skip recorded) when the server refused the search.
    mutating func read(_ kind: ExportedKind) async -> [JSONValue]? {
        progress("reading \(kind.label)")
        do {
            let page = try await pager.search(kind.searchPath, queryType: kind.queryType, expand: kind.expand, limit: limit)
            if page.truncated {
                skip("\(kind.label): stopped at \(limit) (the cap per kind; raise it with --max-per-kind): the rest is not exported")
            }
            return page.items
        } catch {
            skip("\(kind.label): skipped, \(error.status.map { "the server answered \($0)" } ?? "the request failed"): \(error.message)")
            return nil
        }
    }

    /// Records a thing left out.
    mutating func skip(_ line: String) {
        result.skipped.append(line)
        progress("skipped \(line)")
    }

    /// Records how many of a kind went into the seed.
    mutating func exported(_ kind: ExportedKind, _ count: Int) {
        result.exported.append((kind.label, count))
        progress("\(kind.label): \(count)")
    }
}
