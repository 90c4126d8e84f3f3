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
    public var keys: [Key]
    /// A JWKS document (JSON text) whose keys are accepted as well.
    public var jwks: String?
    /// The mock's own HS256 secret for test tokens issued through the control API.
    public var testTokenSecret: String

    public init(id: String, issuer: String? = nil, audience: String? = nil, keys: [Key] = [], jwks: String? = nil, testTokenSecret: String) {
        self.id = id
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.jwks = jwks
        self.testTokenSecret = testTokenSecret
    }

    /// The issuer used for test tokens when none is configured.
    public static let defaultTestIssuer = "mock-collab"
}
