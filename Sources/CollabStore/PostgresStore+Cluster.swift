public import CollabCore
import Foundation
import Logging
import PostgresNIO

/// The cluster side of ``PostgresStore`` (`--cluster`): the change log replicas follow.
///
/// Locks, all transaction-scoped advisory locks:
/// - a write within accounts takes the global key shared and each account's key exclusively, so writes
///   to one account are serialized across the cluster while different accounts proceed in parallel;
///   a write spanning accounts (`.everything`) takes the global key exclusively;
/// - appending to the log takes the log key, held until commit, so entries become visible in
///   sequence order and a replica that reads `seq > N` never skips one that commits later.
extension PostgresStore: ChangeLog {
    /// "MCGLOB": every write holds it, shared or exclusively.
    static let globalLock: Int64 = 0x4D43_474C_4F42
    /// "MCLOG": held from an entry's append to its commit.
    static let logLock: Int64 = 0x4D43_4C4F_47
    /// "MCLEAD": held by the replica that runs timed work.
    static let leaderLock: Int64 = 0x4D43_4C45_4144
    /// The channel the log's writers notify.
    static let channel = "mock_collab_changes"

    /// A stable 64-bit key for an account's advisory lock (FNV-1a of its id).
    static func accountLock(_ accountId: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in accountId.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    public func write<Result: Sendable>(_ scope: ChangeLogScope, _ body: (any ChangeLogTransaction) async throws -> Result) async throws -> Result {
        // A database that stopped answering (the pool keeps retrying to connect) must not hold the
        // request forever: after the write timeout the transaction is cancelled and rolled back.
        try await withoutActuallyEscaping(body) { body in
            let work = UncheckedSendableBox(body)
            return try await withinWriteTimeout("a write") { try await self.transaction(scope, work.value) }
        }
    }

    private func transaction<Result: Sendable>(
        _ scope: ChangeLogScope, _ body: (any ChangeLogTransaction) async throws -> Result
    ) async throws -> Result {
        let logger = self.logger
        do {
            return try await client.withTransaction(logger: logger) { connection in
                switch scope {
                case .everything:
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.globalLock))", logger: logger)
                case .accounts(let ids):
                    try await connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.globalLock))", logger: logger)
                    // In a fixed order, so two multi-account writes cannot deadlock.
                    for key in Set(ids.map(Self.accountLock)).sorted() {
                        try await connection.query("SELECT pg_advisory_xact_lock(\(key))", logger: logger)
                    }
                }
                return try await body(PostgresLogTransaction(connection: connection, logger: logger))
            }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    public func entries(after sequence: Int64) async throws -> [LoggedEntry] {
        // Bounded like a write: a request waiting to catch up must not wait on a pool that keeps
        // reconnecting to a database that is gone.
        try await withinWriteTimeout("reading the change log") {
            try await self.client.withConnection { connection in
                try await PostgresLogTransaction(connection: connection, logger: self.logger).entries(after: sequence)
            }
        }
    }

    public func loadAllWithSequence() async throws -> (records: [StoredRecord], sequence: Int64) {
        let logger = self.logger
        return try await client.withConnection { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: logger)
            do {
                var sequence: Int64 = 0
                for try await value in try await connection.query("SELECT COALESCE(MAX(seq), 0) FROM mock_collab_changes", logger: logger)
                    .decode(Int64.self)
                {
                    sequence = value
                }
                let records = try await Self.records(connection.query("SELECT kind, id, account_id, body FROM mock_collab_records", logger: logger))
                try await connection.query("COMMIT", logger: logger)
                return (records, sequence)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    public func follow(_ wake: @escaping @Sendable () -> Void) async {
        // Anything committed while the listener was away is caught up once it listens again.
        await listen(on: Self.channel, name: "change-log", connectionId: 1, listening: wake) { _ in wake() }
    }

    /// Listens on `channel` on a connection of its own until cancelled, reconnecting when the connection
    /// is lost: `listening` runs each time it listens (again), `notified` with every payload.
    func listen(
        on channel: String, name: String, connectionId: Int, listening: @escaping @Sendable () -> Void = {},
        _ notified: @escaping @Sendable (String) -> Void
    ) async {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: connectionConfiguration, id: connectionId, logger: quiet)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: channel) { notifications in
                    listening()
                    for try await notification in notifications { notified(notification.payload) }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("\(name) listener lost its connection; reconnecting", metadata: ["error": "\(Self.describe(error))"])
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    public func prune(olderThanSeconds seconds: Int) async throws -> Int {
        var removed = 0
        let rows = try await client.query(
            """
            WITH gone AS (
                DELETE FROM mock_collab_changes WHERE created_at < now() - make_interval(secs => \(Double(seconds))) RETURNING seq
            ), raised AS (
                UPDATE mock_collab_log_floor SET seq = GREATEST(seq, (SELECT COALESCE(MAX(seq), 0) FROM gone)) WHERE id = 1
            ), departed AS (
                -- Replicas killed without withdrawing, long gone.
                DELETE FROM mock_collab_replicas WHERE seen_at < now() - interval '1 hour'
            )
            SELECT COUNT(*)::BIGINT FROM gone
            """,
            logger: logger
        )
        for try await count in rows.decode(Int64.self) { removed = Int(count) }
        return removed
    }

    public func floor() async throws -> Int64 {
        var floor: Int64 = 0
        for try await value in try await client.query("SELECT seq FROM mock_collab_log_floor WHERE id = 1", logger: logger).decode(Int64.self) {
            floor = value
        }
        return floor
    }

    public func announce(origin: String, url: String) async throws {
        try await client.query(
            """
            INSERT INTO mock_collab_replicas (origin, url) VALUES (\(origin), \(url))
            ON CONFLICT (origin) DO UPDATE SET url = EXCLUDED.url, seen_at = now()
            """,
            logger: logger
        )
    }

    public func withdraw(origin: String) async throws {
        try await client.query("DELETE FROM mock_collab_replicas WHERE origin = \(origin)", logger: logger)
    }

    public func replicaURLs(seenWithinSeconds seconds: Int) async throws -> [(origin: String, url: String)] {
        var replicas: [(origin: String, url: String)] = []
        let rows = try await client.query(
            "SELECT origin, url FROM mock_collab_replicas WHERE seen_at > now() - make_interval(secs => \(Double(seconds))) ORDER BY url",
            logger: logger
        )
        for try await (origin, url) in rows.decode((String, String).self) { replicas.append((origin, url)) }
        return replicas
    }

    public func holdsLeadership() async -> Bool {
        await leadership.holds()
    }
}

/// A cluster write's transaction on one connection.
struct PostgresLogTransaction: ChangeLogTransaction {
    let connection: PostgresConnection
    let logger: Logger

    func entries(after sequence: Int64) async throws -> [LoggedEntry] {
        var entries: [LoggedEntry] = []
        let rows = try await connection.query(
            "SELECT seq, origin, entry FROM mock_collab_changes WHERE seq > \(sequence) ORDER BY seq", logger: logger
        )
        for try await (seq, origin, entry) in rows.decode((Int64, String, String).self) {
            entries.append(LoggedEntry(sequence: seq, origin: origin, body: Data(entry.utf8)))
        }
        return entries
    }

    func records(account: String) async throws -> [StoredRecord] {
        try await PostgresStore.records(
            connection.query("SELECT kind, id, account_id, body FROM mock_collab_records WHERE account_id = \(account)", logger: logger)
        )
    }

    func append(_ changes: [StoreChange], entry: Data, origin: String, since: @Sendable () -> Int64) async throws -> (
        sequence: Int64, missing: [LoggedEntry]
    ) {
        try await PostgresStore.writeRecords(changes, on: connection, logger: logger)
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresStore.logLock))", logger: logger)
        let missing = try await entries(after: since())
        var sequence: Int64 = 0
        let text = String(decoding: entry, as: UTF8.self)
        for try await value in try await connection.query(
            "INSERT INTO mock_collab_changes (origin, entry) VALUES (\(origin), \(text)) RETURNING seq", logger: logger
        ).decode(Int64.self) {
            sequence = value
        }
        // Delivered at commit; the payload only wakes the listeners, the log is the truth.
        try await connection.query("SELECT pg_notify(\(PostgresStore.channel), \(String(sequence)))", logger: logger)
        return (sequence, missing)
    }
}

/// Carries a closure into the write's child task. Safe here: the parent waits for the child and the
/// closure runs in that one task, so it is never used concurrently.
private struct UncheckedSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
