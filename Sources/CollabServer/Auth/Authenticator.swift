import CollabCore
import CollabStore
import CollabWire
import Crypto
import Foundation
import Hummingbird

/// Works out who is calling: HTTP basic credentials, the session cookie, a session token as bearer,
/// or the control token. All paths end in the same ``Principal``.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let environment: CollabEnvironment

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let authorization = request.headers[.authorization] {
            try await authenticate(authorization: authorization, context: &context)
        } else if let token = request.cookies[webAPISessionCookieName]?.value, let principal = principal(forSession: token) {
            // A stale cookie is simply "not logged in": the caller stays anonymous.
            context.principal = principal
            context.sessionToken = token
        }
        context.trace.principal = context.principal
        return try await next(request, context)
    }

    /// `text` without leading and trailing spaces and tabs, found on its UTF-8 bytes.
    static func trimmingBlanks(_ text: Substring) -> String {
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while start < end, isBlank(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return String(text[start..<end])
    }

    private func authenticate(authorization: String, context: inout Context) async throws(CollabError) {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { throw .unauthorized("malformed Authorization header") }
        let scheme = parts[0].lowercased()
        // Trimmed by hand: Foundation's trimmingCharacters(in:) goes through NSString on Linux and
        // showed up in the Web API read's profile.
        let credentials = Self.trimmingBlanks(parts[1])
        switch scheme {
        case "basic":
            guard let decoded = Data(base64Encoded: credentials).flatMap({ String(data: $0, encoding: .utf8) }),
                let colon = decoded.firstIndex(of: ":")
            else {
                throw .unauthorized("malformed basic credentials")
            }
            let username = String(decoded[..<colon])
            let password = String(decoded[decoded.index(after: colon)...])
            context.principal = try await principal(username: username, password: password)
        case "bearer":
            if let control = environment.configuration.controlToken, constantTimeEquals(control, credentials) {
                context.principal = .control
            } else if let principal = principal(forSession: credentials) {
                context.principal = principal
                context.sessionToken = credentials
            } else if let client = client(token: credentials) {
                context.principal = Principal(accountId: client.accountId, userId: nil, personId: client.personId, role: .webuser, method: .client)
                context.clientToken = credentials
                context.client = client
            } else {
                throw .unauthorized("unknown or expired bearer token")
            }
        default:
            throw .unauthorized("unsupported authorization scheme '\(parts[0])'")
        }
    }

    /// Verifies a username and password (bcrypt, cached per credential). The role is the user's as
    /// stored now, so a demotion takes effect on the next request.
    func principal(username: String, password: String) async throws(CollabError) -> Principal {
        let invalid = CollabError.unauthorized("invalid username or password")
        guard !username.isEmpty, username.count <= Limits.nameLength, password.count <= Limits.passwordLength,
            let accountId = environment.accountId(for: .username(username)),
            let user = try? environment.read(account: accountId, { $0.user(loginName: username) }), let hash = user.passwordHash
        else {
            throw invalid
        }
        if environment.credentials.lookup(username: username, password: password, currentHash: hash) == nil {
            let valid = (try? await environment.hasher.verify(password, against: hash)) ?? false
            guard valid else { throw invalid }
            environment.credentials.remember(username: username, password: password, userId: user.id, passwordHash: hash)
        }
        guard let principal = try? environment.read(account: accountId, { state -> Principal? in
            guard let user = state.users[user.id], user.passwordHash == hash else { return nil }
            return Principal(
                accountId: user.accountId, userId: user.id, personId: state.person(ofUser: user)?.id, role: user.authorizationRole, method: .basic
            )
        }) else {
            throw invalid
        }
        return principal
    }

    /// The started mobile client behind a token, noting its activity (the idle expiry counts from it).
    func client(token: String) -> ClientSession? {
        guard token.count <= 128, let accountId = environment.accountId(for: .client(token)) else { return nil }
        let now = environment.clock.now()
        let repository = environment.repository
        let touched = try? repository.touch(account: accountId) { state in
            (idle: state.touchClient(token: token, now: now), session: state.clientSession(token: token))
        }
        // In a cluster another replica may run the idle expiry: activity is stored (and so replicated)
        // once a quarter of the idle timeout has passed since it was last stored, not on every request.
        if repository.isClusterReplica, let touched, touched.idle >= environment.configuration.clientIdleTimeout / 4 {
            Task { _ = try? await repository.write(account: accountId) { state, changes throws(CollabError) in state.storeClientActivity(token: token, changes: &changes) } }
        }
        return touched?.session
    }

    /// The caller behind a login session token. The role is read from the user as stored now (a session
    /// also ends when its user's role changes), never from what the session was opened with.
    func principal(forSession token: String) -> Principal? {
        guard token.count <= 128, let accountId = environment.accountId(for: .session(token)) else { return nil }
        let now = environment.clock.now()
        guard let (principal, session) = try? environment.read(account: accountId, { state -> (Principal, AuthSession)? in
            guard let session = state.session(token: token, now: now) else { return nil }
            var role = session.role
            if let userId = session.userId {
                guard let user = state.users[userId] else { return nil }
                role = min(role, user.authorizationRole)
            }
            return (Principal(accountId: session.accountId, userId: session.userId, personId: session.personId, role: role, method: .session), session)
        }) else { return nil }
        return actingPrincipal(principal, session: session)
    }
}

/// Compares secrets without leaking where they differ through timing.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let lhs = SHA256.hash(data: Data(a.utf8))
    let rhs = SHA256.hash(data: Data(b.utf8))
    return lhs == rhs
}
