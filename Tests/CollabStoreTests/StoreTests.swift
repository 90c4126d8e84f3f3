import CollabCore
import CollabStore
import Foundation
import Logging
import SQLiteNIO
import Testing

@Suite("Stores")
struct StoreTests {
    /// A named area's record; its store id is `NamedArea/<id>`.
    static func area(_ id: String, name: String = "n", account: String = "acc") -> DeclaredRecord<NamedArea> {
        var area = NamedArea(siteId: id, name: name)
        area.id = id
        area.accountId = account
        area.creationTimestamp = 1
        return DeclaredRecord(area)
    }

    static func name(_ record: StoredRecord) throws -> String? {
        try RecordCoding.decode(DeclaredRecord<NamedArea>.self, from: record).entity.name
    }

    static func temporaryPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString)")
        return directory.appendingPathComponent("nested/state.sqlite").path
    }

    @Test("SQLite: put, replace, delete and reload after reopening")
    func sqliteRoundTrip() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply([.put(Self.area("a", name: "one")), .put(Self.area("b")), .put(GlobalConfiguration(properties: ["k": "v"]))])
        try await store.apply([.put(Self.area("a", name: "two")), .delete(.declared, id: "NamedArea/b")])
        try await store.close()

        let reopened = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        let records = try await reopened.loadAll().sorted { $0.id < $1.id }
        #expect(records.map(\.id) == ["NamedArea/a", "global"])
        #expect(try Self.name(records[0]) == "two")
        #expect(records[1].accountId == nil)
        try await reopened.close()
    }

    @Test("SQLite: an account's data goes in one statement, other accounts' stays")
    func sqliteDeleteAccountData() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply([.put(Self.area("a1", account: "a")), .put(Self.area("a2", account: "a")), .put(Self.area("b1", account: "b"))])
        try await store.apply([.deleteAccountData("a"), .put(Self.area("a3", account: "a"))])
        #expect(try await store.loadAll().map(\.id).sorted() == ["NamedArea/a3", "NamedArea/b1"])
        try await store.close()
    }

    @Test("SQLite: a large batch of puts and deletes keeps its order (multi-row inserts)")
    func sqliteBatchOrder() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        var batch: [StoreChange] = (0..<600).map { .put(Self.area("r\($0)", name: "first")) }
        batch += [
            .delete(.declared, id: "NamedArea/r5"), .put(Self.area("r7", name: "second")), .put(Self.area("r5", name: "back")),
            .put(Self.area("r7", name: "third")),
        ]
        try await store.apply(batch)
        let records = try await store.loadAll()
        #expect(records.count == 600)
        let names = Dictionary(uniqueKeysWithValues: try records.map { ($0.id, try Self.name($0)) })
        #expect(names["NamedArea/r5"] == "back")
        #expect(names["NamedArea/r7"] == "third")
        #expect(names["NamedArea/r599"] == "first")
        try await store.close()
    }

    @Test("the memory store keeps nothing: the state lives in the repository's shards")
    func memory() async throws {
        let store = MemoryStore()
        try await store.apply([.put(Self.area("a")), .put(Self.area("b")), .delete(.declared, id: "NamedArea/a")])
        #expect(try await store.loadAll().isEmpty)
    }

    @Test("a batch that fails leaves nothing behind")
    func atomicBatch() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply([.put(Self.area("kept"))])
        // A record whose body is not valid UTF-8 JSON still stores; to force a failure close the store first.
        try await store.close()
        await #expect(throws: (any Error).self) { try await store.apply([.put(Self.area("lost"))]) }
        let reopened = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        #expect(try await reopened.loadAll().map(\.id) == ["NamedArea/kept"])
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
        let (account, _) = try await repository.createAccount(AccountInput(name: "acc"), context: context) { _, _ throws(CollabError) in () }
        let accountId = account.id
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    _ = try await repository.write(account: accountId) { state, changes throws(CollabError) in
                        let area = NamedArea(siteId: "s\(index)", name: "n\(index)")
                        return try state.createEntity(area, for: .control(of: accountId), context: context, changes: &changes)
                    }
                }
            }
            try await group.waitForAll()
        }
        // Renaming one area many times: the last acknowledged name must be the stored one.
        let areaId = try #require(try repository.read(account: accountId) { $0.namedArea(siteId: "s0", accountId: accountId)?.id })
        for round in 1...50 {
            _ = try await repository.write(account: accountId) { state, changes throws(CollabError) in
                var area = try state.entity(NamedArea.self, areaId, for: .control(of: accountId))
                area.name = "round \(round)"
                return try state.updateEntity(area, for: .control(of: accountId), context: context, changes: &changes)
            }
        }
        try await repository.close()

        let reopened = try await StateRepository(store: try await SQLiteStore.open(path: path, logger: Logger(label: "test")))
        let areas = try reopened.read(account: accountId) { state in state.namedAreas.rows.values.filter { $0.accountId == accountId } }
        #expect(areas.count == 200)
        #expect(try reopened.read(account: accountId) { $0.namedAreas[areaId]?.name } == "round 50")
        #expect(reopened.directory.account(named: "acc")?.id == accountId)
        try await reopened.close()
    }

    @Test("shards: names stay unique across accounts, and a failed operation gives back what it claimed")
    func directoryAcrossShards() async throws {
        let repository = try await StateRepository(store: MemoryStore())
        let context = OperationContext(now: 1, ids: .system)
        let (a, _) = try await repository.createAccount(AccountInput(name: "a"), context: context) { _, _ throws(CollabError) in () }
        let (b, _) = try await repository.createAccount(AccountInput(name: "b"), context: context) { _, _ throws(CollabError) in () }
        _ = try await repository.write(account: a.id) { state, changes throws(CollabError) in
            try state.createUser(UserInput(username: "ann"), passwordHash: nil, accountId: a.id, grantor: .admin, context: context, changes: &changes)
        }
        await #expect(throws: CollabError.conflict("the username 'ann' is already taken")) {
            _ = try await repository.write(account: b.id) { state, changes throws(CollabError) in
                try state.createUser(
                    UserInput(username: "ann"), passwordHash: nil, accountId: b.id, grantor: .admin, context: context, changes: &changes)
            }
        }
        // Claims an API key, then fails: the key must be free again.
        await #expect(throws: CollabError.self) {
            _ = try await repository.write(account: b.id) { state, changes throws(CollabError) in
                _ = try state.createEntity(ApiKey(key: "k1", name: "k"), for: .control(of: b.id), context: context, changes: &changes)
                throw CollabError.badRequest("later step failed")
            }
        }
        #expect(repository.directory.accountId(for: .apiKey("k1")) == nil)
        _ = try await repository.write(account: a.id) { state, changes throws(CollabError) in
            try state.createEntity(ApiKey(key: "k1", name: "k"), for: .control(of: a.id), context: context, changes: &changes)
        }
        #expect(repository.directory.accountId(for: .apiKey("k1")) == a.id)
        await #expect(throws: CollabError.conflict("an account named 'a' already exists")) {
            _ = try await repository.createAccount(AccountInput(name: "a"), context: context) { _, _ throws(CollabError) in () }
        }
        // Deleting an account frees its names.
        try await repository.deleteAccount(a.id) { _ throws(CollabError) in }
        #expect(repository.directory.accountId(for: .username("ann")) == nil)
        #expect(repository.directory.accountId(for: .apiKey("k1")) == nil)
        #expect(repository.directory.account(named: "a") == nil)
        #expect(throws: CollabError.notFound("Account", a.id)) { try repository.read(account: a.id) { _ in () } }
        try await repository.close()
    }
}
