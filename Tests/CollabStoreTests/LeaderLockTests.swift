import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import CollabStore

/// The leader lock of a cluster's replicas against a real server. Each test works in a database of its
/// own (advisory locks are per database, so tests running in parallel do not meet).
@Suite("PostgreSQL leader lock", .enabled(if: PostgresTestDatabase.baseURL != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)"))
struct LeaderLockTests {
    /// A clock the test moves by hand.
    final class ManualInstant: Sendable {
        private let instant = Mutex(ContinuousClock.now)

        var now: @Sendable () -> ContinuousClock.Instant { { self.instant.withLock { $0 } } }

        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test("a follower asks for the leader lock on one connection, at most once per interval; a release hands over at once")
    func followerDoesNotChurn() async throws {
        let url = try await PostgresTestDatabase.fresh()
        let configuration = try PostgresTestDatabase.connectionConfiguration(url)
        let clock = ManualInstant()
        let leader = LeaderLock(configuration: configuration, key: PostgresStore.leaderLock, now: clock.now, logger: PostgresStoreTests.logger)
        let follower = LeaderLock(configuration: configuration, key: PostgresStore.leaderLock, now: clock.now, logger: PostgresStoreTests.logger)
        #expect(await leader.holds())
        // The clock-driven tasks ask on every tick.
        for _ in 0..<50 { #expect(await !follower.holds()) }
        #expect(await follower.attempts == 1, "a \"no\" is remembered for the retry interval")
        clock.advance(by: .seconds(1))
        for _ in 0..<50 { #expect(await !follower.holds()) }
        #expect(await follower.attempts == 2)
        #expect(await follower.connectionsOpened == 1, "the follower asks again on the connection it keeps")
        #expect(await leader.attempts == 1)
        #expect(await leader.connectionsOpened == 1)

        await leader.release()
        clock.advance(by: .seconds(1))
        #expect(await follower.holds(), "the released lock is free at once")
        #expect(await follower.connectionsOpened == 1)
        #expect(try await PostgresTestDatabase.holders(of: PostgresStore.leaderLock, in: url) == 1)
        await follower.release()
    }

    @Test("concurrent callers share one attempt at the leader lock", arguments: [false, true])
    func leaderSingleFlight(taken: Bool) async throws {
        let url = try await PostgresTestDatabase.fresh()
        let configuration = try PostgresTestDatabase.connectionConfiguration(url)
        let other = LeaderLock(configuration: configuration, key: PostgresStore.leaderLock, logger: PostgresStoreTests.logger)
        if taken { #expect(await other.holds()) }
        let lock = LeaderLock(configuration: configuration, key: PostgresStore.leaderLock, logger: PostgresStoreTests.logger)
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 { group.addTask { await lock.holds() } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: !taken, count: 16), "one answer for every caller")
        #expect(await lock.connectionsOpened == 1)
        #expect(await lock.attempts == 1)
        await lock.release()
        await other.release()
    }

    @Test("the leader takes the lock again at once when its session is lost")
    func leaderLosesSession() async throws {
        let url = try await PostgresTestDatabase.fresh()
        let configuration = try PostgresTestDatabase.connectionConfiguration(url)
        let leader = LeaderLock(configuration: configuration, key: PostgresStore.leaderLock, logger: PostgresStoreTests.logger)
        #expect(await leader.holds())
        try await PostgresTestDatabase.end(try #require(await leader.session), in: url)
        #expect(await leader.holds())
        #expect(await leader.connectionsOpened == 2)
        await leader.release()
    }
}

extension PostgresTestDatabase {
    /// How a connection to `url` is made.
    static func connectionConfiguration(_ url: String) throws -> PostgresConnection.Configuration {
        let location = try PostgresLocation(parsing: url)
        return PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
            tls: .disable
        )
    }

    /// Ends a session as a lost connection would: closed on this side, and its server process gone (so
    /// its locks are free) before this returns.
    static func end(_ session: PostgresConnection, in url: String) async throws {
        var pid: Int32 = 0
        for try await value in try await session.query("SELECT pg_backend_pid()", logger: PostgresStoreTests.logger).decode(Int32.self) {
            pid = value
        }
        try await session.close()
        // Waits (up to 10 s) for the process to exit; a process already gone is only a warning.
        try await execute("SELECT pg_terminate_backend(\(pid), 10000)", in: url)
    }

    /// How many sessions hold the advisory lock `key` in the database at `url`.
    static func holders(of key: Int64, in url: String) async throws -> Int {
        let connection = try await PostgresConnection.connect(configuration: connectionConfiguration(url), id: 1, logger: PostgresStoreTests.logger)
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(
            """
            SELECT COUNT(*)::BIGINT FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND classid::BIGINT = \(key >> 32) AND objid::BIGINT = \(key & 0xFFFF_FFFF) AND objsubid = 1
            """,
            logger: PostgresStoreTests.logger
        )
        var count = 0
        for try await value in rows.decode(Int64.self) { count = Int(value) }
        return count
    }
}
