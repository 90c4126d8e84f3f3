import CollabClient
import CollabServer
import CollabStore
import CollabTLS
import Foundation

/// A TLS-speaking test server with its own data directory (development CA, server certificate).
struct TLSSetup: Sendable {
    let server: TestServer
    let directory: TLSDirectory
    let dataDirectory: String

    var baseURL: String { "https://127.0.0.1:\(server.port)" }
    var authorityFile: String { directory.authorityCertificatePath }

    /// TLS options trusting the development CA, with optional pins and client identity.
    func tls(pins: [TLSOptions.Pin] = [], identity: TLSOptions.ClientIdentity? = nil) throws -> TLSOptions {
        try TLSOptions(trustedCAFiles: [authorityFile], pins: pins, clientIdentity: identity)
    }

    /// The control client over TLS (trusting the CA).
    func control(identity: TLSOptions.ClientIdentity? = nil) throws -> ControlClient {
        ControlClient(baseURL: baseURL, credentials: .bearer("test-control-token"), tls: try tls(identity: identity))
    }

    /// Runs `body` against a fresh TLS server and always stops it and removes its files.
    static func with(
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
