import CollabCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import PostgresNIO
import Testing

@testable import CollabStore

/// The PostgreSQL store against a real server. `scripts/test` starts a throwaway cluster
/// (`scripts/postgres-cluster`) and names it in `MOCK_COLLAB_TEST_POSTGRES`; without it these tests
/// are skipped. Each test works in a database of its own.
@Suite("PostgreSQL store", .enabled(if: PostgresTestDatabase.baseURL != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)"))
struct PostgresStoreTests {
    static func area(_ id: String, name: String = "n", account: String = "acc") -> DeclaredRecord<NamedArea> {
        StoreTests.area(id, name: name, account: account)
    }

    static var logger: Logger {
        var logger = Logger(label: "postgres-store-tests")
        logger.logLevel = .warning
        return logger
    }

    @Test("put, replace, delete, an account's data in one statement, and reload after reopening")
    func roundTrip() async throws {
        let url = try await PostgresTestDatabase.fresh()
        let store = try await PostgresTestDatabase.open(url, logger: Self.logger)
        try await store.apply([.put(Self.area("a1")), .put(Self.area("a2")), .put(Self.area("b1", account: "other"))])
        // The same key twice in one run of puts: the last one wins, as applied in order.
        try await store.apply([.put(Self.area("a1", name: "first")), .put(Self.area("a1", name: "second")), .delete(.declared, id: "NamedArea/a2")])
        try await store.close()

        let reopened = try await PostgresTestDatabase.open(url, logger: Self.logger)
        var records = try await reopened.loadAll().sorted { $0.id < $1.id }
        #expect(records.map(\.id) == ["NamedArea/a1", "NamedArea/b1"])
        #expect(try StoreTests.name(records[0]) == "second")
        try await reopened.apply([.deleteAccountData("acc")])
        records = try await reopened.loadAll()
        #expect(records.map(\.id) == ["NamedArea/b1"], "only the other account's data stays")
        try await reopened.close()
    }

    @Test("a batch larger than one statement keeps its order")
    func largeBatch() async throws {
        let store = try await PostgresTestDatabase.open(try await PostgresTestDatabase.fresh(), logger: Self.logger)
        var changes: [StoreChange] = (0..<1_500).map { .put(Self.area("area-\($0)")) }
        changes.append(.delete(.declared, id: "NamedArea/area-7"))
        changes += (0..<1_500).map { .put(Self.area("area-\($0)", name: "renamed")) }
        try await store.apply(changes)
        let records = try await store.loadAll()
        #expect(records.count == 1_500)
        #expect(try records.allSatisfy { try StoreTests.name($0) == "renamed" })
        try await store.close()
    }

    @Test("a failing batch leaves nothing behind")
    func atomic() async throws {
        let store = try await PostgresTestDatabase.open(try await PostgresTestDatabase.fresh(), logger: Self.logger)
        try await store.apply([.put(Self.area("kept"))])
        // A NUL byte is not valid in PostgreSQL text (the id is stored as it is): the statement fails,
        // and the whole batch with it.
        await #expect(throws: (any Error).self) {
            try await store.apply([.put(Self.area("lost")), .delete(.declared, id: "NamedArea/kept"), .put(Self.area("bad\u{0}id"))])
        }
        #expect(try await store.loadAll().map(\.id) == ["NamedArea/kept"])
        try await store.close()
    }

    @Test("the change log: entries in order, pruning raises the floor, replicas announce and withdraw")
    func changeLog() async throws {
        let store = try await PostgresTestDatabase.open(try await PostgresTestDatabase.fresh(), cluster: true, logger: Self.logger)
        for name in ["a", "b"] {
            _ = try await store.write(.accounts(["acc"])) { transaction in
                try await transaction.append([.put(Self.area(name))], entry: Data(#"{"n":"\#(name)"}"#.utf8), origin: "test") { 0 }
            }
        }
        let entries = try await store.entries(after: 0)
        #expect(entries.map { String(decoding: $0.body, as: UTF8.self) } == [#"{"n":"a"}"#, #"{"n":"b"}"#])
        #expect(try await store.entries(after: entries[0].sequence).map(\.sequence) == [entries[1].sequence])
        #expect(try await store.floor() == 0)
        #expect(try await store.prune(olderThanSeconds: 0) == 2)
        #expect(try await store.floor() == entries[1].sequence, "a replica behind this cannot catch up")
        #expect(try await store.entries(after: 0).isEmpty)
        #expect(try await store.loadAll().map(\.id).sorted() == ["NamedArea/a", "NamedArea/b"], "pruning the log keeps the records")

        try await store.announce(origin: "r1", url: "http://r1:8080")
        #expect(try await store.replicaURLs(seenWithinSeconds: 30).map(\.url) == ["http://r1:8080"])
        try await store.withdraw(origin: "r1")
        #expect(try await store.replicaURLs(seenWithinSeconds: 30).isEmpty)
        try await store.close()
    }

    @Test("one process per database; a newer schema is refused")
    func migrations() async throws {
        let url = try await PostgresTestDatabase.fresh()
        let first = try await PostgresTestDatabase.open(url, logger: Self.logger)
        do {
            _ = try await PostgresTestDatabase.open(url, logger: Self.logger)
            Issue.record("a second process opened the same database")
        } catch let error as PostgresStoreError {
            #expect(error.description.contains("another mock-collab process"))
        }
        try await first.close()
        try await PostgresTestDatabase.open(url, logger: Self.logger).close()
        try await PostgresTestDatabase.execute("INSERT INTO mock_collab_migrations (version) VALUES (99)", in: url)
        do {
            _ = try await PostgresTestDatabase.open(url, logger: Self.logger)
            Issue.record("a newer schema was opened")
        } catch let error as PostgresStoreError {
            #expect(error.description.contains("schema version 99"))
        }
    }

    @Test("an unreachable database is a clear error at start, without the password")
    func unreachable() async throws {
        let port = try PostgresTestDatabase.closedPort()
        let started = ContinuousClock.now
        do {
            _ = try await PostgresStore.open(url: "postgres://user:s3cret@127.0.0.1:\(port)/db", logger: Self.logger, timeout: .seconds(3))
            Issue.record("opened a database that is not there")
        } catch let error as PostgresStoreError {
            #expect(error.description.contains("cannot reach the PostgreSQL database at postgres://user@127.0.0.1:\(port)/db"))
            #expect(!error.description.contains("s3cret"))
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        do {
            let wrong = try #require(PostgresTestDatabase.baseURL).replacingOccurrences(of: "://mockcollab:", with: "://mockcollab:wrong")
            _ = try await PostgresStore.open(url: wrong, logger: Self.logger, timeout: .seconds(5))
            Issue.record("opened with a wrong password")
        } catch let error as PostgresStoreError {
            #expect(error.description.contains("password authentication failed"), "\(error)")
        }
    }
}

/// URLs and their redaction, without a database.
@Suite("PostgreSQL storage URLs")
struct PostgresLocationTests {
    @Test("parsing and redaction")
    func parsing() throws {
        let location = try PostgresLocation(parsing: "postgres://app:p%40ss@db.example:6543/state?sslmode=require")
        #expect(try location == PostgresLocation(parsing: "postgresql://app:p%40ss@db.example:6543/state?sslmode=require"))
        #expect(location.host == "db.example" && location.port == 6543 && location.username == "app" && location.password == "p@ss")
        #expect(location.database == "state" && location.requireTLS)
        #expect(location.display == "postgres://app@db.example:6543/state")
        #expect(try PostgresLocation(parsing: "postgres://app@localhost/x").port == 5432)
        #expect(throws: PostgresStoreError.self) { try PostgresLocation(parsing: "postgres://localhost/x") }
        #expect(throws: PostgresStoreError.self) { try PostgresLocation(parsing: "mysql://a@b/c") }
        #expect(throws: PostgresStoreError.self) { try PostgresLocation(parsing: "postgres://a@b/c?sslmode=verify-full") }
        let storage = try StorageLocation(parsing: "postgres://app:secret@localhost:5432/db")
        #expect(storage.description == "postgres://app:REDACTED@localhost:5432/db")
        #expect(throws: CollabError.self) { try StorageLocation(parsing: "postgres://nouser/db") }
    }
}

/// Databases for the PostgreSQL tests, made in the cluster `MOCK_COLLAB_TEST_POSTGRES` names.
enum PostgresTestDatabase {
    static var baseURL: String? { ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"] }

    /// How long opening a store may wait for the database. Generous: the suite runs in parallel with
    /// every other test, and these tests check behaviour, not how fast a busy machine connects.
    static let openTimeout: Duration = .seconds(60)
    /// How long a write may wait for the database, as generous for the same reason.
    static let writeTimeout: Duration = .seconds(60)

    /// Opens a store on `url` with the test timeouts.
    static func open(_ url: String, cluster: Bool = false, logger: Logger) async throws -> PostgresStore {
        try await PostgresStore.open(url: url, logger: logger, cluster: cluster, timeout: openTimeout, writeTimeout: writeTimeout)
    }

    /// Creates an empty database and returns its URL.
    static func fresh() async throws -> String {
        let base = try #require(baseURL)
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await execute("CREATE DATABASE \(name)", in: base)
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        return try #require(components.string)
    }

    /// Runs one statement in the database at `url`.
    static func execute(_ sql: String, in url: String) async throws {
        let location = try PostgresLocation(parsing: url)
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
            tls: .disable
        )
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: PostgresStoreTests.logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresStoreTests.logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// A loopback port nothing listens on (bound to find a free one, then closed).
    static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PostgresStoreError.badURL("no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw PostgresStoreError.badURL("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
