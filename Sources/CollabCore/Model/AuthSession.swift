/// A logged-in session behind the `x-unblu-authsession` cookie, or a one-time authentication token.
public struct AuthSession: Sendable, Codable, Equatable, Identifiable {
    /// What the record is for.
    public enum Kind: String, Sendable, Codable {
        /// A session cookie.
        case session
        /// A one-time token from `createAuthenticationToken`, exchanged for a session.
        case authenticationToken
    }

    /// The secret token itself, used as the identifier.
    public var id: String
    public var kind: Kind
    public var accountId: String
    public var userId: String?
    public var personId: String
    public var role: AuthorizationRole
    public var createdAt: Timestamp
    /// The account a super admin switched this session to (`authenticator/switchToAccount`).
    public var actingAccountId: String?
    /// The user a super admin impersonates in this session (`authenticator/impersonate`), in ``actingAccountId``.
    public var impersonatedUserId: String?
    /// Whether the impersonation keeps the super admin's role.
    public var keepRole: Bool?
    public var expiresAt: Timestamp
    /// The SHA-256 (hex) of the access token the session was opened with (`loginWithSecureToken`), kept
    /// by the one-time tokens it mints and the sessions they open: revoking the token ends them all.
    public var accessTokenDigest: String?
}
