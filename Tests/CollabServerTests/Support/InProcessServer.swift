import CollabClient
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

/// A server driven in process through HummingbirdTesting's router mode: the same router, middleware
/// and services as over sockets, without a socket. Its `baseURL` (`inprocess://…`) works with the
/// client library (``ServerUnderTest``: `admin`, `control`, `visitor(…)`, …) for HTTP; WebSockets,
/// TLS, connection faults and file streaming need a ``TestServer``.
struct InProcessServer: ServerUnderTest {
    let server: MockCollabServer
    let client: any TestClientProtocol
    /// Reaches this server's router through the client library (see `InProcessExchange`).
    let baseURL: String

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

    /// Builds a server (in memory unless a storage is given, with the socket tests' defaults: a 64 KiB
    /// body limit, bcrypt cost 4, clients that never go idle) and runs `body` against its router; the
    /// store is closed afterwards, so a test can open it again.
    static func with<T: Sendable>(
        storage: StorageLocation = .memory, seed: Seed? = nil, maxBodySize: Int = 64 * 1024, journalCapacity: Int = 1000,
        clock: AdjustableClock = AdjustableClock(), logger: Logger = TestServer.logger, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (InProcessServer) async throws -> T
    ) async throws -> T {
        // Tests move the virtual clock by days (key rotation): clients stay until a test says otherwise.
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: storage, seed: seed, controlToken: "test-control-token", maxBodySize: maxBodySize,
            journalCapacity: journalCapacity, passwordHashCost: 4, clientIdleTimeout: 365 * 24 * 3600 * 1000
        )
        configure(&configuration)
        let server = try await MockCollabServer(configuration: configuration, clock: clock, logger: logger)
        // The store is closed however the body ends: router mode never runs the server, which would.
        do {
            let result = try await server.buildApplication().test(.router) { client in
                let baseURL = InProcessExchanges.register(RouterExchange(client: client))
                defer { InProcessExchanges.unregister(baseURL) }
                return try await body(InProcessServer(server: server, client: client, baseURL: baseURL))
            }
            try await server.environment.repository.close()
            return result
        } catch {
            try? await server.environment.repository.close()
            throw error
        }
    }

    /// Sends a request; `body` is sent as JSON (a `String` as it is).
    func call(
        _ method: HTTPRequest.Method, _ path: String, authorization: String? = nil, body: (any Encodable & Sendable)? = nil
    ) async throws -> Answer {
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

    /// Starts an anonymous visitor's client of the API key `key` on device `device`: the answer as it came.
    func startClient(key: String, device: String) async throws -> Answer {
        try await call(.post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: key, deviceId: device, device: .init(os: "iOS")))
    }

    /// A started anonymous visitor's `Bearer` credential.
    func visitorBearer(key: String, device: String) async throws -> String {
        "Bearer " + (try await startClient(key: key, device: device).decode(ClientStartResponse.self)).token
    }

    /// An agent's `Bearer` credential from `/agent/v1/login`.
    func agentBearer(_ username: String, _ password: String) async throws -> String {
        "Bearer " + (try await call(.post, "/agent/v1/login", body: AgentLoginRequest(username: username, password: password))
            .decode(AgentLoginResponse.self).token)
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

/// The client library's requests, answered by the router in process.
private struct RouterExchange: InProcessExchange {
    let client: any TestClientProtocol

    func exchange(method: String, uri: String, headers: [(String, String)], body: ByteBuffer?) async throws -> HTTPTransport.RawResponse {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let response = try await client.execute(uri: uri, method: HTTPRequest.Method(method) ?? .get, headers: fields, body: body)
        return HTTPTransport.RawResponse(
            status: Int(response.status.code), headers: response.headers.map { ($0.name.rawName, $0.value) },
            body: Data(response.body.readableBytesView)
        )
    }
}
