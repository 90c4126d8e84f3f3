import ArgumentParser
import CollabCore
import Foundation

/// `mock-collab bench entities`: the entity layer's search with few and with many entities of one kind
/// in one account (canned responses), by filter. A filter on an id, a foreign key, a name or a
/// timestamp is answered from an index and should cost the same at every size; a free-text filter, and
/// a query without filters, check every entity of the kind. In process, on the account's state (no
/// HTTP): numbers only mean something from a release build.
struct BenchEntitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entities", abstract: "Entity-layer search cost by filter, with few and with many entities of one kind in one account."
    )

    @Option(help: "Entity counts to measure, comma-separated.")
    var sizes: String = "100,100000"

    @Option(help: "Queries timed per filter and size (the median is reported).")
    var repeats: Int = 200

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let counts = sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 >= 10 }), repeats > 0 else { throw ValidationError("sizes of at least 10, and repeats > 0") }
        var results: [String: Double] = [:]
        for count in counts {
            let (state, admin) = try Self.account(holding: count)
            let middle = count / 2
            // Owners hold 10 responses each; one timestamp per response, a millisecond apart.
            // The vendor's canned-response filter has no ID field: an id is read (`read`, `readMultiple`).
            var reads: [Double] = []
            for _ in 0..<repeats {
                let started = ContinuousClock.now
                _ = try state.entity(CannedResponse.self, "cr-\(middle)", for: admin)
                reads.append((ContinuousClock.now - started).seconds * 1e6)
            }
            reads.sort()
            results["idRead.\(count).medianMicroseconds"] = reads[reads.count / 2]
            let filters: [(name: String, filter: SearchFilter?)] = [
                ("foreignKey", SearchFilter(field: "OWNER_ID", op: .equals(.string("owner-\(middle / 10)")))),
                ("name", SearchFilter(field: "TITLE", op: .equals(.string("title \(middle)")))),
                ("timestampRange", SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: Int64(middle), to: Int64(middle + 9)))),
                ("textContains", SearchFilter(field: "TEXT", op: .contains("answer \(middle) "))),
                ("noFilterFirstPage", nil),
            ]
            for (name, filter) in filters {
                let query = try SearchQuery(filters: filter.map { [$0] } ?? [], limit: 10)
                var samples: [Double] = []
                var found = 0
                for _ in 0..<repeats {
                    let started = ContinuousClock.now
                    found = try state.searchEntities(CannedResponse.self, query, for: admin).items.count
                    samples.append((ContinuousClock.now - started).seconds * 1e6)
                }
                precondition(found > 0, "\(name) found nothing")
                samples.sort()
                results["\(name).\(count).medianMicroseconds"] = samples[samples.count / 2]
            }
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for key in results.keys.sorted() { print("\(key): \(String(format: "%.1f", results[key] ?? 0))") }
        }
    }

    /// An account's state holding `count` canned responses, loaded as a start loads them, and an admin of it.
    static func account(holding count: Int) throws -> (AccountState, Principal) {
        let account = Account(id: "bench-account", name: "bench", creationTimestamp: 0, modificationTimestamp: 0)
        var records: [StoredRecord] = []
        records.reserveCapacity(count)
        for index in 0..<count {
            var response = try EntityWire.draft(CannedResponse.self, from: Data(#"{"ownerType":"USER"}"#.utf8))
            response.id = "cr-\(index)"
            response.accountId = account.id
            response.creationTimestamp = Int64(index)
            response.modificationTimestamp = Int64(index)
            response.version = 1
            response.ownerId = "owner-\(index / 10)"
            response.title = "title \(index)"
            response.text = "the canned answer \(index) for a frequent question"
            records.append(StoredRecord(encoding: DeclaredRecord(response)))
        }
        let state = try AccountState.load(account: account, records: records, directory: Directory())
        let admin = Principal(accountId: account.id, userId: nil, personId: nil, role: .admin, method: .basic)
        return (state, admin)
    }
}
