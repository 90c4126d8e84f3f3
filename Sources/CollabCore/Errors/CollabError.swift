public import CollabWire
/// A failure the domain reports to whoever called it.
///
/// The server turns a `CollabError` into the Web API `Error` body (or the mobile API's typed error) in
/// one place; handlers just throw. `kind` decides the HTTP status, `message` is for people and never
/// carries secrets.
public struct CollabError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, coarse enough to map onto an HTTP status.
    public enum Kind: String, Sendable, Equatable, Codable, CaseIterable, NamedCases {
        /// The request is malformed or violates a rule (HTTP 400).
        case badRequest = "BAD_REQUEST"
        /// No credentials, or credentials that do not identify anyone (HTTP 401).
        case unauthorized = "UNAUTHORIZED"
        /// The API key is unknown (HTTP 401; the SDK's invalid-API-key error).
        case invalidApiKey = "INVALID_API_KEY"
        /// The app's SDK major does not pair with the server's version (HTTP 400; fatal for the SDK).
        case unsupportedServerVersion = "UNSUPPORTED_SERVER_VERSION"
        /// The caller is known but lacks the role or the right (HTTP 403).
        case forbidden = "FORBIDDEN"
        /// The entity does not exist, or belongs to another account (HTTP 404).
        case notFound = "NOT_FOUND"
        /// A stale `version`, a duplicate name, or a lost race (HTTP 409).
        case conflict = "CONFLICT"
        /// The body or a value is larger than the configured bound (HTTP 413).
        case payloadTooLarge = "PAYLOAD_TOO_LARGE"
        /// A bound on count or rate was hit (HTTP 429).
        case tooManyRequests = "TOO_MANY_REQUESTS"
        /// The request body arrived slower than the minimum rate (HTTP 408).
        case requestTimeout = "REQUEST_TIMEOUT"
        /// The server cannot serve the request right now, e.g. storage failed (HTTP 503).
        case unavailable = "UNAVAILABLE"
        /// A bug or an unexpected failure (HTTP 500).
        case internalError = "INTERNAL"
    }

    /// The category of the failure.
    public var kind: Kind
    /// A human-readable explanation, safe to show to the caller.
    public var message: String
    /// For a refusal that passes with time (``Kind/tooManyRequests``): seconds until a retry may
    /// succeed, answered as `Retry-After`.
    public var retryAfterSeconds: Int?

    /// Creates an error of the given kind.
    /// - Parameters:
    ///   - kind: The category of the failure.
    ///   - message: A human-readable explanation, safe to show to the caller.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }

    /// A malformed request or a broken rule.
    public static func badRequest(_ message: String) -> Self { .init(.badRequest, message) }
    /// An entity that does not exist for the caller.
    public static func notFound(_ entity: String, _ id: String) -> Self {
        .init(.notFound, "\(entity) with id '\(id)' not found")
    }
    /// An account named by its id or its name (the control API takes either) that does not exist for the caller.
    public static func unknownAccount(_ reference: String) -> Self {
        .init(.notFound, "no account has the id or name '\(reference)'")
    }
    /// A conflict with the stored state.
    public static func conflict(_ message: String) -> Self { .init(.conflict, message) }
    /// A caller without the needed right.
    public static func forbidden(_ message: String) -> Self { .init(.forbidden, message) }
    /// A bound on a rate was hit; a retry after `seconds` may succeed.
    public static func tooManyRequests(_ message: String, retryAfterSeconds seconds: Int) -> Self {
        var error = Self(.tooManyRequests, message)
        error.retryAfterSeconds = max(1, seconds)
        return error
    }
    /// A caller that is not authenticated.
    public static func unauthorized(_ message: String) -> Self { .init(.unauthorized, message) }
}
