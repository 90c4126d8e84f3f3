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

    @OptionGroup var options: SearchBenchOptions

    func run() async throws {
        var results: [String: Double] = [:]
        for count in try options.counts() {
            let (state, admin) = try Self.account(holding: count)
            let middle = count / 2
            // Owners hold 10 responses each; one timestamp per response, a millisecond apart.
            // The vendor's canned-response filter has no ID field: an id is read (`read`, `readMultiple`).
            results["idRead.\(count).medianMicroseconds"] = try options.median {
                _ = try state.entity(CannedResponse.self, "cr-\(middle)", for: admin)
                return 1
            }
            let filters: [(name: String, filter: SearchFilter?)] = [
                ("foreignKey", SearchFilter(field: "OWNER_ID", op: .equals(.string("owner-\(middle / 10)")))),
                ("name", SearchFilter(field: "TITLE", op: .equals(.string("title \(middle)")))),
                ("timestampRange", SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: Int64(middle), to: Int64(middle + 9)))),
                ("textContains", SearchFilter(field: "TEXT", op: .contains("answer \(middle) "))),
                ("noFilterFirstPage", nil),
            ]
            for (name, filter) in filters {
                let query = try SearchQuery(filters: filter.map { [$0] } ?? [], limit: 10)
                results["\(name).\(count).medianMicroseconds"] = try options.median {
                    try state.searchEntities(CannedResponse.self, query, for: admin).items.count
                }
            }
        }
        try options.report(results)
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
