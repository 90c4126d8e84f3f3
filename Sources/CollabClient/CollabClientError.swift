/// A failure reported by the client library: the server's typed error or a transport problem.
///
/// Codes are extensible: new ones can be added without breaking callers that switch over the ones
/// they know (compare with `==`).
public struct CollabClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case authorization, forbidden, notFound, conflict, badRequest, payloadTooLarge, requestTimeout, rateLimited, server, transport, decoding,
                pinMismatch, tlsSetup
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Missing, invalid or expired credentials (HTTP 401).
        public static let authorization = Code(.authorization)
        /// The caller lacks the role or right (HTTP 403).
        public static let forbidden = Code(.forbidden)
        /// No such entity for this caller (HTTP 404).
        public static let notFound = Code(.notFound)
        /// A stale version, a duplicate, or a lost race (HTTP 409).
        public static let conflict = Code(.conflict)
        /// The request was malformed (HTTP 400 and other 4xx).
        public static let badRequest = Code(.badRequest)
        /// The body was too large (HTTP 413).
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// The request's body reached the server slower than its minimum rate (HTTP 408): send it again,
        /// on a better connection.
        public static let requestTimeout = Code(.requestTimeout)
        /// Too many requests or too fast (HTTP 429).
        public static let rateLimited = Code(.rateLimited)
        /// The server failed (HTTP 5xx).
        public static let server = Code(.server)
        /// The server could not be reached or the connection broke.
        public static let transport = Code(.transport)
        /// The server's answer could not be understood.
        public static let decoding = Code(.decoding)
        /// The server's certificate matched none of the client's pins (``TLSOptions``); nothing was sent.
        public static let pinMismatch = Code(.pinMismatch)
        /// The client's TLS material (CA, client certificate, PKCS#12 file or password) could not be loaded.
        public static let tlsSetup = Code(.tlsSetup)

        /// The code's name, e.g. `notFound`.
        public var description: String { value.rawValue }

        /// The code for an HTTP status.
        public static func forStatus(_ status: Int) -> Code {
            switch status {
            case 401: .authorization
            case 403: .forbidden
            case 404: .notFound
            case 408: .requestTimeout
            case 409: .conflict
            case 413: .payloadTooLarge
            case 429: .rateLimited
            case 500...: .server
            default: .badRequest
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's or the library's explanation.
    public var message: String
    /// The `type` of the mobile and agent APIs' typed error body (`AUTHORIZATION`, `INVALID_API_KEY`, …),
    /// when the server sent one.
    public var type: String?

    /// An error.
    /// - Parameters:
    ///   - code: What kind of failure.
    ///   - status: The HTTP status, when the server answered.
    ///   - message: The explanation.
    ///   - type: The typed error body's `type`, when there was one.
    public init(code: Code, status: Int?, message: String, type: String? = nil) {
        self.code = code
        self.status = status
        self.message = message
        self.type = type
    }

    /// The code, the status and the message, e.g. `notFound (HTTP 404): conversation x not found`.
    public var description: String {
        if let status { return "\(code) (HTTP \(status)): \(message)" }
        return "\(code): \(message)"
    }
}
