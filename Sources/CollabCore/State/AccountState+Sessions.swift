extension AccountState {
    /// Opens a session (or issues a one-time authentication token) for a person.
    public mutating func openSession(
        kind: AuthSession.Kind, accountId: String, userId: String?, personId: String, role: AuthorizationRole, lifetime: Int64,
        accessTokenDigest: String? = nil, context: OperationContext, changes: inout ChangeSet
    ) -> AuthSession {
        let session = AuthSession(
            id: context.ids.makeSecret(), kind: kind, accountId: accountId, userId: userId, personId: personId, role: role,
            createdAt: context.now, expiresAt: context.now + lifetime, accessTokenDigest: accessTokenDigest
        )
        // A person holds at most ``SessionLimits/perPerson`` sessions and tokens: one more ends the oldest, so
        // logging in again and again grows neither the account nor the server's directory of tokens.
        let held = sessions.rows(Indexes.sessionByPerson, personId)
        if held.count >= SessionLimits.perPerson {
            let oldest = held.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
            for old in oldest.prefix(held.count - SessionLimits.perPerson + 1) { removeSession(old.id, changes: &changes) }
        }
        sessions[session.id] = session
        // Tokens are random secrets: a clash is impossible in practice, and would only refuse this login.
        try? directory.claim(.session(session.id), for: accountId, log: &directoryLog, conflict: .conflict("token clash"))
        deadlines.schedule(.sessionExpiry(session.id), at: session.expiresAt)
        changes.put(session)
        return session
    }

    /// Opens a session for a user, after the caller verified the password.
    public mutating func openSession(
        for user: User, kind: AuthSession.Kind, lifetime: Int64, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> AuthSession {
        guard users[user.id] != nil else { throw .unauthorized("invalid username or password") }
        var personId = person(ofUser: user)?.id
        if personId == nil {
            syncPerson(of: user, context: context, changes: &changes)
            personId = person(ofUser: user)?.id
        }
        return openSession(
            kind: kind, accountId: user.accountId, userId: user.id, personId: personId ?? "", role: user.authorizationRole, lifetime: lifetime,
            context: context, changes: &changes
        )
    }

    /// A live session for the token, or `nil` when unknown, expired or not a session.
    public func session(token: String, now: Timestamp) -> AuthSession? {
        guard let session = sessions[token], session.kind == .session, session.expiresAt > now else { return nil }
        return session
    }

    /// Ends a session; unknown tokens are ignored.
    public mutating func closeSession(token: String, changes: inout ChangeSet) {
        removeSession(token, changes: &changes)
    }

    /// Ends every session of a user (a new password, a changed role, a deleted user), and the agent
    /// apps started as the user: an app started with a leaked password must not outlive its reset.
    /// - Returns: The tokens that ended, so live connections opened with them can be closed.
    @discardableResult
    public mutating func closeSessions(ofUser userId: String, changes: inout ChangeSet) -> [String] {
        var tokens = Array(sessions.ids(Indexes.sessionByUser, userId))
        for token in tokens { removeSession(token, changes: &changes) }
        if let personId = personIdBySource[PersonSourceKey(source: .userDB, sourceId: userId)] {
            let apps = clientSessions.rows(Indexes.clientByPerson, personId).filter(\.isAgent).map(\.id)
            for token in apps { stopClient(token: token, changes: &changes) }
            tokens += apps
        }
        return tokens
    }

    /// Ends every session and authentication token of the virtual person with `sourceId` (the subject
    /// of a visitor's access token: `logoutWithSecureToken`); no such person ends nothing.
    /// - Returns: The tokens that ended, so live connections opened with them can be closed.
    @discardableResult
    public mutating func closeSessions(ofVirtualPerson sourceId: String, changes: inout ChangeSet) -> [String] {
        guard let personId = personIdBySource[PersonSourceKey(source: .virtual, sourceId: sourceId)] else { return [] }
        let tokens = Array(sessions.ids(Indexes.sessionByPerson, personId))
        for token in tokens { removeSession(token, changes: &changes) }
        return tokens
    }

    mutating func removeSession(_ token: String, changes: inout ChangeSet) {
        guard sessions.removeValue(forKey: token) != nil else { return }
        directory.release(.session(token), log: &directoryLog)
        changes.delete(.session, token)
    }

    /// Exchanges a one-time authentication token for a session; the token is used up.
    public mutating func redeemAuthenticationToken(
        _ token: String, lifetime: Int64, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> AuthSession {
        guard let issued = sessions[token], issued.kind == .authenticationToken else {
            throw .unauthorized("unknown or already used authentication token")
        }
        // Refused before anything changes (an expired token is swept by its deadline).
        guard issued.expiresAt > context.now else { throw .unauthorized("the authentication token has expired") }
        removeSession(token, changes: &changes)
        return openSession(
            kind: .session, accountId: issued.accountId, userId: issued.userId, personId: issued.personId, role: issued.role,
            lifetime: lifetime, accessTokenDigest: issued.accessTokenDigest, context: context, changes: &changes
        )
    }

    /// Removes a session or token if it has expired by `now`.
    mutating func expireSession(_ token: String, now: Timestamp, changes: inout ChangeSet) {
        guard let session = sessions[token], session.expiresAt <= now else { return }
        removeSession(token, changes: &changes)
    }

    /// The account's JWT validation settings.
    public func jwtValidation(accountId: String) -> JWTValidationSettings? { jwtSettings[accountId] }
}

/// Bounds on login sessions.
public enum SessionLimits {
    /// Login sessions and one-time authentication tokens one person holds at once (browsers, tools,
    /// scripts, and `mock-collab load`'s simulated agents, which all log in as one user): one more ends
    /// that person's oldest.
    public static let perPerson = 1_000
}
