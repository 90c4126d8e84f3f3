import CollabCore
import CollabStore
import CollabWire
import Crypto
import Foundation
import Hummingbird

/// Checks credentials against the state: a user's name and password, a login session, a started
/// mobile client, the control token. Every check ends in the same ``Principal``. Which of them a
/// request may present is its surface's to say (``AuthenticationMiddleware``).
struct Authenticator: Sendable {
    let environment: CollabEnvironment

    /// Whether `token` is the control token (compared in constant time).
    func isControlToken(_ token: String) -> Bool {
        guard let control = environment.configuration.controlToken else { return false }
        return constantTimeEquals(control, token)
    }

    /// Verifies a username and password (bcrypt, cached per credential). The role is the user's as
    /// stored now, so a demotion takes effect on the next request.
    func principal(username: String, password: String) async throws(CollabError) -> Principal {
        let invalid = CollabError.unauthorized("invalid username or password")
        let found: (accountId: String, hash: String, principal: Principal)
        switch try lookUp(username: username, password: password) {
        case .verified(let principal):
            return principal
        case .unknown:
            // As long as a wrong password takes: the time of a refusal does not tell which usernames exist.
            try await environment.hasher.checkAgainstDecoy(password, account: decoyAccount(for: username))
            throw invalid
        case .toVerify(let accountId, let hash, let principal):
            found = (accountId, hash, principal)
        }
        let valid = try await environment.hasher.check(password, against: found.hash, account: found.accountId)
        guard valid, let userId = found.principal.userId else { throw invalid }
        // The hash may have changed while bcrypt ran: remember only what the state still holds.
        guard let principal = try? environment.read(account: found.accountId, { state -> Principal? in
            guard let user = state.users[userId], user.passwordHash == found.hash else { return nil }
            return found.principal
        }) else {
            throw invalid
        }
        environment.credentials.remember(
            accountId: found.accountId, username: username, password: password, userId: userId, passwordHash: found.hash)
        return principal
    }

    /// The account a username no account has is counted with at the password gate: one of the accounts,
    /// the same one for a username while the accounts stay the same (``Directory/accountId(spreading:)``).
    /// A gate refusal then tells nothing of whether a username exists (a key of its own would: guesses
    /// of unknown names could fill it and leave known ones admitted), and guesses of made-up names hold
    /// at most the accounts' shares.
    func decoyAccount(for username: String) -> String {
        environment.repository.directory.accountId(spreading: username) ?? PasswordCheckGate.unknownKey
    }

    /// What the state and the credential cache say of a username and password, without bcrypt: the
    /// basic-authentication middleware answers a cached credential with no suspension at all.
    enum BasicLookUp {
        /// Verified earlier against the hash the user still has.
        case verified(Principal)
        /// No such user (or one without a password).
        case unknown
        /// A user whose hash the password has not been checked against yet.
        case toVerify(accountId: String, hash: String, principal: Principal)
    }

    /// Looks the credentials up (see ``BasicLookUp``).
    /// - Throws: `unauthorized` for a username or password longer than any the server stores.
    func lookUp(username: String, password: String) throws(CollabError) -> BasicLookUp {
        guard !username.isEmpty, Limits.fits(username, Limits.nameLength), Limits.fits(password, Limits.passwordLength) else {
            throw .unauthorized("invalid username or password")
        }
        guard let accountId = environment.accountId(for: .username(username)) else { return .unknown }
        // The user, its hash and the principal it would be, in one look at the account.
        let found = try? environment.read(account: accountId) { state -> (hash: String, principal: Principal)? in
            guard let user = state.user(loginName: username), let hash = user.passwordHash else { return nil }
            let principal = Principal(
                accountId: user.accountId, userId: user.id, personId: state.personId(ofUser: user), role: user.authorizationRole, method: .basic
            )
            return (hash, principal)
        }
        guard let found, let userId = found.principal.userId else { return .unknown }
        if environment.credentials.lookup(accountId: accountId, username: username, password: password, currentHash: found.hash) == userId {
            return .verified(found.principal)
        }
        return .toVerify(accountId: accountId, hash: found.hash, principal: found.principal)
    }

    /// The account a refused request's credentials name, if the directory knows it: a basic username, or
    /// a session's, app's or (signed) call's token; `proven` unless only a username named it (anyone may
    /// send a known username with a wrong password). For the journal only; it authenticates nothing.
    func accountNamed(by request: Request) -> (accountId: String, proven: Bool)? {
        let value: String
        if let authorization = request.headers.single(.authorization) {
            guard let header = AuthorizationHeader(authorization) else { return nil }
            if header.scheme == "basic" {
                guard let (username, _) = header.basic, Limits.fits(username, Limits.nameLength) else { return nil }
                return environment.accountId(for: .username(username)).map { ($0, false) }
            }
            value = header.credentials
        } else if let query = request.uri.queryParameters["token"] {
            value = AuthorizationHeader.trimmingBlanks(query)
        } else {
            return nil
        }
        guard value.utf8.count <= 4_096 else { return nil }
        if let claims = CallCredential.claims(of: value) {
            // Anyone can write a credential's claims: only one its call's secret signed names the account,
            // so a stranger cannot fill another account's journal with refusals.
            guard environment.repository.directory.account(claims.accountId) != nil,
                let signed = try? environment.read(
                    account: claims.accountId, { state in state.calls[claims.callId].map { CallCredential.isSigned(value, for: $0) } }),
                signed == true
            else { return nil }
            return (claims.accountId, true)
        }
        guard value.utf8.count <= 128 else { return nil }
        return (environment.accountId(for: .session(value)) ?? environment.accountId(for: .client(value))).map { ($0, true) }
    }

    /// The started mobile client behind a token, noting its activity (the idle expiry counts from it).
    func client(token: String) -> ClientSession? {
        guard token.utf8.count <= 128, let accountId = environment.accountId(for: .client(token)) else { return nil }
        let now = environment.clock.now()
        let repository = environment.repository
        let touched = try? repository.touch(account: accountId) { state in
            (idle: state.touchClient(token: token, now: now), session: state.clientSession(token: token))
        }
        // In a cluster another replica may run the idle expiry: activity is stored (and so replicated)
        // once a quarter of the idle timeout has passed since it was last stored, not on every request;
        // until that write commits, the client's further requests find it queued and add nothing.
        if repository.isClusterReplica, let touched, touched.idle >= environment.configuration.clientIdleTimeout / 4 {
            environment.clientActivity.note(accountId: accountId, token: token)
        }
        return touched?.session
    }

    /// The caller a started app acts as: a visitor, or an agent with the role its user holds now (a
    /// demotion takes effect on the next request).
    func principal(of client: ClientSession) throws(CollabError) -> Principal {
        guard let userId = client.userId else {
            return Principal(accountId: client.accountId, userId: nil, personId: client.personId, role: .webuser, method: .client)
        }
        guard let role = try? environment.read(account: client.accountId, { $0.users[userId]?.authorizationRole }) else {
            throw .unauthorized("the agent of this app no longer exists")
        }
        return Principal(accountId: client.accountId, userId: userId, personId: client.personId, role: role, method: .client)
    }

    /// The callee a call's device credential names, while the call is not over, and the side it is for.
    /// The principal's role is always WEBUSER, the agent's as well as the visitor's: a credential acts on
    /// its call's routes alone, which check it themselves (``CheckedCallCredential``), and passes no
    /// other route's role check.
    func callParty(credential: String) -> (Principal, CheckedCallCredential)? {
        guard let claims = CallCredential.claims(of: credential), environment.repository.directory.account(claims.accountId) != nil,
            let personId = claims.deviceRecordId.split(separator: ":", maxSplits: 1).first.map(String.init),
            let isAgent = try? environment.read(
                account: claims.accountId,
                { state -> Bool? in
                    guard let call = state.calls[claims.callId], CallCredential.isValid(credential, for: call) else { return nil }
                    return state.persons[personId]?.personType == .agent
                })
        else { return nil }
        let principal = Principal(accountId: claims.accountId, userId: nil, personId: personId, role: .webuser, method: .callCredential)
        return (principal, CheckedCallCredential(claims: claims, isAgent: isAgent))
    }

    /// The caller behind a login session token. The role is read from the user as stored now (a session
    /// also ends when its user's role changes), never from what the session was opened with.
    func principal(forSession token: String) -> Principal? {
        guard token.utf8.count <= 128, let accountId = environment.accountId(for: .session(token)) else { return nil }
        let now = environment.clock.now()
        guard let (principal, session) = try? environment.read(account: accountId, { state -> (Principal, AuthSession)? in
            guard let session = state.session(token: token, now: now) else { return nil }
            var role = session.role
            if let userId = session.userId {
                guard let user = state.users[userId] else { return nil }
                role = min(role, user.authorizationRole)
            }
            return (
                Principal(accountId: session.accountId, userId: session.userId, personId: session.personId, role: role, method: .session),
                session
            )
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
