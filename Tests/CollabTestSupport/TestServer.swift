import AsyncHTTPClient
import CollabClient
package import CollabCore
package import CollabServer
package import CollabStore
import CollabWire
import Foundation
package import Logging
package import ServiceLifecycle

/// A MockCollab server on a free port for one test, talked to over real sockets.
///
/// Storage is in memory unless a path is given; passwords use a low bcrypt cost so tests stay fast.
package final class TestServer: ServerUnderTest {
    package let server: MockCollabServer
    package let group: ServiceGroup
    package let runTask: Task<Void, any Error>
    package let port: Int
    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package static let logger: Logger = {
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
    package static func start(
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
    package static func start(
        configuration: ServerConfiguration, clock: AdjustableClock = AdjustableClock(), logger: Logger = logger
    ) async throws -> TestServer {
        await TestServer(server: try await MockCollabServer(configuration: configuration, clock: clock, logger: logger))
    }

    /// Stops the server gracefully and waits until it has closed its store.
    package func stop() async throws {
        await group.triggerGracefulShutdown()
        try await runTask.value
    }

    /// Runs `body` against a fresh server and always stops it.
    package static func with<T>(
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
}
