public import AsyncHTTPClient
import CollabWire
public import Foundation
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// How a client proves who it is.
public enum ClientCredentials: Sendable, Equatable {
    /// No credentials.
    case none
    /// HTTP basic authentication with a username and password.
    case basic(username: String, password: String)
    /// A bearer token: a session token or the server's control token.
    case bearer(String)
}

/// Sends JSON requests to a MockCollab server and decodes JSON answers, turning error bodies into
/// ``CollabClientError``s. Keeps the session cookie the server sets on login.
public final class HTTPTransport: Sendable {
    /// The server's root URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: String
    let client: HTTPClient
    let state: Mutex<State>
    /// How long one request may take.
    public let timeout: TimeAmount
    /// TLS trust, pins and client certificate; `nil` uses the HTTP client's own configuration.
    public let tls: TLSOptions?

    struct State {
        var credentials: ClientCredentials
        var sessionCookie: String?
        var customCookies: [String: String] = [:]
    }

    /// Creates a transport.
    /// - Parameters:
    ///   - baseURL: The server's root URL.
    ///   - credentials: How to authenticate.
    ///   - client: The HTTP client to use; the shared one by default.
    ///   - timeout: Per-request deadline.
    ///   - tls: TLS trust, pins and client certificate for `https://` servers.
    public init(
        baseURL: String, credentials: ClientCredentials = .none, client: HTTPClient = .collab, timeout: TimeAmount = .seconds(30),
        tls: TLSOptions? = nil
    ) {
        self.tls = tls
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.state = Mutex(State(credentials: credentials))
        self.timeout = timeout
    }

    /// The session cookie the server set, if any.
    public var sessionToken: String? { state.withLock { $0.sessionCookie } }

    /// Replaces the credentials.
    public func setCredentials(_ credentials: ClientCredentials) {
        state.withLock { $0.credentials = credentials }
    }

    /// Cookies sent with every request (the SDK's custom cookies); same names replace earlier ones.
    public func setCustomCookies(_ cookies: [String: String]) {
        state.withLock { $0.customCookies.merge(cookies) { _, new in new } }
    }

    /// Forgets the session cookie.
    public func clearSession() {
        state.withLock { $0.sessionCookie = nil }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// The raw answer to a request.
    public struct RawResponse: Sendable {
        /// The HTTP status.
        public var status: Int
        /// The headers, in order, names as sent.
        public var headers: [(String, String)]
        /// The body, whole.
        public var body: Data

        /// An answer (the in-process exchange builds one; see ``InProcessExchange``).
        package init(status: Int, headers: [(String, String)], body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The first value of a header.
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// Sends a request and returns the raw answer, whatever its status.
    public func raw(
        _ method: String, _ path: String, query: [(String, String)] = [], body: Data? = nil, contentType: String = "application/json",
        headers extraHeaders: [(String, String)] = []
    ) async throws(CollabClientError) -> RawResponse {
        // A pin mismatch ends in authorizedRequest, before anything is sent.
        var request = try await authorizedRequest(method, path, query: query)
        for (name, value) in extraHeaders { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        if let inProcess = InProcessExchanges.exchange(for: baseURL) {
            return try await exchange(request, body: body, through: inProcess)
        }
        do {
            let response = try await client.execute(request, timeout: timeout)
            let buffer = try await response.body.collect(upTo: 64 * 1024 * 1024)
            for value in response.headers["set-cookie"] { remember(setCookie: value) }
            return RawResponse(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                body: Data(buffer: buffer)
            )
        } catch {
            throw CollabClientError(code: .transport, status: nil, message: "\(method) \(path) failed: \(error)")
        }
    }

    /// The same request through an in-process exchange (see ``InProcessExchange``): no socket.
    private func exchange(
        _ request: HTTPClientRequest, body: Data?, through inProcess: any InProcessExchange
    ) async throws(CollabClientError) -> RawResponse {
        let uri = String(request.url.dropFirst(baseURL.count))
        do {
            let response = try await inProcess.exchange(
                method: request.method.rawValue, uri: uri.isEmpty ? "/" : uri, headers: request.headers.map { ($0.name, $0.value) },
                body: body.map { ByteBuffer(bytes: $0) }
            )
            for (name, value) in response.headers where name.lowercased() == "set-cookie" { remember(setCookie: value) }
            return response
        } catch {
            throw CollabClientError(code: .transport, status: nil, message: "\(request.method.rawValue) \(uri) failed: \(error)")
        }
    }

    private func remember(setCookie value: String) {
        guard let pair = value.split(separator: ";").first else { return }
        let parts = pair.split(separator: "=", maxSplits: 1)
        guard parts.count >= 1, parts[0].trimmingCharacters(in: .whitespaces) == webAPISessionCookieName else { return }
        let token = parts.count == 2 ? String(parts[1]) : ""
        state.withLock { $0.sessionCookie = token.isEmpty ? nil : token }
    }

    /// Sends a request whose answer is a JSON value or 204 No Content (`nil`): a look-up that may find
    /// nothing without that being an error.
    public func sendForOptional<Response: Decodable>(
        _ method: String, _ path: String, query: [(String, String)] = [], as type: Response.Type = Response.self
    ) async throws(CollabClientError) -> Response? {
        let response = try await raw(method, path, query: query)
        try Self.check(response, method: method, path: path)
        if response.status == 204 { return nil }
        do {
            return try JSONDecoder().decode(Response.self, from: response.body)
        } catch {
            throw CollabClientError(code: .decoding, status: response.status, message: "cannot decode the answer to \(method) \(path): \(error)")
        }
    }

    /// Sends a request with a JSON body and decodes a JSON answer.
    public func send<Response: Decodable>(
        _ method: String, _ path: String, query: [(String, String)] = [], body: (some Encodable)? = Optional<Data>.none,
        as type: Response.Type = Response.self
    ) async throws(CollabClientError) -> Response {
        let data = try encode(body)
        let response = try await raw(method, path, query: query, body: data)
        try Self.check(response, method: method, path: path)
        do {
            return try JSONDecoder().decode(Response.self, from: response.body)
        } catch {
            throw CollabClientError(code: .decoding, status: response.status, message: "cannot decode the answer to \(method) \(path): \(error)")
        }
    }

    /// Sends a request and expects an answer without a body (e.g. 204).
    public func sendWithoutResult(
        _ method: String, _ path: String, query: [(String, String)] = [], body: (some Encodable)? = Optional<Data>.none
    ) async throws(CollabClientError) {
        let response = try await raw(method, path, query: query, body: try encode(body))
        try Self.check(response, method: method, path: path)
    }

    private func encode(_ body: (some Encodable)?) throws(CollabClientError) -> Data? {
        guard let body else { return nil }
        do {
            return try Self.encoder.encode(body)
        } catch {
            throw CollabClientError(code: .badRequest, status: nil, message: "cannot encode the request: \(error)")
        }
    }

    /// Throws the server's error when the status is not 2xx or 3xx.
    public static func check(_ response: RawResponse, method: String, path: String) throws(CollabClientError) {
        guard !(200..<400).contains(response.status) else { return }
        if let typed = try? JSONDecoder().decode(TypedErrorBody.self, from: response.body) {
            throw CollabClientError(code: .forStatus(response.status), status: response.status, message: typed.message, type: typed.type)
        }
        let message = (try? JSONDecoder().decode(WebAPIError.self, from: response.body))?.errorMessage
            ?? String(decoding: response.body.prefix(500), as: UTF8.self)
        throw CollabClientError(code: .forStatus(response.status), status: response.status, message: message)
    }
}

/// The mobile and agent APIs' typed error body.
private struct TypedErrorBody: Decodable {
    var type: String
    var message: String
}
