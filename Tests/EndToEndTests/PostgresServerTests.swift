import AsyncHTTPClient
import CollabClient
import Foundation
import NIOHTTP1
import PostgresNIO
import Testing

@testable import CollabStore

/// The real process on PostgreSQL: a 2xx survives `kill -9`, `/readyz` follows the database, a second
/// process is refused. Needs `MOCK_COLLAB_TEST_POSTGRES` (scripts/test starts a throwaway cluster).
@Suite(
    "Serving from PostgreSQL", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"] != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)")
)
struct PostgresServerTests {
    static func freshDatabase() async throws -> String {
        let base = try #require(ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"])
        let location = try PostgresLocation(parsing: base)
        let name = "s_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
                tls: .disable
            ),
            id: 1, logger: TestServer.logger
        )
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: TestServer.logger)
        try await connection.close()
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        return try #require(components.string)
    }

    static func readiness(_ server: ServerProcess) async throws -> Int {
        var request = HTTPClientRequest(url: server.baseURL + "/readyz")
        request.method = .GET
        return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code)
    }

    @Test("an acknowledged write survives kill -9; a second process on the same database is refused")
    func durability() async throws {
        let url = try await Self.freshDatabase()
        let server = try await ServerProcess(arguments: ["--storage", url])
        #expect(try await Self.readiness(server) == 200)
        let admin = AdminClient(baseURL: server.baseURL, credentials: .basic(username: "admin", password: "admin"))
        _ = try await admin.namedAreas.create(WebNamedArea(name: "Survives", siteId: "survives"))

        do {
            _ = try await ServerProcess(arguments: ["--storage", url])
            Issue.record("a second process served from the same database")
        } catch ServerProcessError.exited(let stderr) {
            #expect(stderr.contains("another mock-collab process"), "\(stderr)")
            #expect(!stderr.contains(try #require(URLComponents(string: url)?.password)), "the password is never printed")
        }

        server.signal(SIGKILL)
        _ = try await server.waitForExit()
        let again = try await ServerProcess(arguments: ["--storage", url])
        let readBack = AdminClient(baseURL: again.baseURL, credentials: .basic(username: "admin", password: "admin"))
        let found = try await readBack.namedAreas.search()
        #expect(found.items?.contains { $0.siteId == "survives" } == true)
        again.signal(SIGTERM)
        #expect(try await again.waitForExit() == 0)
    }

    @Test("/readyz answers 503 while the database is gone and 200 once it is back")
    func readiness() async throws {
        let url = try await Self.freshDatabase()
        var components = try #require(URLComponents(string: url))
        let forwarder = try await TCPForwarder(targetPort: try #require(components.port))
        components.port = forwarder.port
        let server = try await ServerProcess(arguments: ["--storage", try #require(components.string)])
        #expect(try await Self.readiness(server) == 200)
        await forwarder.cut()
        // Wait for the condition, not for a time: readiness asks the database on every call.
        var status = 200
        for _ in 0..<200 where status == 200 { status = try await Self.readiness(server) }
        #expect(status == 503)
        forwarder.restore()
        for _ in 0..<200 where status != 200 { status = try await Self.readiness(server) }
        #expect(status == 200, "the pool reconnects once the database answers again")
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        await forwarder.close()
    }
}
