import ArgumentParser
import CollabCore
import Foundation

/// `mock-collab bench entities`: the entity layer's search with few and with many entities of one kind
/// in one account (canned responses), by filter. A filter on an id, a foreign key, a name or a
/// timestamp is answered from an index and should cost the same at every size, and so should a page in
/// an order the kind keeps (by id, a timestamp or the title); a free-text filter reads until it has a
/// page, and a page sorted by free text checks and sorts every entity of the kind. In process, on the account's state (no
/// HTTP): numbers only mean something from a release build.
struct BenchEntitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entities", abstract: "Entity-layer search cost by filter, with few and with many entities of one kind in one account."
    )

    @OptionGroup var options: SearchBenchOptions

    func run() async throws {
        try options.run(account: Self.account(holding:)) { state, admin, count, results in
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
            // The same free-text filter ordered by the text, an order the kind does not keep: a scan of every
            // response, where the query above reads them by id until it has a page (here: all of them).
            let byText = try SearchQuery(
                filters: [SearchFilter(field: "TEXT", op: .contains("answer \(middle) "))], orderBy: [SearchOrder(field: "TEXT")], limit: 10)
            results["textContainsScanned.\(count).medianMicroseconds"] = try options.median {
                try state.searchEntities(CannedResponse.self, byText, for: admin).items.count
            }
            // An update of one response, and one encoding of it as the store keeps it: the entity byte bound
            // (--max-entity-bytes-per-account) encodes the entity once more per write, to check the room and count it.
            var written = state
            let updated = try state.entity(CannedResponse.self, "cr-\(middle)", for: admin)
            results["update.\(count).medianMicroseconds"] = try options.median {
                var draft = try written.entity(CannedResponse.self, "cr-\(middle)", for: admin)
                draft.text = "answer \(middle) \(draft.version ?? 0)"
                var changes = ChangeSet()
                _ = try written.updateEntity(draft, for: admin, context: OperationContext(now: 1, ids: .system), changes: &changes)
                return 1
            }
            results["encodeOnce.\(count).medianMicroseconds"] = try options.median {
                try RecordCoding.encoder.encode(DeclaredRecord(updated)).count
            }
            // A first page by title, an order the kind keeps, and by text, one it does not (a scan and a sort).
            for (name, field) in [("titleOrderFirstPage", "TITLE"), ("textOrderFirstPageScanned", "TEXT")] {
                let query = try SearchQuery(orderBy: [SearchOrder(field: field, descending: true)], limit: 10)
                results["\(name).\(count).medianMicroseconds"] = try options.median {
                    try state.searchEntities(CannedResponse.self, query, for: admin).items.count
                }
            }
        }
    }

    /// An account's state holding `count` canned responses, and an admin of it.
    static func account(holding count: Int) throws -> (AccountState, Principal) {
        try SearchBenchOptions.account(holding: count) { index, accountId in
            var response = try EntityWire.draft(CannedResponse.self, from: Data(#"{"ownerType":"USER"}"#.utf8))
            response.id = "cr-\(index)"
            response.accountId = accountId
            response.creationTimestamp = Int64(index)
            response.modificationTimestamp = Int64(index)
            response.version = 1
            response.ownerId = "owner-\(index / 10)"
            response.title = "title \(index)"
            response.text = "the canned answer \(index) for a frequent question"
            return StoredRecord(encoding: DeclaredRecord(response))
        }
    }
}
