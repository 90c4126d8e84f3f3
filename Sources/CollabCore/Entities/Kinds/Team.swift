public import CollabWire

/// A team of users (`Team`): users belong to one through their `teamId`; teams form a tree through
/// `parentId`. Conversations and invitations addressed to a team wait in its queue, which its agents and
/// the agents of its parent teams see (the vendor's rule for team invitations).
public struct Team: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    /// An `Avatar` id or object, kept as sent.
    public var avatar: JSONValue?
    public var name: String?
    public var parentId: String?
    public var description: String?
    public var externallyManaged: Bool?
    public var translations: [String: JSONValue]?
    public var configuration: [String: String]?
    public var metadata: [String: String]?

    /// The deepest a team tree goes (a bound on every walk along `parentId`).
    public static let maxDepth = 32

    public static let declaration = EntityDeclaration<Team>(
        typeName: "Team", path: "teams", idParameter: "teamId", seedKey: "teams",
        operations: EntityOperations(
            create: .admin, read: .registeredUser, update: .supervisor, delete: .admin, search: .registeredUser, readMultiple: .registeredUser
        ),
        fields: [
            .creationTimestamp, .text("DESCRIPTION") { $0.description }, .modificationTimestamp, .name("NAME", ordered: true) { $0.name },
            .id("PARENT_ID") { $0.parentId },
        ],
        naturalKey: { $0.name },
        webhookEvent: "team",
        rules: EntityRules(
            validate: { team, _, state throws(CollabError) in try team.check(in: state) },
            writable: { team, principal, state throws(CollabError) in try team.checkWritable(by: principal, in: state) },
            deletable: { team, _, state throws(CollabError) in try state.checkTeamRemovable(team.id) }
        )
    )

    /// A team decides whose queue its agents work, so below ADMIN (the vendor lets a SUPERVISOR update
    /// teams) a caller changes only its own team and the teams below it, and never where a team hangs:
    /// like moving a user to another team, moving a team is an admin's.
    func checkWritable(by principal: Principal, in state: borrowing AccountState) throws(CollabError) {
        guard principal.role < .admin else { return }
        guard let personId = principal.personId, state.queueTeams(ofAgent: personId).contains(id) else {
            throw .forbidden("a supervisor changes only its own team and the teams below it")
        }
        let stored = state.declared.table(Team.self)[id]?.parentId
        guard (parentId ?? "").isEmpty ? (stored ?? "").isEmpty : parentId == stored else {
            throw .forbidden("parentId: only an ADMIN moves a team")
        }
    }

    func check(in state: borrowing AccountState) throws(CollabError) {
        try Limits.check(name, field: "name", max: 250, required: true)
        try Limits.check(description, field: "description", max: 500)
        try Limits.checkProperties(configuration, field: "configuration")
        try Limits.checkProperties(metadata, field: "metadata")
        guard let parentId, !parentId.isEmpty else { return }
        guard parentId != id else { throw .badRequest("parentId must not be the team itself") }
        guard state.declared.table(Team.self)[parentId] != nil else { throw .badRequest("parentId must name a team of this account") }
        let ancestors = state.teamAncestors(of: parentId)
        guard !ancestors.contains(id) else { throw .badRequest("parentId would make the team its own ancestor") }
        guard ancestors.count < Self.maxDepth else { throw .badRequest("parentId would nest teams deeper than \(Self.maxDepth) levels") }
    }
}

extension AccountState {
    /// `teamId` and the teams above it, nearest first (at most ``Team/maxDepth``; a missing parent ends the walk).
    public func teamAncestors(of teamId: String) -> [String] {
        let teams = declared.table(Team.self)
        var chain: [String] = []
        var next: String? = teamId
        while let id = next, teams[id] != nil, !chain.contains(id), chain.count < Team.maxDepth {
            chain.append(id)
            next = teams[id]?.parentId
        }
        return chain
    }

    /// The teams below `teamId`, at every depth, breadth first (found through the `PARENT_ID` index).
    public func teamDescendants(of teamId: String) -> [Team] {
        let teams = declared.table(Team.self)
        var result: [Team] = []
        var seen: Set<String> = [teamId]
        var level = [teamId]
        for _ in 0..<Team.maxDepth where !level.isEmpty {
            let children = level.flatMap { teams.ids("PARENT_ID", $0) }.filter { seen.insert($0).inserted }.sorted()
            result += children.compactMap { teams[$0] }
            level = children
        }
        return result
    }

    /// The teams whose queue an agent sees: its own team and every team below it.
    public func queueTeams(ofAgent personId: String) -> Set<String> {
        guard let teamId = persons[personId]?.teamId, declared.table(Team.self)[teamId] != nil else { return [] }
        return Set([teamId] + teamDescendants(of: teamId).map(\.id))
    }

    /// Refuses a `teamId` that names no team of the account (a user or person would belong to nobody's
    /// queue). An empty or absent id means no team.
    func checkTeamReference(_ teamId: String?) throws(CollabError) {
        guard let teamId, !teamId.isEmpty, declared.table(Team.self)[teamId] == nil else { return }
        throw .badRequest("teamId '\(teamId)' names no team of this account")
    }

    /// Refuses to delete a team something still depends on: child teams, users, or requests and
    /// invitations waiting for it (they would wait for nobody).
    func checkTeamRemovable(_ teamId: String) throws(CollabError) {
        guard declared.table(Team.self).ids("PARENT_ID", teamId).isEmpty else { throw .conflict("the team has child teams") }
        guard queue.count(of: ConversationRecipient(type: .team, id: teamId)) == 0,
            invitations.count(Indexes.invitationByOpenTeamTarget, teamId) == 0
        else { throw .conflict("conversations or invitations wait for the team") }
        guard users.count(Indexes.userByTeam, teamId) == 0 else { throw .conflict("users belong to the team") }
    }

    /// The persons of the users who see `teamId`'s queue: its users and those of the teams above it.
    func agentPersons(seeingTeam teamId: String) -> [String] {
        Set(teamAncestors(of: teamId)).flatMap { users.ids(Indexes.userByTeam, $0) }
            .compactMap { personIdBySource[PersonSourceKey(source: .userDB, sourceId: $0)] }.sorted()
    }

    /// The team of the calling user.
    /// - Throws: `notFound` when the caller is no user or belongs to no team of the account.
    public func teamOfCurrentUser(_ principal: Principal) throws(CollabError) -> Team {
        _ = try callerAccountId(principal)
        guard let userId = principal.userId, let teamId = users[userId]?.teamId, let team = declared.table(Team.self)[teamId] else {
            throw CollabError(.notFound, "the current user belongs to no team")
        }
        return team
    }

    /// The teams below the caller's team `teamId`, at every depth.
    public func childTeams(of teamId: String, for principal: Principal) throws(CollabError) -> [Team] {
        _ = try entity(Team.self, teamId, for: principal)
        return teamDescendants(of: teamId)
    }
}
