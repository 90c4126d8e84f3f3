import Logging
import PostgresNIO

/// A cluster replica's hold on the leader lock: a session advisory lock on one connection of its own.
///
/// The clock-driven tasks ask whether this replica leads on every tick (ten times a second). The leader
/// answers from its session. A follower keeps its connection too and asks the database again at most
/// once per `retryInterval`, answering "no" from memory in between: asking on every tick cost a new
/// connection each time. Attempts are single-flight: callers arriving while one runs wait for its
/// answer, so two callers of one replica never race two sessions for the one lock.
actor LeaderLock {
    /// What became of one attempt to take the lock.
    private struct Attempt {
        var connection: PostgresConnection?
        var locked: Bool
    }

    private let configuration: PostgresConnection.Configuration
    private let key: Int64
    private let retryInterval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let logger: Logger
    /// The connection the lock is held, or asked for, on.
    private(set) var session: PostgresConnection?
    private var leading = false
    private var attempt: Task<Bool, Never>?
    private var lastAttempt: ContinuousClock.Instant?
    private var released = false
    /// How many connections the lock opened: one for as long as the database stays reachable.
    private(set) var connectionsOpened = 0
    /// How many times it asked the database for the lock.
    private(set) var attempts = 0

    /// - Parameters:
    ///   - configuration: How to connect (the lock's connection is its own, outside the pool).
    ///   - key: The advisory lock's key.
    ///   - retryInterval: How long a follower answers "no" from memory before it asks again (how soon
    ///     it takes over from a leader that went away).
    ///   - now: The clock the retry interval is measured on.
    ///   - logger: Where leadership changes are logged.
    init(
        configuration: PostgresConnection.Configuration, key: Int64, retryInterval: Duration = .seconds(1),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, logger: Logger
    ) {
        self.configuration = configuration
        self.key = key
        self.retryInterval = retryInterval
        self.now = now
        self.logger = logger
    }

    /// Whether this replica holds the lock, taking it when it is free (at most once per retry interval).
    func holds() async -> Bool {
        if leading {
            if let session, !session.isClosed { return true }
            // The session is gone and the lock with it: another replica may take it, this one too, at once.
            logger.warning("this replica lost the leader lock's session")
            leading = false
            session = nil
            lastAttempt = nil
        }
        if let attempt { return await attempt.value }
        if released { return false }
        let instant = now()
        if let lastAttempt, instant < lastAttempt + retryInterval { return false }
        lastAttempt = instant
        let task = Task { await self.ask() }
        attempt = task
        return await task.value
    }

    /// Asks the database for the lock on the session (connecting first if it has none) and keeps the
    /// session, holding the lock or not. The one attempt in flight.
    private func ask() async -> Bool {
        defer { attempt = nil }
        attempts += 1
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        let existing = session.flatMap { $0.isClosed ? nil : $0 }
        if existing == nil { connectionsOpened += 1 }
        let outcome = await Self.tryLock(key, on: existing, configuration: configuration, logger: quiet)
        session = outcome.connection
        if released {
            try? await outcome.connection?.close()
            session = nil
            return false
        }
        leading = outcome.locked
        if leading { logger.notice("this replica now runs the cluster's timed work") }
        return leading
    }

    private static func tryLock(
        _ key: Int64, on existing: PostgresConnection?, configuration: PostgresConnection.Configuration, logger: Logger
    ) async -> Attempt {
        var opened: PostgresConnection?
        do {
            let connection: PostgresConnection
            if let existing {
                connection = existing
            } else {
                connection = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
                opened = connection
            }
            var locked = false
            for try await value in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger).decode(Bool.self) {
                locked = value
            }
            return Attempt(connection: connection, locked: locked)
        } catch {
            try? await (opened ?? existing)?.close()
            return Attempt(connection: nil, locked: false)
        }
    }

    /// Gives the lock up at once (so another replica can take over without waiting for the session to
    /// end) and closes the session.
    func release() async {
        released = true
        if let attempt { _ = await attempt.value }
        guard let session else { return }
        if leading { _ = try? await session.query("SELECT pg_advisory_unlock(\(key))", logger: logger) }
        leading = false
        self.session = nil
        try? await session.close()
    }
}
