import CollabCore
@testable import CollabServer
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// A server driven in process through HummingbirdTesting's router mode: the same router and
/// middleware as over sockets, without them. For the large tables (roles, bad input, isolation).
struct InProcessServer {
    let server: MockCollabServer
    let client: any TestClientProtocol

    /// An answer: status and body.
    struct Answer {
        var status: HTTPResponse.Status
        var body: ByteBuffer
        var headers: HTTPFields

        /// The body decoded as `T`.
        func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
        }

        var text: String { String(buffer: body) }
    }

    /// Builds a server with an in-memory store (and the socket tests' 64 KiB body limit; `configure`
    /// may choose another) and runs `body` against its router.
    static func with<T: Sendable>(
        seed: Seed? = nil, maxBodySize: Int = 64 * 1024, logger: Logger = TestServer.logger,
        configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: @escaping @Sendable (InProcessServer) async throws -> T
    ) async throws -> T {
        var configuration = ServerConfiguration(
            port: 0, storage: .memory, seed: seed, controlToken: "test-control-token", maxBodySize: maxBodySize, passwordHashCost: 4
        )
        configure(&configuration)
        let server = try await MockCollabServer(configuration: configuration, logger: logger)
        // The store is closed however the body ends: router mode never runs the server, which would.
        do {
            let result = try await server.buildApplication().test(.router) { client in
                try await body(InProcessServer(server: server, client: client))
            }
            try await server.environment.repository.close()
            return result
        } catch {
            try? await server.environment.repository.close()
            throw error
        }
    }

    /// Sends a request; `body` is sent as JSON (a `String` as it is).
    func call(_ method: HTTPRequest.Method, _ path: String, authorization: String? = nil, body: (any Encodable & Sendable)? = nil) async throws -> Answer {
        var headers = HTTPFields()
        if let authorization { headers[.authorization] = authorization }
        var buffer: ByteBuffer?
        if let body {
            headers[.contentType] = "application/json"
            if let text = body as? String {
                buffer = ByteBuffer(string: text)
            } else {
                buffer = ByteBuffer(bytes: try JSONEncoder().encode(body))
            }
        }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: buffer)
        return Answer(status: response.status, body: response.body, headers: response.headers)
    }

    /// `Basic` credentials.
    static func basic(_ username: String, _ password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// Every route the server registers, as `METHOD /path/{parameter}`.
    func routes() throws -> [(method: HTTPRequest.Method, path: String)] {
        let transport = try ServerTransport(configuration: server.environment.configuration, logger: server.logger)
        return server.buildRouter(transport: transport).routes.map { ($0.method, "\($0.path)") }
    }

    /// Entity counts of one account or all, without the journal.
    func stats(account accountId: String? = nil) throws -> StateStats {
        try server.environment.stats(accountId: accountId, journalEntries: 0)
    }
}
