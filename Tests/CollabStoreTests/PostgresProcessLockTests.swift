import Testing

@testable import CollabStore

/// The one-process lock of the PostgreSQL store against a real server, in a database of its own.
@Suite("PostgreSQL process lock", .enabled(if: PostgresTestDatabase.baseURL != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)"))
struct PostgresProcessLockTests {
    @Test("after a lost session, concurrent readiness checks take the one-process lock again once", arguments: [false, true])
    func processLockSingleFlight(shared: Bool) async throws {
        let url = try await PostgresTestDatabase.fresh()
        // Opening a store creates the tables (the owner's generation).
        try await PostgresTestDatabase.open(url, cluster: shared, logger: PostgresStoreTests.logger).close()
        let lock = PostgresProcessLock(
            configuration: try PostgresTestDatabase.connectionConfiguration(url), shared: shared, logger: PostgresStoreTests.logger
        )
        try await lock.acquire()
        try await PostgresTestDatabase.end(try #require(await lock.session), in: url)

        let problems = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { await lock.check() } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(problems.compactMap { $0 }.isEmpty, "this process took its own lock again: \(problems)")
        #expect(await lock.check() == nil, "not mistaken for another process")
        #expect(await lock.sessionsRetaken == 1)
        #expect(try await PostgresTestDatabase.holders(of: PostgresProcessLock.key, in: url) == 1, "no session leaked")
        await lock.release()
    }
}
