/// The editable fields of a user.
public struct UserInput: Sendable {
    public var username: String?
    public var email: String?
    public var phone: String?
    public var teamId: String?
    public var authorizationRole: AuthorizationRole?
    public var displayName: String?
    public var firstName: String?
    public var lastName: String?
    public var externallyManaged: Bool?
    public var virtualUser: Bool?
    public var configuration: [String: String]?
    public var metadata: [String: String]?

    public init(
        username: String? = nil, email: String? = nil, phone: String? = nil, teamId: String? = nil,
        authorizationRole: AuthorizationRole? = nil, displayName: String? = nil, firstName: String? = nil, lastName: String? = nil,
        externallyManaged: Bool? = nil, virtualUser: Bool? = nil, configuration: [String: String]? = nil, metadata: [String: String]? = nil
    ) {
        self.username = username
        self.email = email
        self.phone = phone
        self.teamId = teamId
        self.authorizationRole = authorizationRole
        self.displayName = displayName
        self.firstName = firstName
        self.lastName = lastName
        self.externallyManaged = externallyManaged
        self.virtualUser = virtualUser
        self.configuration = configuration
        self.metadata = metadata
    }

    func validate() throws(CollabError) {
        let username = try Limits.checkName(username, field: "username")
        guard !username.contains(where: { $0.isWhitespace || $0 == ":" }) else {
            throw .badRequest("username must not contain spaces or ':'")
        }
        for (value, field) in [
            (email, "email"), (phone, "phone"), (teamId, "teamId"), (displayName, "displayName"), (firstName, "firstName"), (lastName, "lastName"),
        ] {
            try Limits.checkOptional(value, field: field)
        }
        if authorizationRole == .anonymousUser { throw .badRequest("a user cannot have the role ANONYMOUS_USER") }
        try Limits.checkProperties(configuration, field: "configuration")
        try Limits.checkProperties(metadata, field: "metadata")
    }
}

extension AccountState {
    /// A user of the caller's account.
    public func user(_ id: String, for principal: Principal) throws(CollabError) -> User {
        guard let user = users[id], principal.canAccess(accountId: user.accountId) else { throw .notFound("User", id) }
        return user
    }

    /// A user of the caller's account by username.
    public func user(username: String, for principal: Principal) throws(CollabError) -> User {
        guard let id = userIdByUsername[username], let user = users[id], principal.canAccess(accountId: user.accountId) else {
            throw CollabError(.notFound, "User with username '\(username)' not found")
        }
        return user
    }

    /// A user of this account by username, for logging in (the directory says which account a
    /// username belongs to).
    public func user(loginName: String) -> User? {
        userIdByUsername[loginName].flatMap { users[$0] }
    }

    /// Searches the caller's users.
    public func searchUsers(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<User> {
        _ = try callerAccountId(principal)
        let lookups = SearchLookups().adding("ID", users.idLookup).adding("TEAM_ID", users.lookup(Indexes.userByTeam))
            .adding("USERNAME") { [userIdByUsername] in userIdByUsername[$0].map { [$0] } ?? [] }
            .ordering("ID", count: users.count, walk: users.walk(Indexes.userById))
            .ordering("CREATION_TIMESTAMP", count: users.count, walk: users.walk(Indexes.userByCreation))
            .ordering(Indexes.userNameOrders, of: users)
        return try SearchSchemas.user.run(query, lookups: lookups, row: { users[$0] }, all: users.values, id: \.id)
    }

    /// Creates a user (and its person) in `accountId`.
    /// - Parameters:
    ///   - passwordHash: An already computed slow hash, or `nil` for a user without a password.
    ///   - grantor: The role of whoever creates the user; nobody grants a role above their own.
    ///   - teamsLater: The caller checks `teamId` itself once its own teams are in place (a seed, which
    ///     creates users before the account's entities).
    public mutating func createUser(
        _ input: UserInput, passwordHash: String?, accountId: String, grantor: AuthorizationRole, teamsLater: Bool = false,
        context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> User {
        try input.validate()
        try checkAccount(accountId)
        if !teamsLater { try checkTeamReference(input.teamId) }
        let username = try Limits.checkName(input.username, field: "username")
        let role = input.authorizationRole ?? .registeredUser
        guard role <= grantor else { throw .forbidden("cannot grant the role \(role.rawValue), which is above your own") }
        // Every user has a person: users count against the account's persons (--max-persons-per-account).
        try checkRoomForPerson(limits: context.limits)
        try claimUsername(username)
        let user = User(
            id: context.ids.make(), accountId: accountId, username: username, email: input.email, phone: input.phone,
            teamId: input.teamId, authorizationRole: role, displayName: input.displayName, firstName: input.firstName,
            lastName: input.lastName, externallyManaged: input.externallyManaged ?? false, virtualUser: input.virtualUser ?? false,
            creationTimestamp: context.now, modificationTimestamp: context.now, version: 1, configuration: input.configuration ?? [:],
            metadata: input.metadata, passwordHash: passwordHash
        )
        storeUser(user)
        changes.put(user)
        emitEntity(.create, .user(user), context: context, changes: &changes)
        syncPerson(of: user, context: context, changes: &changes)
        return user
    }

    /// Updates a user. Everyone may update themselves except their role; admins update users of their
    /// account whose role is not above their own.
    /// - Parameter teamsLater: As for ``createUser(_:passwordHash:accountId:grantor:teamsLater:context:changes:)``.
    public mutating func updateUser(
        id: String, version: Int64?, _ input: UserInput, for principal: Principal, teamsLater: Bool = false, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> User {
        var user = try self.user(id, for: principal)
        try checkCanManage(user, principal: principal)
        try Self.checkVersion(version, current: user.version, entity: "User")
        try input.validate()
        if input.teamId != user.teamId {
            // A team decides whose queue an agent works: like a role, only an admin moves a user.
            guard principal.role >= .admin else { throw .forbidden("only an admin moves a user to another team") }
            if !teamsLater { try checkTeamReference(input.teamId) }
        }
        let username = try Limits.checkName(input.username, field: "username")
        var roleChanged = false
        if let role = input.authorizationRole, role != user.authorizationRole {
            guard principal.role >= .admin, principal.userId != id else { throw .forbidden("you cannot change this user's role") }
            guard role <= principal.role else { throw .forbidden("cannot grant the role \(role.rawValue), which is above your own") }
            user.authorizationRole = role
            roleChanged = true
        }
        if username != user.username {
            try claimUsername(username)
            directory.release(.username(user.username), log: &directoryLog)
        }
        user.username = username
        user.email = input.email
        user.phone = input.phone
        user.teamId = input.teamId
        user.displayName = input.displayName
        user.firstName = input.firstName
        user.lastName = input.lastName
        if let value = input.externallyManaged { user.externallyManaged = value }
        if let value = input.virtualUser { user.virtualUser = value }
        if let configuration = input.configuration { user.configuration = configuration }
        if let metadata = input.metadata { user.metadata = metadata }
        user.version += 1
        user.modificationTimestamp = context.now
        storeUser(user)
        changes.put(user)
        emitEntity(.update, .user(user), context: context, changes: &changes)
        syncPerson(of: user, context: context, changes: &changes)
        // Sessions carry the role they were opened with: a changed role ends them, so nobody keeps
        // rights they no longer have (the caller also closes live connections opened with them).
        if roleChanged { closeSessions(ofUser: id, changes: &changes) }
        return user
    }

    private mutating func claimUsername(_ username: String) throws(CollabError) {
        let taken = CollabError.conflict("the username '\(username)' is already taken")
        guard userIdByUsername[username] == nil else { throw taken }
        try directory.claim(.username(username), for: accountId, log: &directoryLog, conflict: taken)
    }

    /// Stores the language the caller chose (checked with ``User/checkLocale(_:)``) on the caller's own
    /// user. The vendor's `User` has no such field: the version stays and no modification event goes out.
    /// - Throws: `unauthorized` for a caller without a user.
    public mutating func setOwnLocale(_ locale: String, for principal: Principal, changes: inout ChangeSet) throws(CollabError) {
        guard let userId = principal.userId, var user = users[userId], principal.canAccess(accountId: user.accountId) else {
            throw .unauthorized("only a logged-in user keeps a locale")
        }
        guard user.locale != locale else { return }
        user.locale = locale
        storeUser(user)
        changes.put(user)
    }

    /// Sets a user's password hash: users set their own, admins those of users they manage.
    public mutating func setPassword(
        userId: String, passwordHash: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> User {
        let user = try self.user(userId, for: principal)
        try checkCanManage(user, principal: principal)
        return replacePasswordHash(of: user, with: passwordHash, context: context, changes: &changes)
    }

    /// Deletes a user, its person and its sessions. Nobody deletes themselves.
    public mutating func deleteUser(_ id: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet) throws(CollabError) {
        let user = try self.user(id, for: principal)
        guard principal.userId != id else { throw .badRequest("you cannot delete yourself") }
        try checkCanManage(user, principal: principal)
        users[id] = nil
        userIdByUsername[user.username] = nil
        directory.release(.username(user.username), log: &directoryLog)
        changes.delete(.user, id)
        emitEntity(.delete, .user(user), context: context, changes: &changes)
        // While the user's person is still known, so its agent apps end too.
        closeSessions(ofUser: id, changes: &changes)
        let key = PersonSourceKey(source: .userDB, sourceId: id)
        if let personId = personIdBySource.removeValue(forKey: key) {
            if let person = persons[personId] { emitEntity(.delete, .person(person), context: context, changes: &changes) }
            persons[personId] = nil
            changes.delete(.person, personId)
        }
    }

    private func checkCanManage(_ user: User, principal: Principal) throws(CollabError) {
        if principal.userId == user.id || principal.method == .controlToken { return }
        guard principal.role >= .admin else { throw .forbidden("only administrators may change other users") }
        guard user.authorizationRole <= principal.role else { throw .forbidden("cannot change a user whose role is above your own") }
    }

    /// Creates or refreshes the `USER_DB` person mirroring `user`.
    mutating func syncPerson(of user: User, context: OperationContext, changes: inout ChangeSet) {
        let key = PersonSourceKey(source: .userDB, sourceId: user.id)
        let existing = personIdBySource[key].flatMap { persons[$0] }
        var person = existing
            ?? Person(
                id: context.ids.make(), accountId: user.accountId, personSource: .userDB, sourceId: user.id, personType: .agent,
                authorizationRole: user.authorizationRole, creationTimestamp: context.now, modificationTimestamp: context.now
            )
        person.personType = user.authorizationRole.isAgentRole ? .agent : .visitor
        person.authorizationRole = user.authorizationRole
        person.username = user.username
        person.firstName = user.firstName
        person.lastName = user.lastName
        person.displayName = user.effectiveDisplayName
        person.email = user.email
        person.phone = user.phone
        person.teamId = user.teamId
        person.modificationTimestamp = context.now
        storePerson(person)
        changes.put(person)
        emitEntity(existing == nil ? .create : .update, .person(person), context: context, changes: &changes)
    }

    /// The person mirroring a user.
    public func person(ofUser user: User) -> Person? {
        personIdBySource[PersonSourceKey(source: .userDB, sourceId: user.id)].flatMap { persons[$0] }
    }

    /// The id of ``person(ofUser:)``, found without copying the person (basic authentication asks it
    /// on every request).
    public func personId(ofUser user: User) -> String? {
        personIdBySource[PersonSourceKey(source: .userDB, sourceId: user.id)].flatMap { persons.contains($0) ? $0 : nil }
    }
}
