extension AccountState {
    /// Removes a user's password (the vendor's `removePassword`): the user can no longer log in with
    /// one, and the sessions opened with it end. Admins do this for users they manage.
    public mutating func removePassword(
        userId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> User {
        let user = try self.user(userId, for: principal)
        guard principal.role >= .admin || principal.method == .controlToken else { throw .forbidden("only administrators remove passwords") }
        guard user.authorizationRole <= principal.role else { throw .forbidden("cannot change a user whose role is above your own") }
        return replacePasswordHash(of: user, with: nil, context: context, changes: &changes)
    }

    /// Stores `user` with `passwordHash` (nil: no password) as a new version, announces the update, and
    /// ends the sessions opened with the old password.
    mutating func replacePasswordHash(of user: User, with passwordHash: String?, context: OperationContext, changes: inout ChangeSet) -> User {
        var user = user
        user.passwordHash = passwordHash
        user.version += 1
        user.modificationTimestamp = context.now
        storeUser(user)
        changes.put(user)
        emitEntity(.update, .user(user), context: context, changes: &changes)
        closeSessions(ofUser: user.id, changes: &changes)
        return user
    }
}
