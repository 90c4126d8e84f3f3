public import CollabCore
import Foundation
public import Logging
import SQLiteNIO

/// A store in an SQLite database file (the default, `sqlite:./.mock-collab/state.sqlite`).
///
/// One table of JSON records in insertion order, found by kind and id through a unique index. The
/// database runs in WAL mode with `synchronous=NORMAL`: a committed transaction survives the process
/// being killed (`kill -9`); only a power loss can take the last few commits. Schema changes are
/// numbered migrations recorded in `user_version`; version 1 (a table keyed by kind and id) is converted
/// in place when opened.
public final class SQLiteStore: Store {
    /// The schema version this code writes.
    public static let schemaVersion = 2

    private let connection: SQLiteConnection
    private let checkpointer: WALCheckpointer
    private let lock: SQLiteFileLock

    private init(connection: SQLiteConnection, checkpointer: WALCheckpointer, lock: SQLiteFileLock) {
        self.connection = connection
        self.checkpointer = checkpointer
        self.lock = lock
    }

    /// Opens (creating if needed) the database at `path` and migrates it.
    /// - Throws: ``SQLiteStoreError/inUse(path:)`` when another process has it open.
    public static func open(path: String, logger: Logger) async throws -> SQLiteStore {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let lock = try SQLiteFileLock(databasePath: path)
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        } catch {
            lock.release()
            throw error
        }
        let checkpointer: WALCheckpointer
        do {
            checkpointer = try await WALCheckpointer(path: path, logger: logger)
        } catch {
            try? await connection.close()
            lock.release()
            throw error
        }
        let store = SQLiteStore(connection: connection, checkpointer: checkpointer, lock: lock)
        do {
            try await store.configure()
            try await store.migrate(logger: logger)
            try await store.keepStatementJournalsInMemory()
        } catch {
            try? await connection.close()
            await checkpointer.close()
            lock.release()
            throw error
        }
        return store
    }

    private func configure() async throws {
        _ = try await connection.query("PRAGMA journal_mode=WAL")
        _ = try await connection.query("PRAGMA synchronous=NORMAL")
        _ = try await connection.query("PRAGMA busy_timeout=5000")
        // A page cache of 16 MiB (the default is 2 MiB): enough for what writes touch, since the records sit
        // in insertion order and a changed row is updated in place. Not larger: a commit after a B-tree
        // page split that reuses a free page below its siblings scans the whole page cache (SQLite's
        // `pcache1TruncateUnsafe`), so a cache full of cold pages made every write of a full server dearer
        // (measured in docs/PERFORMANCE.md, "Growth rows measured in rounds").
        // (`mmap_size` of 256 MiB was measured against an earlier 64 MiB cache and not taken: no clearer gain,
        // and the mapped pages a start-up scan touches would count in the server's resident memory.)
        _ = try await connection.query("PRAGMA cache_size=-16384")
        // Checkpoints run beside the writer (WALCheckpointer), not inside a commit; the automatic one
        // stays as a backstop at about 160 MB of WAL. It is also what starts the WAL over under a steady
        // write load, in a commit, so it runs rarely: at 10,000 pages it ran about every half second.
        _ = try await connection.query("PRAGMA wal_autocheckpoint=40000")
    }

    /// Keeps SQLite's temporary files in memory, set once the migrations (whose index builds sort
    /// through them) are done. What uses one then is the statement journal: a statement inside a
    /// transaction keeps a copy of each page it changes, to undo itself if it fails, and past 64 KiB it
    /// spilled into a temporary file, written at every batch of a few dozen writes. It is memory for
    /// one statement's pages (256 rows at most) and holds nothing a crash needs: durability is the WAL's.
    private func keepStatementJournalsInMemory() async throws {
        _ = try await connection.query("PRAGMA temp_store=MEMORY")
    }

    private func migrate(logger: Logger) async throws {
        let rows = try await connection.query("PRAGMA user_version")
        let current = rows.first?.column("user_version")?.integer ?? 0
        guard current <= Self.schemaVersion else {
            throw SQLiteStoreError.newerSchema(found: current, supported: Self.schemaVersion)
        }
        guard current < Self.schemaVersion else { return }
        try await transaction {
            if current == 1 {
                // Version 1 kept the records in a WITHOUT ROWID table keyed by (kind, id): copy them, in
                // key order, into the insertion-ordered table, then drop the old one (and its index).
                try await createRecordsTable(named: "records_v2")
                _ = try await connection.query(
                    "INSERT INTO records_v2 (kind, id, account_id, body) SELECT kind, id, account_id, body FROM records ORDER BY kind, id"
                )
                _ = try await connection.query("DROP TABLE records")
                _ = try await connection.query("ALTER TABLE records_v2 RENAME TO records")
            } else {
                try await createRecordsTable(named: "records")
            }
            _ = try await connection.query("CREATE UNIQUE INDEX records_key ON records (kind, id)")
            _ = try await connection.query("CREATE INDEX records_account ON records (account_id, seq)")
            _ = try await connection.query("PRAGMA user_version = \(Self.schemaVersion)")
        }
        logger.info("migrated storage schema", metadata: ["from": "\(current)", "to": "\(Self.schemaVersion)"])
    }

    /// The records table of schema version 2, in insertion order: a new row goes after every other (its
    /// `seq` is the largest yet); a replaced row is updated where it is (see `apply`). Ids are random,
    /// so a table keyed by them put each new record (and its account index entry) on a page of its own;
    /// here new records share the last pages of the table and of `records_account`, and only the small
    /// `records_key` index takes a write at a random place.
    private func createRecordsTable(named name: String) async throws {
        _ = try await connection.query(
            """
            CREATE TABLE \(name) (
                seq INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                id TEXT NOT NULL,
                account_id TEXT,
                body TEXT NOT NULL
            )
            """
        )
    }

    public func loadAll() async throws -> [StoredRecord] {
        var records: [StoredRecord] = []
        for row in try await connection.query("SELECT kind, id, account_id, body FROM records ORDER BY seq") {
            guard let kindText = row.column("kind")?.string, let kind = EntityKind(rawValue: kindText),
                let id = row.column("id")?.string, let body = row.column("body")?.string
            else {
                throw SQLiteStoreError.corruptRow
            }
            records.append(StoredRecord(kind: kind, id: id, accountId: row.column("account_id")?.string, body: Data(body.utf8)))
        }
        return records
    }

    /// Rows per multi-row INSERT: 4 parameters each, well under SQLite's limit of 32,766.
    static let rowsPerInsert = 256

    public func apply(_ changes: [StoreChange]) async throws {
        guard !changes.isEmpty else { return }
        try await transaction {
            // Runs of puts go out as one multi-row INSERT each: every statement is a hop to SQLite's
            // thread, and a group-committed batch holds many puts. Order is kept (a later row for the
            // same key replaces an earlier one, within a statement as across statements). A put of a
            // record that exists updates its row in place, keeping its `seq`: deleting it and appending a
            // new row left free space that later page splits reused out of order, and each such split
            // made the commit scan SQLite's whole page cache (docs/PERFORMANCE.md). Only a new record
            // (or one deleted and put again) goes to the end.
            var rows: [SQLiteData] = []
            func flush() async throws {
                guard !rows.isEmpty else { return }
                let placeholders = Array(repeating: "(?, ?, ?, ?)", count: rows.count / 4).joined(separator: ", ")
                _ = try await connection.query(
                    """
                    INSERT INTO records (kind, id, account_id, body) VALUES \(placeholders)
                    ON CONFLICT (kind, id) DO UPDATE SET account_id = excluded.account_id, body = excluded.body
                    """,
                    rows
                )
                rows.removeAll(keepingCapacity: true)
            }
            // A record put again later in the batch is written once, as it is last (see `withoutReplacedPuts`).
            for change in changes.withoutReplacedPuts() {
                switch change {
                case .put(let entity):
                    let record = StoredRecord(encoding: entity, sortingKeys: false)
                    rows += [
                        .text(record.kind.rawValue), .text(record.id), record.accountId.map { .text($0) } ?? .null,
                        .text(String(decoding: record.body, as: UTF8.self)),
                    ]
                    if rows.count >= Self.rowsPerInsert * 4 { try await flush() }
                case .delete(let kind, let id):
                    try await flush()
                    _ = try await connection.query("DELETE FROM records WHERE kind = ? AND id = ?", [.text(kind.rawValue), .text(id)])
                case .deleteAccountData(let accountId):
                    try await flush()
                    _ = try await connection.query("DELETE FROM records WHERE account_id = ?", [.text(accountId)])
                }
            }
            try await flush()
        }
        checkpointer.committed()
    }

    private func transaction(_ body: () async throws -> Void) async throws {
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            try await body()
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    public func close() async throws {
        await checkpointer.close()
        defer { lock.release() }
        try await connection.close()
    }
}

/// Why an SQLite database could not be used.
public enum SQLiteStoreError: Error, CustomStringConvertible {
    case newerSchema(found: Int, supported: Int)
    case corruptRow
    /// Another process has the database open (its lock file is taken).
    case inUse(path: String)
    /// The lock file could not be opened or locked.
    case lockFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .newerSchema(let found, let supported):
            "the database has schema version \(found), newer than this build supports (\(supported)); use a newer mock-collab"
        case .corruptRow: "the database holds a row that cannot be read"
        case .inUse(let path):
            "another process has the database '\(path)' open: give this server its own file (--storage sqlite:PATH) or --storage memory"
        case .lockFile(let path, let reason): "cannot lock '\(path)': \(reason)"
        }
    }
}
