import CollabCore
import CollabStore
import Foundation
import Logging
import SQLiteNIO
import Testing

@Suite("SQLite schema migrations")
struct SQLiteMigrationTests {
    /// Writes a version-1 database as the code before schema version 2 wrote it: a WITHOUT ROWID table
    /// keyed by (kind, id) and an index on the account.
    static func writeVersion1(path: String, records: [StoredRecord]) async throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        _ = try await connection.query("PRAGMA journal_mode=WAL")
        _ = try await connection.query(
            """
            CREATE TABLE records (
                kind TEXT NOT NULL, id TEXT NOT NULL, account_id TEXT, body TEXT NOT NULL, PRIMARY KEY (kind, id)
            ) WITHOUT ROWID
            """
        )
        _ = try await connection.query("CREATE INDEX records_account ON records (account_id)")
        for record in records {
            _ = try await connection.query(
                "INSERT OR REPLACE INTO records (kind, id, account_id, body) VALUES (?, ?, ?, ?)",
                [.text(record.kind.rawValue), .text(record.id), record.accountId.map { .text($0) } ?? .null,
                 .text(String(decoding: record.body, as: UTF8.self))]
            )
        }
        _ = try await connection.query("PRAGMA user_version = 1")
        try await connection.close()
    }

    /// The ids of the records table in the order a scan of the table returns them, and the schema version.
    static func layout(path: String) async throws -> (ids: [String], version: Int?) {
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        let ids = try await connection.query("SELECT id FROM records ORDER BY seq").compactMap { $0.column("id")?.string }
        let version = try await connection.query("PRAGMA user_version").first?.column("user_version")?.integer
        try await connection.close()
        return (ids, version)
    }

    @Test("a version-1 database is converted in place and every record is found, unchanged")
    func version1Converted() async throws {
        let path = try StoreTests.temporaryPath()
        var written = (0..<300).map { StoredRecord(encoding: StoreTests.area("a\($0)", name: "area \($0)", account: $0 % 3 == 0 ? "b" : "a")) }
        written.append(StoredRecord(encoding: GlobalConfiguration(properties: ["k": "v"])))
        try await Self.writeVersion1(path: path, records: written)

        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        let key = { (record: StoredRecord) in "\(record.kind.rawValue)/\(record.id)" }
        #expect(try await store.loadAll().sorted { key($0) < key($1) } == written.sorted { key($0) < key($1) })
        try await store.close()
        #expect(try await Self.layout(path: path).version == SQLiteStore.schemaVersion)

        // Opening again finds the same records and migrates nothing.
        let reopened = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        #expect(try await reopened.loadAll().count == written.count)
        try await reopened.close()
    }

    @Test("after conversion, replace, delete and an account's deletion behave as before")
    func version1Writable() async throws {
        let path = try StoreTests.temporaryPath()
        let written = ["a1", "a2", "b1"].map { StoredRecord(encoding: StoreTests.area($0, account: String($0.prefix(1)))) }
        try await Self.writeVersion1(path: path, records: written)

        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply([.put(StoreTests.area("a1", name: "renamed", account: "a")), .delete(written[1].kind, id: written[1].id)])
        try await store.apply([.put(StoreTests.area("b2", account: "b")), .deleteAccountData("a")])
        let records = try await store.loadAll()
        #expect(records.map(\.id).sorted() == [written[2].id, StoredRecord(encoding: StoreTests.area("b2", account: "b")).id].sorted())
        try await store.close()
    }

    @Test("rows are kept in insertion order; a replaced row keeps its place, a deleted one put again goes to the end")
    func insertionOrder() async throws {
        let path = try StoreTests.temporaryPath()
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await store.apply(["z", "m", "a", "q"].map { .put(StoreTests.area($0)) })
        try await store.apply([.put(StoreTests.area("z", name: "again")), .put(StoreTests.area("b"))])
        try await store.apply([.delete(.declared, id: "NamedArea/m"), .put(StoreTests.area("m", name: "back"))])
        try await store.apply([.delete(.declared, id: "NamedArea/q")])
        try await store.apply([.put(StoreTests.area("q", name: "back"))])
        let expected = ["z", "a", "b", "m", "q"].map { StoredRecord(encoding: StoreTests.area($0)).id }
        let records = try await store.loadAll()
        #expect(records.map(\.id) == expected)
        #expect(try records.map(StoreTests.name) == ["again", "n", "n", "back", "back"])
        try await store.close()
        let layout = try await Self.layout(path: path)
        #expect(layout.ids == expected)
        #expect(layout.version == 2)
    }

    @Test("a record put again under another account moves to it: that account's deletion takes it, the first one's does not")
    func replacedAccount() async throws {
        let store = try await SQLiteStore.open(path: try StoreTests.temporaryPath(), logger: Logger(label: "test"))
        try await store.apply([.put(StoreTests.area("x", account: "a")), .put(StoreTests.area("y", account: "a"))])
        try await store.apply([.put(StoreTests.area("x", name: "moved", account: "b"))])
        try await store.apply([.deleteAccountData("a")])
        let left = try await store.loadAll()
        #expect(left.map(\.id) == [StoredRecord(encoding: StoreTests.area("x")).id])
        #expect(left.map(\.accountId) == ["b"])
        #expect(try left.map(StoreTests.name) == ["moved"])
        try await store.apply([.deleteAccountData("b")])
        #expect(try await store.loadAll().isEmpty)
        try await store.close()
    }
}
