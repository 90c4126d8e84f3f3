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
    /// The connection holding the lock.
    private(set) var session: PostgresConnection?
    private var generation: Int64 = 0
    private var supplanted = false
    /// The attempt in flight to take the lock again after a lost session (see ``check()``).
    private var retaking: Task<String?, Never>?
    private var released = false
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
    ///
    /// Single-flight: `/readyz` calls arriving while the lock is being taken again wait for that one
    /// attempt. Each taking it on a connection of its own would lose to the other (a second session of
    /// this very process) and call the process supplanted, or, shared, leak the first connection.
    func check() async -> String? {
        if supplanted { return Self.supplantedProblem }
        if let session, !session.isClosed { return nil }
        if let retaking { return await retaking.value }
        let task = Task { await self.takeAgain() }
        retaking = task
        return await task.value
    }

    /// How many sessions the lock opened after its first (tests check concurrent checks open one).
    private(set) var sessionsRetaken = 0

    private static let supplantedProblem = "another mock-collab process served from this database meanwhile; restart this one"

    /// Takes the lock again after the session was lost: the one attempt in flight (see ``check()``).
    private func takeAgain() async -> String? {
        defer { retaking = nil }
        session = nil
        sessionsRetaken += 1
        var opened: PostgresConnection?
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            opened = connection
            guard try await Self.tryLock(connection, shared: shared, logger: logger) else {
                try? await connection.close()
                supplanted = !shared
                if shared { return "a mock-collab process without --cluster holds this database" }
                return "another mock-collab process holds this database; restart this one"
            }
            if !shared {
                var current: Int64 = -1
                for try await value in try await connection.query("SELECT generation FROM mock_collab_owner WHERE id = 1", logger: logger)
                    .decode(Int64.self)
                {
                    current = value
                }
                guard current == generation else {
                    try? await connection.close()
                    supplanted = true
                    return Self.supplantedProblem
                }
            }
            guard !released else {
                try? await connection.close()
                return "the one-process lock was released"
            }
            session = connection
            logger.notice(
                shared
                    ? "took the database's shared replica lock again after losing the session"
                    : "took the database's one-process lock again after losing the session"
            )
            return nil
        } catch {
            try? await opened?.close()
            return "the session holding the one-process lock was lost (\(PostgresStore.describe(error)))"
        }
    }

    func release() async {
        released = true
        if let retaking { _ = await retaking.value }
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
