import AsyncHTTPClient
import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Foundation
import Logging
import ServiceLifecycle

/// A MockCollab server on a free port for one test, talked to over real sockets.
///
/// Storage is in memory unless a path is given; passwords use a low bcrypt cost so tests stay fast.
final class TestServer: Sendable {
    let server: MockCollabServer
    let group: ServiceGroup
    let runTask: Task<Void, any Error>
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    static let logger: Logger = {
        var logger = Logger(label: "test-server")
        logger.logLevel = ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    private init(server: MockCollabServer) async {
        self.server = server
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [], logger: Self.logger))
        self.group = group
        self.runTask = Task { try await group.run() }
        self.port = await server.waitUntilListening()
    }

    /// Starts a server.
    static func start(
        storage: StorageLocation = .memory, seed: Seed? = nil, controlToken: String? = "test-control-token", maxBodySize: Int = 64 * 1024,
        journalCapacity: Int = 1000, clock: AdjustableClock = AdjustableClock()
    ) async throws -> TestServer {
        // Tests move the virtual clock by days (key rotation): clients stay until a test says otherwise.
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: storage, seed: seed, controlToken: controlToken, maxBodySize: maxBodySize,
            journalCapacity: journalCapacity, passwordHashCost: 4, clientIdleTimeout: 365 * 24 * 3600 * 1000
        )
        return await TestServer(server: try await MockCollabServer(configuration: configuration, clock: clock, logger: logger))
    }

    /// Starts a server with a full configuration.
    static func start(configuration: ServerConfiguration, clock: AdjustableClock = AdjustableClock(), logger: Logger = logger) async throws -> TestServer {
        await TestServer(server: try await MockCollabServer(configuration: configuration, clock: clock, logger: logger))
    }

    /// Stops the server gracefully and waits until it has closed its store.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await runTask.value
    }

    /// Runs `body` against a fresh server and always stops it.
    static func with<T>(
        storage: StorageLocation = .memory, seed: Seed? = nil, maxBodySize: Int = 64 * 1024, journalCapacity: Int = 1000,
        clock: AdjustableClock = AdjustableClock(), _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let server = try await start(storage: storage, seed: seed, maxBodySize: maxBodySize, journalCapacity: journalCapacity, clock: clock)
        do {
            let result = try await body(server)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    /// A Web API client with basic credentials.
    func admin(_ username: String, _ password: String) -> AdminClient {
        AdminClient(baseURL: baseURL, credentials: .basic(username: username, password: password))
    }

    /// An unauthenticated Web API client.
    var anonymous: AdminClient { AdminClient(baseURL: baseURL) }

    /// A control client using the control token.
    var control: ControlClient { ControlClient(baseURL: baseURL, credentials: .bearer("test-control-token")) }

    /// Entity counts, without the journal (which grows with every request).
    func entityStats(account: String? = nil) async throws -> StateStats {
        var stats = try await control.stats(account: account)
        stats.journalEntries = 0
        return stats
    }

    /// A raw transport for requests the client library would never send.
    func transport(_ credentials: ClientCredentials = .basic(username: "admin", password: "admin")) -> HTTPTransport {
        HTTPTransport(baseURL: baseURL, credentials: credentials)
    }
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("mock-collab-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A seed with two isolated accounts, each with an admin, an agent, an API key and a named area.
let twoAccountSeed = Seed(accounts: [
    .init(
        name: "alpha", apiKeys: [.init(key: "alpha-key")], namedAreas: [.init(siteId: "alpha-area")],
        users: [
            .init(username: "root", password: "root", role: .superAdmin),
            .init(username: "alpha-admin", password: "pw-a", role: .admin),
            .init(username: "alpha-agent", password: "pw-a", role: .registeredUser),
            .init(username: "alpha-supervisor", password: "pw-a", role: .supervisor),
            .init(username: "alpha-webuser", password: "pw-a", role: .webuser),
        ],
        persons: [.init(sourceId: "alpha-visitor", personType: .visitor, firstName: "Alpha")]
    ),
    .init(
        name: "beta", apiKeys: [.init(key: "beta-key")], namedAreas: [.init(siteId: "beta-area")],
        users: [
            .init(username: "beta-admin", password: "pw-b", role: .admin),
            .init(username: "beta-agent", password: "pw-b", role: .registeredUser),
        ],
        persons: [.init(sourceId: "beta-visitor", personType: .visitor, firstName: "Beta")]
    ),
])
