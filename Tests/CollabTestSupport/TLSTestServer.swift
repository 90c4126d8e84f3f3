package import CollabClient
package import CollabServer
import CollabStore
package import CollabTLS
import Foundation

/// A TLS-speaking test server with its own data directory (development CA, server certificate).
package struct TLSSetup: Sendable {
    package let server: TestServer
    package let directory: TLSDirectory
    package let dataDirectory: String

    package var baseURL: String { "https://127.0.0.1:\(server.port)" }
    package var authorityFile: String { directory.authorityCertificatePath }

    /// TLS options trusting the development CA, with optional pins and client identity.
    package func tls(pins: [TLSOptions.Pin] = [], identity: TLSOptions.ClientIdentity? = nil) throws -> TLSOptions {
        try TLSOptions(trustedCAFiles: [authorityFile], pins: pins, clientIdentity: identity)
    }

    /// The control client over TLS (trusting the CA).
    package func control(identity: TLSOptions.ClientIdentity? = nil) throws -> ControlClient {
        ControlClient(baseURL: baseURL, credentials: .bearer("test-control-token"), tls: try tls(identity: identity))
    }

    /// Runs `body` against a fresh TLS server and always stops it and removes its files.
    package static func with(
        clientAuthentication: TLSSettings.ClientAuthentication = .none, plainHTTPPort: Int? = nil, prepare: (TLSDirectory) throws -> Void = { _ in },
        _ body: (TLSSetup) async throws -> Void
    ) async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-collab-tls-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let directory = TLSDirectory(dataDirectory: dataDirectory)
        try prepare(directory)
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, controlToken: "test-control-token", passwordHashCost: 4,
            tls: TLSSettings(
                certificate: .development(names: ["localhost", "127.0.0.1", "::1"]), dataDirectory: dataDirectory,
                clientAuthentication: clientAuthentication, plainHTTPPort: plainHTTPPort
            )
        )
        let server = try await TestServer.start(configuration: configuration)
        do {
            try await body(TLSSetup(server: server, directory: directory, dataDirectory: dataDirectory))
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }
}
