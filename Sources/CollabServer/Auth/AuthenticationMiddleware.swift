import CollabCore
import CollabWire
import Foundation
import Hummingbird

/// Resolves the caller once per request, from the credentials its surface takes
/// (``Surface/Credentials``), into the context: the principal, the session or started client behind a
/// token, the client certificate's subject.
///
/// It never throws: credentials the surface does not take, or that do not check out, are kept as
/// ``CollabRequestContext/authenticationFailure`` and answered by ``AccessMiddleware``, so the refusal
/// is journaled and written in the surface's error body. A surface that takes no credentials (the
/// probes) ignores whatever comes: a scraper with a stale `Authorization` header still sees the
/// server's health.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let authenticator: Authenticator
    let accepts: Surface.Credentials
    /// Whether connections may carry client certificates (mutual TLS).
    let readsCertificates: Bool

    /// The credentials that name a caller (as opposed to the certificate and where a token may come).
    private static let callerCredentials: Surface.Credentials = [.basic, .session, .controlToken, .client, .agentClient, .callCredential]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do throws(CollabError) {
            if readsCertificates {
                context.clientCertificate = await ClientCertificate.subject(on: context.channel)
                if context.clientCertificate == nil, accepts.contains(.clientCertificate) {
                    throw .unauthorized("a client certificate is required for the device API (mutual TLS)")
                }
            }
            // Only credentials bcrypt has still to check suspend the request.
            if let unverified = try authenticate(request, context: &context) {
                context.principal = try await authenticator.principal(username: unverified.username, password: unverified.password)
            }
        } catch {
            context.principal = .anonymous
            context.authenticationFailure = error
            // The journal files the refusal under the account the credential names, where it names one
            // the server knows (a username, an expired session's or app's token not yet swept), so
            // `journal?account=` shows who failed to get in. A username alone proves nothing: such
            // refusals are kept apart from the account's entries. The caller learns nothing of it.
            if let named = authenticator.accountNamed(by: request) {
                context.credentialNote.identified(accountId: named.accountId, unproven: !named.proven)
            }
        }
        return try await next(request, context)
    }

    /// Resolves the caller from what the request presents, without suspending.
    /// - Returns: Basic credentials the cache has not seen verified, for bcrypt to check; `nil` when the
    ///   caller is resolved (or presented nothing).
    private func authenticate(_ request: Request, context: inout Context) throws(CollabError) -> (username: String, password: String)? {
        context.takesAccountCookie = accepts.contains(.accountCookie)
        guard !accepts.isDisjoint(with: Self.callerCredentials) else { return nil }
        if let authorization = request.headers.single(.authorization) {
            return try authenticate(authorization: authorization, context: &context)
        } else if accepts.contains(.session), let token = request.cookies[webAPISessionCookieName]?.value,
            let principal = authenticator.principal(forSession: token)
        {
            // A stale cookie is simply "not logged in": the caller stays anonymous. So is a cookie another
            // origin's page made the browser send (SameSite ignores ports: any page on the same host would
            // otherwise read the desk's live events and act as its user).
            guard Self.isSameOrigin(request) else {
                throw .unauthorized(
                    "the console's session cookie is only taken from the console's own origin (Origin: \(request.headers[.origin] ?? ""))")
            }
            context.principal = principal
            context.sessionToken = token
        } else if accepts.contains(.socketToken), request.headers[.upgrade]?.lowercased() == "websocket", let token = request.query("token") {
            guard try bearer(token, context: &context) else { throw .unauthorized("unknown or expired token") }
        }
        return nil
    }

    private func authenticate(authorization: String, context: inout Context) throws(CollabError) -> (username: String, password: String)? {
        guard let header = AuthorizationHeader(authorization) else { throw .unauthorized("malformed Authorization header") }
        switch header.scheme {
        case "basic":
            guard accepts.contains(.basic) else { throw .unauthorized("this API does not take basic credentials") }
            guard let (username, password) = header.basic else { throw .unauthorized("malformed basic credentials") }
            switch try authenticator.lookUp(username: username, password: password) {
            case .verified(let principal): context.principal = principal
            case .unknown, .toVerify: return (username, password)
            }
        case "bearer":
            guard try bearer(header.credentials, context: &context) else { throw .unauthorized("unknown or expired bearer token") }
        default:
            throw .unauthorized("unsupported authorization scheme '\(header.sentScheme)'")
        }
        return nil
    }

    /// Whether a request that came with the session cookie came from a page of this server: without an
    /// `Origin` header (a browser leaves it out of same-origin reads; other clients do not send it), or
    /// with one naming the host and port the request was sent to.
    static func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let authority = request.head.authority, let separator = origin.range(of: "://") else { return false }
        return origin[separator.upperBound...].lowercased() == authority.lowercased()
    }

    /// Takes a token of a kind the surface accepts; `false` when it is none of them.
    /// - Throws: `unauthorized` for a started app's token of the other kind (a visitor's on the agent
    ///   API, an agent's on the device API), so the mistake is named.
    private func bearer(_ token: String, context: inout Context) throws(CollabError) -> Bool {
        if accepts.contains(.callCredential), CallCredential.claims(of: token) != nil {
            guard let (principal, credential) = authenticator.callParty(credential: token) else {
                throw .unauthorized("the call credential is not valid, or its call is over")
            }
            context.principal = principal
            context.callCredential = credential
        } else if accepts.contains(.controlToken), authenticator.isControlToken(token) {
            context.principal = .control
        } else if accepts.contains(.session), let principal = authenticator.principal(forSession: token) {
            context.principal = principal
            context.sessionToken = token
        } else if !accepts.isDisjoint(with: [.client, .agentClient]), let client = authenticator.client(token: token) {
            guard accepts.contains(client.isAgent ? .agentClient : .client) else {
                throw .unauthorized(
                    client.isAgent
                        ? "an agent app's token is for the agent API (/agent/v1)" : "a visitor app's token is for the device API (/mobile/v1)")
            }
            context.principal = try authenticator.principal(of: client)
            context.clientToken = token
            context.client = client
        } else {
            return false
        }
        return true
    }
}
