extension AccountState {
    /// Switches a super admin's login session to act in another account (the vendor's
    /// `switchToAccount`); switching to the session's own account switches back. Ends any impersonation.
    /// The session record stays in the super admin's own account.
    public mutating func switchSession(token: String, to targetAccountId: String, now: Timestamp, changes: inout ChangeSet) throws(CollabError) {
        try setActing(token: token, accountId: targetAccountId, userId: nil, keepRole: nil, now: now, changes: &changes)
    }

    /// Makes a super admin's login session act as `userId` of `accountId` (the vendor's `impersonate`).
    public mutating func impersonate(
        token: String, userId: String, accountId: String, keepRole: Bool, now: Timestamp, changes: inout ChangeSet
    ) throws(CollabError) {
        try setActing(token: token, accountId: accountId, userId: userId, keepRole: keepRole, now: now, changes: &changes)
    }

    /// Makes a super admin's login session act in `accountId` (its own account: no switch) as `userId`
    /// (`nil`: as the super admin).
    private mutating func setActing(
        token: String, accountId: String, userId: String?, keepRole: Bool?, now: Timestamp, changes: inout ChangeSet
    ) throws(CollabError) {
        var session = try superAdminSession(token: token, now: now)
        session.actingAccountId = accountId == session.accountId ? nil : accountId
        session.impersonatedUserId = userId
        session.keepRole = keepRole
        sessions[token] = session
        changes.put(session)
    }

    /// Ends the impersonation of a login session (the vendor's `resetImpersonation`); the account it
    /// was switched to stays. Does nothing without an impersonation.
    public mutating func resetImpersonation(token: String, now: Timestamp, changes: inout ChangeSet) throws(CollabError) {
        guard var session = session(token: token, now: now) else { throw .unauthorized("this operation needs a login session") }
        guard session.impersonatedUserId != nil else { return }
        session.impersonatedUserId = nil
        session.keepRole = nil
        sessions[token] = session
        changes.put(session)
    }

    /// The live login session behind `token`, whose own user is (still) a super admin.
    private func superAdminSession(token: String, now: Timestamp) throws(CollabError) -> AuthSession {
        guard let session = session(token: token, now: now) else {
            throw .badRequest("this operation changes a login session: log in with authenticator/login and call it with the session")
        }
        guard let userId = session.userId, let user = users[userId], user.authorizationRole == .superAdmin else {
            throw .forbidden("only super admins switch accounts and impersonate")
        }
        return session
    }
}
