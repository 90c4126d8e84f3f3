import CollabCore
import CollabStore

extension Authenticator {
    /// The caller a super admin's session acts as: itself in the account it switched to, or the user it
    /// impersonates. Both need the session's own user to be a super admin now: a demoted user's session
    /// falls back to its own account and role.
    func actingPrincipal(_ own: Principal, session: AuthSession) -> Principal? {
        guard session.actingAccountId != nil || session.impersonatedUserId != nil else { return own }
        guard own.role == .superAdmin else { return own }
        let accountId = session.actingAccountId ?? session.accountId
        guard let userId = session.impersonatedUserId else {
            // The switched super admin has no person in the target account.
            return environment.repository.directory.account(accountId) == nil
                ? own : Principal(accountId: accountId, userId: own.userId, personId: nil, role: .superAdmin, method: .session)
        }
        return try? environment.read(account: accountId) { state -> Principal? in
            // An impersonated user that is gone ends the impersonation's access, not the super admin's.
            guard let user = state.users[userId] else { return nil }
            let role = session.keepRole == true ? AuthorizationRole.superAdmin : user.authorizationRole
            return Principal(accountId: accountId, userId: user.id, personId: state.person(ofUser: user)?.id, role: role, method: .session)
        }
    }
}
