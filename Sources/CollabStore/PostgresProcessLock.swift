import Logging
import PostgresNIO

/// The one-process-per-database guard of ``PostgresStore``: a session advisory lock held on a
/// connection of its own, plus an ownership generation in `mock_collab_owner`.
///
/// A process that loses its session (the database restarted, the network dropped) may carry on only
/// if nobody else served from the database meanwhile: it takes the lock again and checks that the
/// generation is still the one it wrote. If another process took over, its memory is stale and it
/// stays unhealthy until restarted.
actor PostgresProcessLock {
    /// The advisory lock key a serving process holds for its lifetime ("MCPROC").
    static let key: Int64 = 0x4D43_5052_4F43

    enum Failure: Error {
        case taken
    }

    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private var session: PostgresConnection?
    private var generation: Int64 = 0
    private var supplanted = false
    /// Replicas of a cluster hold the lock shared: they exclude a lone process, not each other, and
    /// follow each other's changes, so a lost session needs no generation check.
    private let shared: Bool

    init(configuration: PostgresConnection.Configuration, shared: Bool = false, logger: Logger) {
        self.configuration = configuration
        self.shared = shared
        self.logger = logger
    }

    /// Takes the lock and a new generation. Throws ``Failure/taken`` when another process holds it.
    func acquire() async throws {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        do {
            guard try await Self.tryLock(connection, shared: shared, logger: logger) else { throw Failure.taken }
            if shared {
                session = connection
                return
            }
            var claimed: Int64 = 0
            let rows = try await connection.query(
                """
                INSERT INTO mock_collab_owner (id, generation) VALUES (1, 1)
                ON CONFLICT (id) DO UPDATE SET generation = mock_collab_owner.generation + 1 RETURNING generation
                """,
                logger: logger
            )
            for try await value in rows.decode(Int64.self) { claimed = value }
            generation = claimed
            session = connection
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `nil` while this process holds the lock (taking it again after a lost session when nobody
    /// else served meanwhile), else why not.
    func check() async -> String? {
        if supplanted { return "another mock-collab process served from this database meanwhile; restart this one" }
        if let session, !session.isClosed { return nil }
        session = nil
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            guard try await Self.tryLock(connection, shared: shared, logger: logger) else {
                try? await connection.close()
                supplanted = !shared
                if shared { return "a mock-collab process without --cluster holds this database" }
                return "another mock-collab process holds this database; restart this one"
            }
            if shared {
                session = connection
                logger.notice("took the database's shared replica lock again after losing the session")
                return nil
            }
            var current: Int64 = -1
            for try await value in try await connection.query("SELECT generation FROM mock_collab_owner WHERE id = 1", logger: logger)
                .decode(Int64.self)
            {
                current = value
            }
            guard current == generation else {
                try? await connection.close()
                supplanted = true
                return "another mock-collab process served from this database meanwhile; restart this one"
            }
            session = connection
            logger.notice("took the database's one-process lock again after losing the session")
            return nil
        } catch {
            return "the session holding the one-process lock was lost (\(PostgresStore.describe(error)))"
        }
    }

    func release() async {
        try? await session?.close()
        session = nil
    }

    private static func tryLock(_ connection: PostgresConnection, shared: Bool, logger: Logger) async throws -> Bool {
        var locked = false
        let query: PostgresQuery = shared ? "SELECT pg_try_advisory_lock_shared(\(key))" : "SELECT pg_try_advisory_lock(\(key))"
        for try await value in try await connection.query(query, logger: logger).decode(Bool.self) {
            locked = value
        }
        return locked
    }
}
