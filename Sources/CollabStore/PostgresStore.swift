public import CollabCore
import Foundation
public import Logging
import NIOSSL
import PostgresNIO

/// A store in a PostgreSQL database (`--storage postgres://USER:PASS@HOST:PORT/DB`).
///
/// The same shape as ``SQLiteStore``: one table of JSON records keyed by kind and id, written in
/// transactions, so a committed batch is in the database before a request is answered. Schema changes
/// are numbered migrations recorded in `mock_collab_migrations`; they run under a transaction-scoped
/// advisory lock, so several processes starting against one database migrate it once. A serving
/// process holds a session advisory lock (``PostgresProcessLock``): a second process on the same
/// database is refused, since each keeps its state in memory and they would overwrite each other's
/// writes.
///
/// Connections come from postgres-nio's pool, which reconnects by itself. A failed write makes the
/// server stop acknowledging writes (see ``StateRepository``); ``checkHealth()`` tells `/readyz`
/// whether the database answers right now.
public final class PostgresStore: Store {
    /// The schema version this code writes.
    public static let schemaVersion = 5

    /// Numbered migrations: version → statements, applied in order, each version in one transaction.
    static let migrations: [(version: Int, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE IF NOT EXISTS mock_collab_records (
                    kind TEXT NOT NULL,
                    id TEXT NOT NULL,
                    account_id TEXT,
                    body TEXT NOT NULL,
                    PRIMARY KEY (kind, id)
                )
                """,
                "CREATE INDEX IF NOT EXISTS mock_collab_records_account ON mock_collab_records (account_id)",
            ]
        ),
        (
            2,
            [
                // Which serving process owns the database (see PostgresProcessLock).
                "CREATE TABLE IF NOT EXISTS mock_collab_owner (id INTEGER PRIMARY KEY CHECK (id = 1), generation BIGINT NOT NULL)"
            ]
        ),
        (
            3,
            [
                // The ordered change log replicas follow (see PostgresStore+Cluster.swift).
                """
                CREATE TABLE IF NOT EXISTS mock_collab_changes (
                    seq BIGSERIAL PRIMARY KEY,
                    origin TEXT NOT NULL,
                    entry TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """
            ]
        ),
        (
            4,
            [
                // The latest co-browsing frame per session, relayed between replicas: not durable
                // (frames never are), so UNLOGGED — no write-ahead log, emptied after a crash.
                """
                CREATE UNLOGGED TABLE IF NOT EXISTS mock_collab_frames (
                    session_id TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL,
                    seq BIGINT NOT NULL,
                    origin TEXT NOT NULL,
                    frame BYTEA NOT NULL
                )
                """
            ]
        ),
        (
            5,
            [
                // The newest change-log entry pruned away: a replica behind it cannot catch up.
                "CREATE TABLE IF NOT EXISTS mock_collab_log_floor (id INTEGER PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL)",
                "INSERT INTO mock_collab_log_floor (id, seq) VALUES (1, 0) ON CONFLICT DO NOTHING",
                // The replicas serving now, for cluster-wide journal and statistics.
                """
                CREATE TABLE IF NOT EXISTS mock_collab_replicas (
                    origin TEXT PRIMARY KEY,
                    url TEXT NOT NULL,
                    seen_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """,
            ]
        ),
    ]

    /// The advisory lock key that serializes migrations across processes ("MCMIGR" in ASCII).
    static let migrationLock: Int64 = 0x4D43_4D49_4752

    let client: PostgresClient
    /// The one-process lock (shared among the replicas of a cluster).
    let lock: PostgresProcessLock
    private let runner: Task<Void, Never>
    let logger: Logger
    /// How new connections are made (the listener and the leader lock hold their own).
    let connectionConfiguration: PostgresConnection.Configuration
    /// Whether several replicas share the database (`--cluster`).
    public let isCluster: Bool
    /// The leader lock of a cluster replica (see ``holdsLeadership()``).
    let leadership: LeaderLock
    /// Where the database is, without the password (for messages).
    public let displayLocation: String

    private init(
        client: PostgresClient, lock: PostgresProcessLock, runner: Task<Void, Never>, logger: Logger, displayLocation: String,
        connectionConfiguration: PostgresConnection.Configuration, isCluster: Bool, writeTimeout: Duration
    ) {
        self.writeTimeout = writeTimeout
        self.client = client
        self.lock = lock
        self.connectionConfiguration = connectionConfiguration
        self.isCluster = isCluster
        self.leadership = LeaderLock(configuration: connectionConfiguration, key: Self.leaderLock, logger: logger)
        self.runner = runner
        self.logger = logger
        self.displayLocation = displayLocation
    }

    /// Connects, checks that the database answers within `timeout`, and migrates it.
    /// - Throws: ``PostgresStoreError`` with a clear message when the URL is malformed, the database
    ///   cannot be reached or refuses the credentials, or its schema is newer than this build.
    /// - Parameter cluster: Whether this process is one of several replicas sharing the database
    ///   (they follow each other's changes through the change log) rather than its only server.
    /// - Parameter writeTimeout: How long a write may wait for the database before it fails (and the
    ///   request is answered 503).
    public static func open(
        url: String, logger: Logger, cluster: Bool = false, timeout: Duration = .seconds(10), writeTimeout: Duration = .seconds(15)
    ) async throws -> PostgresStore {
        let location = try PostgresLocation(parsing: url)
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
            tls: location.requireTLS ? .require(.makeClientConfiguration()) : .disable
        )
        configuration.options.connectTimeout = timeout
        configuration.options.maximumConnections = 8
        // Bounded on the database's side too: a query waiting on a lock cannot be cancelled from here,
        // so without these a write queued behind a stalled replica's transaction would outlive its
        // timeout, and a replica that vanished mid-transaction would hold its account's lock.
        let bound = String(writeTimeout.components.seconds * 1000 + writeTimeout.components.attoseconds / 1_000_000_000_000_000)
        configuration.options.additionalStartupParameters = [("lock_timeout", bound), ("idle_in_transaction_session_timeout", bound)]
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        // One connection first, for a precise error (refused, unknown host, bad password) rather than
        // a pool that keeps retrying in the background.
        var probe = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
            tls: location.requireTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable
        )
        probe.options.connectTimeout = .nanoseconds(timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        do {
            let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: quiet)
            try? await connection.close()
        } catch {
            throw PostgresStoreError.unreachable(location.display, Self.describe(error))
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: quiet)
        let runner = Task { await client.run() }
        // One process per database until replicas follow each other's changes: each process keeps
        // its state in memory, so a second one would work from a stale copy and overwrite the first's
        // writes.
        let lock = PostgresProcessLock(configuration: probe, shared: cluster, logger: quiet)
        let store = PostgresStore(
            client: client, lock: lock, runner: runner, logger: logger, displayLocation: location.display, connectionConfiguration: probe,
            isCluster: cluster, writeTimeout: writeTimeout
        )
        do {
            if let problem = await store.checkHealth(timeout: timeout) {
                throw PostgresStoreError.unreachable(location.display, problem)
            }
            try await store.migrate()
            do {
                try await lock.acquire()
            } catch PostgresProcessLock.Failure.taken {
                throw cluster ? PostgresStoreError.servedAlone(location.display) : PostgresStoreError.inUse(location.display)
            }
        } catch let error as PostgresTransactionError {
            try? await store.close()
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    /// What a connection error says, in a line: the server's message, or the network's.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    private func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS mock_collab_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                logger: logger
            )
            var current = 0
            for try await version in try await connection.query("SELECT COALESCE(MAX(version), 0) FROM mock_collab_migrations", logger: logger)
                .decode(Int.self)
            {
                current = version
            }
            guard current <= Self.schemaVersion else {
                throw PostgresStoreError.newerSchema(found: current, supported: Self.schemaVersion)
            }
            for migration in Self.migrations where migration.version > current {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO mock_collab_migrations (version) VALUES (\(migration.version))", logger: logger)
                logger.info("migrated storage schema", metadata: ["from": "\(current)", "to": "\(migration.version)"])
                current = migration.version
            }
        }
    }

    public func loadAll() async throws -> [StoredRecord] {
        try await Self.records(client.query("SELECT kind, id, account_id, body FROM mock_collab_records", logger: logger))
    }

    /// The records of rows of `kind, id, account_id, body`.
    static func records(_ rows: PostgresRowSequence) async throws -> [StoredRecord] {
        var records: [StoredRecord] = []
        for try await (kindText, id, accountId, body) in rows.decode((String, String, String?, String).self) {
            guard let kind = EntityKind(rawValue: kindText) else { throw PostgresStoreError.corruptRow }
            records.append(StoredRecord(kind: kind, id: id, accountId: accountId, body: Data(body.utf8)))
        }
        return records
    }

    /// Rows per multi-row INSERT: 4 parameters each, well under PostgreSQL's limit of 65,535.
    static let rowsPerInsert = 512

    /// How long a batch may take before it counts as failed (a database that stopped answering must
    /// not hold requests forever).
    let writeTimeout: Duration

    public func apply(_ changes: [StoreChange]) async throws {
        guard !changes.isEmpty else { return }
        do {
            try await withinWriteTimeout("a write") { try await self.write(changes) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    /// Runs `work`, cancelling it when it takes longer than the write timeout: a database that stopped
    /// answering (the pool keeps trying to reconnect) must not hold a request forever.
    /// - Throws: `unreachable` naming `what` after the timeout, or what `work` throws.
    func withinWriteTimeout<Value: Sendable>(_ what: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: self.writeTimeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw PostgresStoreError.unreachable(self.displayLocation, "\(what) got no answer within \(self.writeTimeout)")
            }
            return value
        }
    }

    private func write(_ changes: [StoreChange]) async throws {
        let logger = self.logger
        try await client.withTransaction(logger: logger) { connection in
            try await Self.writeRecords(changes, on: connection, logger: logger)
        }
    }

    /// Writes `changes` to the records table on `connection` (inside the caller's transaction).
    static func writeRecords(_ changes: [StoreChange], on connection: PostgresConnection, logger: Logger) async throws {
        // Runs of puts go out as one multi-row upsert each. One statement may not touch a row
        // twice (ON CONFLICT DO UPDATE), so within a run only the last put of a key is sent: the
        // same outcome as applying them in order.
        var run: [String: StoredRecord] = [:]
        var order: [String] = []
        func flush() async throws {
            guard !run.isEmpty else { return }
            var bindings = PostgresBindings(capacity: order.count * 4)
            var placeholders: [String] = []
            placeholders.reserveCapacity(order.count)
            for (index, key) in order.enumerated() {
                guard let record = run[key] else { continue }
                bindings.append(record.kind.rawValue)
                bindings.append(record.id)
                bindings.append(record.accountId)
                bindings.append(String(decoding: record.body, as: UTF8.self))
                let base = index * 4
                placeholders.append("($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4))")
            }
            let sql = """
                INSERT INTO mock_collab_records (kind, id, account_id, body) VALUES \(placeholders.joined(separator: ", "))
                ON CONFLICT (kind, id) DO UPDATE SET account_id = EXCLUDED.account_id, body = EXCLUDED.body
                """
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            run.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
        }
        for change in changes {
            switch change {
            case .put(let entity):
                let record = StoredRecord(encoding: entity)
                let key = record.kind.rawValue + "\u{0}" + record.id
                if run.updateValue(record, forKey: key) == nil { order.append(key) }
                if order.count >= Self.rowsPerInsert { try await flush() }
            case .delete(let kind, let id):
                try await flush()
                try await connection.query("DELETE FROM mock_collab_records WHERE kind = \(kind.rawValue) AND id = \(id)", logger: logger)
            case .deleteAccountData(let accountId):
                try await flush()
                try await connection.query("DELETE FROM mock_collab_records WHERE account_id = \(accountId)", logger: logger)
            }
        }
        try await flush()
    }

    public func checkHealth() async -> String? {
        if let problem = await checkHealth(timeout: .seconds(2)) { return problem }
        return await lock.check()
    }

    /// `nil` when the database answers `SELECT 1` within `timeout`, else what went wrong.
    func checkHealth(timeout: Duration) async -> String? {
        let client = self.client
        let logger = self.logger
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await client.query("SELECT 1", logger: logger)
                    return nil
                } catch {
                    return PostgresStore.describe(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return "no answer within \(timeout)"
            }
            let first = await group.next() ?? "no answer"
            group.cancelAll()
            return first
        }
    }

    public func close() async throws {
        runner.cancel()
        await runner.value
        await lock.release()
        await leadership.release()
    }
}

/// A parsed `postgres://` storage URL.
struct PostgresLocation: Equatable {
    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String?
    var requireTLS: Bool

    /// The URL without its password.
    var display: String {
        "postgres://\(username)@\(host):\(port)/\(database ?? "")"
    }

    /// Parses `postgres://USER[:PASS]@HOST[:PORT][/DB][?sslmode=disable|require]` (`postgresql://` too).
    init(parsing text: String) throws(PostgresStoreError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme),
            let host = components.host, !host.isEmpty
        else {
            throw .badURL("expected postgres://USER:PASS@HOST:PORT/DB")
        }
        guard let user = components.user, !user.isEmpty else { throw .badURL("the URL names no user (postgres://USER:PASS@HOST:PORT/DB)") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .badURL("the port must be 1 to 65535") }
        let database = components.path.drop { $0 == "/" }
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        guard ["disable", "require"].contains(sslMode) else { throw .badURL("sslmode must be 'disable' or 'require'") }
        self.host = host
        self.port = port
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.isEmpty ? nil : String(database)
        self.requireTLS = sslMode == "require"
    }
}

/// Why a PostgreSQL database could not be used.
public enum PostgresStoreError: Error, CustomStringConvertible {
    case badURL(String)
    case unreachable(String, String)
    case newerSchema(found: Int, supported: Int)
    case inUse(String)
    case servedAlone(String)
    case corruptRow

    public var description: String {
        switch self {
        case .badURL(let problem): "the PostgreSQL storage URL is not usable: \(problem)"
        case .unreachable(let location, let problem): "cannot reach the PostgreSQL database at \(location): \(problem)"
        case .newerSchema(let found, let supported):
            "the database has schema version \(found), newer than this build supports (\(supported)); use a newer mock-collab"
        case .inUse(let location):
            "another mock-collab process is serving from the PostgreSQL database at \(location); "
                + "start every process with --cluster to run replicas on one database"
        case .servedAlone(let location):
            "a mock-collab process without --cluster is serving from the PostgreSQL database at \(location); "
                + "stop it, or start every process with --cluster"
        case .corruptRow: "the database holds a row that cannot be read"
        }
    }
}
