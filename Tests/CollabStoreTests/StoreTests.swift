import CollabCore
import CollabStore
import Foundation
import Logging
import SQLiteNIO
import Testing

@Suite("Stores")
struct StoreTests {
    static func record(_ id: String, _ body: String = "{}", account: String? = "acc") -> StoredRecord {
        StoredRecord(kind: .namedArea, id: id, accountId: account, body: Data(body.utf8))
    }

    static func temporaryPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString)")
        return directory.appendingPathComponent("nested/state.sqlite").path
    }

    @Test("SQLite: put, replace, delete and reload after reopening")
    func sqliteRoundTrip() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply([.put(Self.record("a", #"{"v":1}"#)), .put(Self.record("b")), .put(Self.record("c", account: nil))])
        try await store.apply([.put(Self.record("a", #"{"v":2}"#)), .delete(.namedArea, id: "b")])
        try await store.close()

        let reopened = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        let records = try await reopened.loadAll().sorted { $0.id < $1.id }
        #expect(records.map(\.id) == ["a", "c"])
        #expect(String(decoding: records[0].body, as: UTF8.self) == #"{"v":2}"#)
        #expect(records[1].accountId == nil)
        try await reopened.close()
    }

    @Test("memory store behaves the same")
    func memory() async throws {
        let store = MemoryStore()
        try await store.apply([.put(Self.record("a")), .put(Self.record("b")), .delete(.namedArea, id: "a")])
        #expect(try await store.loadAll().map(\.id) == ["b"])
    }

    @Test("a batch that fails leaves nothing behind")
    func atomicBatch() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply([.put(Self.record("kept"))])
        // A record whose body is not valid UTF-8 JSON still stores; to force a failure close the store first.
        try await store.close()
        await #expect(throws: (any Error).self) { try await store.apply([.put(Self.record("lost"))]) }
        let reopened = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        #expect(try await reopened.loadAll().map(\.id) == ["kept"])
        try await reopened.close()
    }

    @Test("a database from a newer version is refused")
    func newerSchema() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.close()
        // Bump the schema version behind the store's back.
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        _ = try await connection.query("PRAGMA user_version = 99")
        try await connection.close()
        await #expect(throws: SQLiteStoreError.self) { _ = try await SQLiteStore.open(path: path, logger: Logger(label: "test")) }
    }

    @Test("the repository persists concurrent writes in order, and every acknowledged write is on disk")
    func repositoryGroupCommit() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        let repository = try await StateRepository(store: store)
        let context = OperationContext(now: 1, ids: .system)
        _ = try await repository.writeAtomically { state, changes throws(CollabError) in
            try state.apply(seed: Seed(accounts: [.init(name: "acc")]), passwordHashes: [:], context: context, changes: &changes)
        }
        let accountId = try #require(try repository.read { $0.account(named: "acc")?.id })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    _ = try await repository.write { state, changes throws(CollabError) in
                        try state.createNamedArea(NamedAreaInput(name: "n\(index)", siteId: "s\(index)"), accountId: accountId, context: context, changes: &changes)
                    }
                }
            }
            try await group.waitForAll()
        }
        // Renaming one area many times: the last acknowledged name must be the stored one.
        let areaId = try #require(try repository.read { $0.namedArea(siteId: "s0", accountId: accountId)?.id })
        for round in 1...50 {
            _ = try await repository.write { state, changes throws(CollabError) in
                let area = try state.namedArea(areaId, for: .control)
                return try state.updateNamedArea(id: areaId, version: area.version, NamedAreaInput(name: "round \(round)", siteId: "s0"), for: .control, context: context, changes: &changes)
            }
        }
        try await repository.close()

        let reopened = try await StateRepository(store: try await SQLiteStore.open(path: path, logger: Logger(label: "test")))
        let areas = try reopened.read { state in state.namedAreas.values.filter { $0.accountId == accountId } }
        #expect(areas.count == 200)
        #expect(try reopened.read { $0.namedAreas[areaId]?.name } == "round 50")
        try await reopened.close()
    }
}
