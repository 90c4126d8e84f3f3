import Foundation
package import NIOCore
import Synchronization

/// Carries a request to a server in the same process, without a socket.
///
/// A client whose base URL has the scheme `inprocess` (`inprocess://NAME`) sends its HTTP requests
/// through the exchange registered under that name instead of an HTTP client: the package's tests
/// register a Hummingbird router driven by HummingbirdTesting's router mode, so a test written with
/// the client library runs in process when it needs no socket. WebSockets and file streaming are
/// not carried. `package` access: not part of the library's API.
package protocol InProcessExchange: Sendable {
    /// Answers one request.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - uri: The path with its query, as sent on the request line.
    ///   - headers: The request's headers, in order.
    ///   - body: The request body, if any.
    func exchange(method: String, uri: String, headers: [(String, String)], body: ByteBuffer?) async throws -> HTTPTransport.RawResponse
}

/// The exchanges registered by name (the host part of an `inprocess://` URL).
package enum InProcessExchanges {
    /// The scheme that names an in-process exchange.
    package static let scheme = "inprocess"

    private static let registered = Mutex<[String: any InProcessExchange]>([:])

    /// Registers `exchange` and returns the base URL that reaches it.
    package static func register(_ exchange: any InProcessExchange) -> String {
        let name = UUID().uuidString.lowercased()
        registered.withLock { $0[name] = exchange }
        return "\(scheme)://\(name)"
    }

    /// Forgets the exchange of `baseURL`.
    package static func unregister(_ baseURL: String) {
        guard let name = name(of: baseURL) else { return }
        _ = registered.withLock { $0.removeValue(forKey: name) }
    }

    /// The exchange a base URL names, if it is an `inprocess://` URL that is registered.
    static func exchange(for baseURL: String) -> (any InProcessExchange)? {
        guard let name = name(of: baseURL) else { return nil }
        return registered.withLock { $0[name] }
    }

    private static func name(of baseURL: String) -> String? {
        let prefix = scheme + "://"
        guard baseURL.hasPrefix(prefix) else { return nil }
        return String(baseURL.dropFirst(prefix.count).prefix { $0 != "/" })
    }
}

extension InProcessExchanges {
    /// Throws when `baseURL` names an in-process exchange: live WebSockets need a server on a socket, and
    /// failing at once beats reconnecting forever.
    static func requireSocket(_ baseURL: String, for what: String) throws(CollabClientError) {
        guard baseURL.hasPrefix(scheme + "://") else { return }
        throw CollabClientError(code: .transport, status: nil, message: "\(what) needs a server on a socket, not \(baseURL)")
    }
}
