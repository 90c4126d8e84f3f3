/// How an account validates access tokens (JWT) presented by apps and `loginWithSecureToken`.
///
/// Keys are public material or shared secrets the seed declares; the mock also keeps its own HS256
/// signing secret per account so the control API can issue test tokens.
public struct JWTValidationSettings: Sendable, Codable, Equatable, Identifiable {
    /// One verification key.
    public struct Key: Sendable, Codable, Equatable {
        /// `kid` the token header must name; `nil` accepts any.
        public var kid: String?
        /// An HS256 shared secret.
        public var hs256Secret: String?
        /// An RS256 public key or certificate in PEM.
        public var rs256PublicKeyPEM: String?
        /// An ES256 public key in PEM.
        public var es256PublicKeyPEM: String?

        public init(kid: String? = nil, hs256Secret: String? = nil, rs256PublicKeyPEM: String? = nil, es256PublicKeyPEM: String? = nil) {
            self.kid = kid
            self.hs256Secret = hs256Secret
            self.rs256PublicKeyPEM = rs256PublicKeyPEM
            self.es256PublicKeyPEM = es256PublicKeyPEM
        }
    }

    /// The account id (one settings record per account).
    public var id: String
    /// Required `iss` claim, if set.
    public var issuer: String?
    /// Required `aud` claim, if set.
    public var audience: String?
    public var keys: [Key] = []
    /// A JWKS document (JSON text) whose keys are accepted as well.
    public var jwks: String?
    /// The mock's own HS256 secret for test tokens issued through the control API.
    public var testTokenSecret: String
    /// A cookie whose value is an access token (the SDK's custom cookies carrying authentication): a
    /// client that starts without an access token is identified by it.
    public var cookieName: String?
    /// Access tokens revoked before they expire: SHA-256 (hex) of the token → its expiry. A revoked
    /// token starts no client, and the clients it started stop. Forgotten once expired (they are refused
    /// anyway), and at most ``maxRevokedTokens`` are held.
    public var revokedTokens: [String: Timestamp]?

    /// The most revoked tokens an account holds (the earliest to expire go first).
    public static let maxRevokedTokens = 1_000

    /// Whether the token with `digest` was revoked.
    public func isRevoked(digest: String) -> Bool {
        revokedTokens?[digest] != nil
    }

    /// Records a revoked token, forgetting those expired by `now` and, beyond the bound, those that
    /// expire first.
    mutating func revoke(digest: String, expiresAt: Timestamp, now: Timestamp) {
        var held = (revokedTokens ?? [:]).filter { $0.value > now }
        held[digest] = expiresAt
        while held.count > Self.maxRevokedTokens, let first = held.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
            held[first.key] = nil
        }
        revokedTokens = held
    }

    /// Whether `name` can be a cookie name (RFC 6265 token characters, at most 64).
    public static func isValidCookieName(_ name: String) -> Bool {
        (1...64).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0)) }
    }

    /// The issuer used for test tokens when none is configured.
    public static let defaultTestIssuer = "mock-collab"
}
