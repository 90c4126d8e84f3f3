import CollabCore

/// One API surface described: the credentials it takes, how it answers errors, the role every one of
/// its operations needs, and the name fault rules match it by. ``SurfaceStack`` turns a description
/// into the surface's router group and middleware stack; each surface's folder holds its own
/// (`WebAPI/WebAPISurface.swift`, `Mobile/MobileSurface.swift`, …).
struct Surface: Sendable {
    /// Credentials a surface takes. Credentials of another kind are refused with 401, never ignored,
    /// so a token sent to the wrong API says so; cookies are the exception (a browser sends them
    /// everywhere), and are only read where ``session`` is taken.
    struct Credentials: OptionSet, Sendable {
        let rawValue: Int

        /// HTTP Basic: a user's name and password.
        static let basic = Credentials(rawValue: 1 << 0)
        /// A login session: its token as a bearer token, or the Web API session cookie.
        static let session = Credentials(rawValue: 1 << 1)
        /// The control token as a bearer token.
        static let controlToken = Credentials(rawValue: 1 << 2)
        /// A started visitor app's token as a bearer token.
        static let client = Credentials(rawValue: 1 << 3)
        /// A started agent app's token as a bearer token (the agent API's mobile clients).
        static let agentClient = Credentials(rawValue: 1 << 6)
        /// An incoming call's device credential, from its VoIP push, as a bearer token: the locked-phone
        /// answer of an app that has not started. Only the call it names may be acted on with it.
        static let callCredential = Credentials(rawValue: 1 << 7)
        /// The cookie an account names for access tokens (`jwt.cookie`, the SDK's custom cookies): where
        /// a client starts without an access token, it identifies the caller. The start reads it once it
        /// knows the account (from the API key in the body); the journal names the cookie.
        static let accountCookie = Credentials(rawValue: 1 << 8)
        /// On a WebSocket upgrade, the surface's tokens as `?token=` too: browsers cannot set headers on a WebSocket.
        static let socketToken = Credentials(rawValue: 1 << 4)
        /// A client certificate, required when the server asks for them (mutual TLS).
        static let clientCertificate = Credentials(rawValue: 1 << 5)
    }

    /// The name fault rules match the surface by (`match.surface`); `nil` where no request fault applies.
    var faultName: String?
    /// What the surface takes to authenticate a caller.
    var credentials: Credentials
    /// The body errors are answered with.
    var errors: ErrorFormat
    /// The role every operation of the surface needs, checked once for the group; operations that
    /// need more say so themselves.
    var role: AuthorizationRole = .anonymousUser
    /// Whether a cluster replica first takes in the other replicas' commits (not for the probes).
    var readsClusterState = true

    /// What is left when no surface's prefix matches: a 404 with the Web API `Error` body.
    static let outside = Surface(faultName: nil, credentials: [], errors: .webAPI, readsClusterState: false)
}
