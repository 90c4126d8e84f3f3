import CollabCore
import CollabTLS
import CollabWire
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// `/authenticator/…`: login, logout, createAuthenticationToken, authenticateWithToken,
/// loginWithSecureToken, getCurrentPerson. Every login ends in the `x-unblu-authsession` cookie.
struct AuthenticatorRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let lifetime = env.configuration.sessionLifetime
        group.operation(.post, "login", role: .anonymousUser) { request, context in
            try Self.requireOwnOrigin(request, "login")
            let body = try await env.decode(WebLoginBody.self, from: request)
            let user = try await verifiedUser(body.username, body.password)
            let session = try await env.write(account: user.accountId) { state, changes, op throws(CollabError) in
                try state.openSession(for: user, kind: .session, lifetime: lifetime, context: op, changes: &changes)
            }
            var response = loggedIn(session, redirect: body.redirectOnSuccess, secure: await PeerCertificate.isTLS(context.channel))
            // A later session gets the language the user chose, as setDefaultLocale answered it.
            if let locale = user.locale { response.setCookie(.locale(locale)) }
            return response
        }
        group.operation(.post, "logout", role: .anonymousUser) { request, context in
            try Self.requireOwnOrigin(request, "logout")
            _ = try await env.decode(WebLogoutBody?.self, fromOptional: request)
            if let token = context.sessionToken, let accountId = env.accountId(for: .session(token)) {
                try await env.write(account: accountId) { state, changes, _ throws(CollabError) in
                    state.closeSession(token: token, changes: &changes)
                }
                env.events.disconnect(sessionKey: token)
            }
            var response = Response(status: .noContent)
            response.setCookie(Cookie(name: webAPISessionCookieName, value: "", maxAge: 0, path: "/", httpOnly: true))
            return response
        }
        group.operation(.post, "createAuthenticationToken", role: .anonymousUser) { request, context in
            let body = try await env.decode(WebLoginBody.self, from: request)
            let user = try await verifiedUser(body.username, body.password)
            let tokenLifetime = env.configuration.authenticationTokenLifetime
            let token = try await env.write(account: user.accountId) { state, changes, op throws(CollabError) in
                try state.openSession(for: user, kind: .authenticationToken, lifetime: tokenLifetime, context: op, changes: &changes)
            }
            return JSONBody.response(WebAuthenticationTokenResult(token: token.id))
        }
        group.operation(.get, "authenticateWithToken", role: .anonymousUser) { request, context in
            let token = try request.requireQuery("authenticationToken")
            guard token.utf8.count <= 128, let accountId = env.accountId(for: .session(token)) else {
                throw CollabError.unauthorized("unknown or already used authentication token")
            }
            let session = try await env.write(account: accountId) { state, changes, op throws(CollabError) in
                try state.redeemAuthenticationToken(token, lifetime: lifetime, context: op, changes: &changes)
            }
            return loggedIn(session, redirect: request.query("redirectOnSuccess"), secure: await PeerCertificate.isTLS(context.channel))
        }
        group.operation(.post, "loginWithSecureToken", role: .anonymousUser) { request, context in
            let apiKey = try request.requireQuery("x-unblu-apikey")
            let token = try await secureToken(request)
            let session = try await env.loginVisitor(accessToken: token, apiKey: apiKey)
            var response = Response(status: .noContent)
            response.setCookie(sessionCookie(session, secure: await PeerCertificate.isTLS(context.channel)))
            return response
        }
        group.operation(.post, "logoutWithSecureToken", role: .anonymousUser) { request, context in
            // The vendor's backend logout from visitor SSO: a token the account accepts names the
            // visitor, whose sessions and one-time tokens all end.
            let apiKey = try request.requireQuery("x-unblu-apikey")
            let token = try await secureToken(request)
            // Revocation stops logins, not this: a revoked token still names the visitor whose sessions end.
            let (accountId, identity) = try await env.validateAccessToken(token, apiKey: apiKey, allowingRevoked: true)
            let ended = try await env.write(account: accountId) { state, changes, _ throws(CollabError) in
                state.closeSessions(ofVirtualPerson: identity.subject, changes: &changes)
            }
            for token in ended { env.events.disconnect(sessionKey: token) }
            return noContent
        }
        group.operation(.post, "createAuthenticationTokenForCurrentUser", role: .webuser) { _, context in
            let principal = context.principal
            guard let personId = principal.personId else { throw CollabError.unauthorized("not logged in") }
            let tokenLifetime = env.configuration.authenticationTokenLifetime
            let sessionToken = context.sessionToken
            // The account the session lives in (a super admin's switched session lives in its home account).
            let sessionHome = sessionToken.flatMap { env.accountId(for: .session($0)) }
            let token = try await env.write(principal) { state, changes, op throws(CollabError) in
                // A token minted in a session an access token opened descends from that token: its revocation
                // ends both. Read under the lock: a revocation that committed since authentication ended the session.
                var digest: String?
                if let sessionToken, sessionHome == nil || sessionHome == state.accountId {
                    guard let session = state.sessions[sessionToken] else { throw .unauthorized("the session has ended") }
                    digest = session.accessTokenDigest
                }
                return state.openSession(
                    kind: .authenticationToken, accountId: try ownAccount(nil, principal), userId: principal.userId, personId: personId,
                    role: principal.role, lifetime: tokenLifetime, accessTokenDigest: digest, context: op, changes: &changes
                )
            }
            return JSONBody.response(WebAuthenticationTokenResult(token: token.id))
        }
        group.operation(.get, "getCurrentPerson", role: .anonymousUser) { request, context in
            let expand = try Expansion(request)
            guard let personId = context.principal.personId else { throw CollabError.unauthorized("not logged in") }
            let person = try env.read(context.principal) { state throws(CollabError) in try state.person(personId, for: context.principal) }
            return JSONBody.response(WebPerson(person, expand: expand))
        }
    }

    /// Refuses a browser's cross-origin `login` or `logout`: a form on another site could otherwise log
    /// the console's user into the site's own account (its session cookie replacing theirs) or out. The
    /// session cookie is `SameSite=Lax`, which keeps it off such a request but not off its answer.
    /// Clients that send no `Origin` (curl, the client library, backends) pass.
    static func requireOwnOrigin(_ request: Request, _ operation: String) throws(CollabError) {
        guard AuthenticationMiddleware.isSameOrigin(request) else {
            throw .forbidden("\(operation) is only taken from this server's own pages (Origin: \(request.headers[.origin] ?? ""))")
        }
    }

    /// The token of a `SecureTokenRequest` body.
    private func secureToken(_ request: Request) async throws -> String {
        let body = try await environment.decode(WebSecureTokenRequest.self, from: request)
        try checkType(body)
        guard let token = body.token, !token.isEmpty else { throw CollabError.badRequest("token is required") }
        if let tokenType = body.tokenType, tokenType != "JWT", tokenType != "OIDC_ACCESS_TOKEN" {
            throw CollabError.badRequest("type must be JWT or OIDC_ACCESS_TOKEN")
        }
        return token
    }

    private func verifiedUser(_ username: String?, _ password: String?) async throws -> User {
        guard let username, let password else { throw CollabError.badRequest("username and password are required") }
        let principal = try await Authenticator(environment: environment).principal(username: username, password: password)
        return try environment.read(principal) { state throws(CollabError) in
            guard let id = principal.userId, let user = state.users[id] else { throw .unauthorized("invalid username or password") }
            return user
        }
    }

    /// The session cookie; `secure` (the login came over TLS) keeps the browser from sending it over
    /// plain HTTP.
    private func sessionCookie(_ session: AuthSession, secure: Bool) -> Cookie {
        let maxAge = Int(max(0, (session.expiresAt - session.createdAt) / 1000))
        return Cookie(
            name: webAPISessionCookieName, value: session.id, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    private func loggedIn(_ session: AuthSession, redirect: String?, secure: Bool) -> Response {
        var response: Response
        if let location = SameOriginRedirect.location(redirect) {
            // Only same-origin paths: an open redirect after login would be a phishing aid.
            response = Response(status: .found, headers: [.location: location])
        } else {
            response = JSONBody.response(WebLoginResult(success: true))
        }
        response.setCookie(sessionCookie(session, secure: secure))
        return response
    }
}

extension CollabEnvironment {
    /// Validates an access token for the account of `apiKey` and opens a visitor session for the
    /// person it names (created on first login).
    func loginVisitor(accessToken: String, apiKey: String) async throws -> AuthSession {
        let (accountId, identity) = try await validateAccessToken(accessToken, apiKey: apiKey)
        let lifetime = configuration.sessionLifetime
        let digest = AccessTokenStamp.digest(of: accessToken)
        return try await write(account: accountId) { state, changes, op throws(CollabError) in
            try state.checkNotRevoked(accessTokenDigest: digest)
            let person = try state.createOrUpdateVirtualPerson(
                PersonInput(
                    sourceId: identity.subject, personType: .visitor, username: identity.username, firstName: identity.firstName,
                    lastName: identity.lastName, displayName: identity.displayName, email: identity.email
                ),
                accountId: accountId, context: op, changes: &changes
            )
            return state.openSession(
                kind: .session, accountId: accountId, userId: nil, personId: person.id, role: person.authorizationRole, lifetime: lifetime,
                accessTokenDigest: digest, context: op, changes: &changes
            )
        }
    }

    /// Validates an access token for the account of `apiKey`.
    /// - Returns: The account and what the token says about its bearer.
    func validateAccessToken(
        _ accessToken: String, apiKey: String, allowingRevoked: Bool = false
    ) async throws -> (String, AccessTokenValidator.Identity) {
        guard apiKey.utf8.count <= Limits.nameLength, let accountId = accountId(for: .apiKey(apiKey)),
            let key = try? read(account: accountId, { $0.apiKey(presented: apiKey) })
        else {
            throw CollabError.unauthorized("invalid API key")
        }
        guard let settings = try read(account: key.accountId, { $0.jwtValidation(accountId: key.accountId) }) else {
            throw CollabError.unauthorized("the account accepts no access tokens")
        }
        let identity = try await tokens.validate(accessToken, settings: settings, allowingRevoked: allowingRevoked)
        // Anonymous devices' visitors live under this prefix; a token cannot name one of them.
        guard !identity.subject.hasPrefix(AccountState.anonymousDevicePrefix) else {
            throw CollabError.unauthorized(
                "access token subjects starting with '\(AccountState.anonymousDevicePrefix)' are reserved for anonymous devices")
        }
        return (key.accountId, identity)
    }
}

extension CollabEnvironment {
    /// Decodes an optional JSON body: an empty body is `nil`.
    func decode<T: Decodable>(_ type: T?.Type, fromOptional request: Request) async throws(CollabError) -> T? {
        let buffer = try await collectBody(request)
        guard buffer.readableBytes > 0 else { return nil }
        return try JSONBody.decode(T.self, from: Data(buffer: buffer))
    }
}
