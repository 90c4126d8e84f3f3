import CollabCore
import CollabStore
import CollabWire
import Foundation
import Logging
import Testing

@Suite("Store change coalescing")
struct StoreChangeCoalescingTests {
    /// What a store holds, by record id: its name and account.
    static func contents(_ store: SQLiteStore) async throws -> [String: [String?]] {
        var contents: [String: [String?]] = [:]
        for record in try await store.loadAll() { contents[record.id] = [try StoreTests.name(record), record.accountId] }
        return contents
    }

    @Test("only the last put of a record is kept; deletes and the order of the rest stay")
    func keepsLastPut() {
        let batch: [StoreChange] = [
            .put(StoreTests.area("a", name: "1")), .put(StoreTests.area("b", name: "1")), .delete(.declared, id: "NamedArea/a"),
            .put(StoreTests.area("a", name: "2")), .deleteAccountData("other"), .put(StoreTests.area("b", name: "2")),
            .put(StoreTests.area("c", name: "1")),
        ]
        let kept = batch.withoutReplacedPuts()
        let described = kept.map { change -> String in
            switch change {
            case .put(let entity): "put \(entity.id) \((entity as? DeclaredRecord<NamedArea>)?.entity.name ?? "?")"
            case .delete(_, let id): "delete \(id)"
            case .deleteAccountData(let account): "delete account \(account)"
            }
        }
        #expect(
            described == [
                "delete NamedArea/a", "put NamedArea/a 2", "delete account other", "put NamedArea/b 2", "put NamedArea/c 1",
            ])
    }

    @Test("a record of another kind with the same id is not replaced")
    func keysOnKindAndId() {
        let batch: [StoreChange] = [.put(GlobalConfiguration(properties: ["k": "1"])), .put(StoreTests.area("global"))]
        #expect(batch.withoutReplacedPuts().count == 2)
    }

    @Test("SQLite: a coalesced batch stores what every change applied one by one stores (200 random batches)")
    func sameAsOneByOne() async throws {
        var random = SeededRandom(seed: 26)
        let coalesced = try await SQLiteStore.open(path: try StoreTests.temporaryPath(), logger: Logger(label: "test"))
        let oneByOne = try await SQLiteStore.open(path: try StoreTests.temporaryPath(), logger: Logger(label: "test"))
        for draw in 0..<200 {
            let batch: [StoreChange] = (0..<Int(random.next() % 12 + 1)).map { step in
                let id = "r\(random.next() % 5)"
                let account = random.next() % 2 == 0 ? "a" : "b"
                switch random.next() % 8 {
                case 0: return .delete(.declared, id: "NamedArea/\(id)")
                case 1: return .deleteAccountData(account)
                default: return .put(StoreTests.area(id, name: "\(draw).\(step)", account: account))
                }
            }
            try await coalesced.apply(batch)
            for change in batch { try await oneByOne.apply([change]) }
            #expect(try await Self.contents(coalesced) == Self.contents(oneByOne), "batch \(draw)")
        }
        try await coalesced.close()
        try await oneByOne.close()
    }

    @Test("SQLite: rows written with sorted keys (by earlier versions) and without both load")
    func sortedAndUnsortedRowsLoad() async throws {
        let sorted = StoredRecord(encoding: StoreTests.area("a", name: "sorted"))
        let unsorted = StoredRecord(encoding: StoreTests.area("b", name: "unsorted"), sortingKeys: false)
        #expect(try StoreTests.name(sorted) == "sorted")
        #expect(try StoreTests.name(unsorted) == "unsorted")
        let path = try StoreTests.temporaryPath()
        try await SQLiteMigrationTests.writeVersion1(path: path, records: [sorted, unsorted])
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply([.put(StoreTests.area("c", name: "written"))])
        let expected: [String: [String?]] = ["NamedArea/a": ["sorted", "acc"], "NamedArea/b": ["unsorted", "acc"], "NamedArea/c": ["written", "acc"]]
        #expect(try await Self.contents(store) == expected)
        try await store.close()
    }
}
