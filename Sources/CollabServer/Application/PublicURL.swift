public import CollabCore
import Foundation
import Synchronization

/// The URL clients reach the server at, for the absolute links it hands out (the Web API's download
/// links, a file-upload interceptor's `downloadLink`): `serve --public-url`, or the scheme, host and
/// port it listens on.
///
/// Never taken from a request: a `Host` header is the client's to choose, so a link built from it could
/// send a scanner (with its token) to the sender's own server.
final class PublicURL: Sendable {
    private let configured: String?
    private let scheme: String
    private let host: String
    private let port = Mutex<Int>(0)

    init(configuration: ServerConfiguration) {
        configured = configuration.publicURL
        scheme = configuration.tls == nil ? "http" : "https"
        host = configuration.host
        port.withLock { $0 = configuration.port }
    }

    /// Notes the port the server listens on (the configured one may be 0).
    func listening(on port: Int) {
        self.port.withLock { $0 = port }
    }

    /// The base of every absolute link, without a trailing slash.
    var base: String {
        configured ?? Self.listening(scheme: scheme, host: host, port: port.withLock { $0 })
    }

    /// `scheme://host:port` for a server bound to `host`; bound to every address, the machine's name.
    static func listening(scheme: String, host: String, port: Int) -> String {
        let name = ["0.0.0.0", "::", "[::]"].contains(host) ? ProcessInfo.processInfo.hostName : host
        return "\(scheme)://\(name.contains(":") && !name.hasPrefix("[") ? "[\(name)]" : name):\(port)"
    }

    /// A public URL as configured: an absolute `http` or `https` URL with a host, perhaps a port and a
    /// path, without credentials, query or fragment; a trailing slash is dropped.
    /// - Throws: `badRequest` saying what is wrong.
    static func normalized(_ text: String) throws(CollabError) -> String {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw .badRequest("the public URL must be an absolute http:// or https:// URL, e.g. https://collab.example.com")
        }
        guard let host = components.host, !host.isEmpty else { throw .badRequest("the public URL needs a host") }
        guard components.user == nil, components.password == nil else { throw .badRequest("the public URL must not carry credentials") }
        guard components.query == nil, components.fragment == nil else { throw .badRequest("the public URL must not have a query or a fragment") }
        var normalized = text
        while normalized.hasSuffix("/") { normalized.removeLast() }
        return normalized
    }
}

extension ServerConfiguration {
    /// A public URL as `serve --public-url` takes it (see ``publicURL``): an absolute `http` or `https`
    /// URL with a host, perhaps a port and a path, without credentials, query or fragment.
    /// - Returns: The URL without a trailing slash.
    /// - Throws: `badRequest` saying what is wrong.
    public static func normalizedPublicURL(_ text: String) throws(CollabError) -> String {
        try PublicURL.normalized(text)
    }
}
