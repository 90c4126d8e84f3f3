/// Who is making a request, after authentication.
public struct Principal: Sendable, Equatable {
    /// How the caller proved who it is.
    public enum Method: String, Sendable, Equatable {
        case anonymous, basic, session, controlToken
        /// A started mobile client (a visitor's or an agent's app).
        case client
        /// An incoming call's device credential (the locked-phone answer of an app not started yet).
        case callCredential
    }

    /// The account the caller acts in; `nil` only for anonymous callers and the control token.
    public var accountId: String?
    /// The user behind the call, if any.
    public var userId: String?
    /// The person behind the call, if any.
    public var personId: String?
    /// The caller's effective role.
    public var role: AuthorizationRole
    /// How the caller authenticated.
    public var method: Method

    /// Creates a principal.
    public init(accountId: String?, userId: String?, personId: String?, role: AuthorizationRole, method: Method) {
        self.accountId = accountId
        self.userId = userId
        self.personId = personId
        self.role = role
        self.method = method
    }

    /// A caller who presented no credentials.
    public static let anonymous = Principal(accountId: nil, userId: nil, personId: nil, role: .anonymousUser, method: .anonymous)

    /// The holder of the control token: super-admin rights over every account.
    public static let control = Principal(accountId: nil, userId: nil, personId: nil, role: .superAdmin, method: .controlToken)

    /// The control API acting inside one account (seeds), for operations that take the caller's account.
    public static func control(of accountId: String) -> Principal {
        Principal(accountId: accountId, userId: nil, personId: nil, role: .superAdmin, method: .controlToken)
    }

    /// Whether this caller may see and change data of `accountId`.
    ///
    /// Everyone is confined to their own account; only the control token spans accounts. Super admins
    /// reach other accounts through the account operations, which check the role instead.
    public func canAccess(accountId other: String) -> Bool {
        method == .controlToken || accountId == other
    }

    /// Throws `forbidden` unless the caller's role is at least `required`, or `unauthorized` when the
    /// caller is anonymous and the operation needs more.
    public func require(_ required: AuthorizationRole) throws(CollabError) {
        guard role >= required else {
            if method == .anonymous {
                throw .unauthorized("authentication required")
            }
            throw .forbidden("this operation requires the role \(required.rawValue)")
        }
    }
}
