/// Operations of the declared kinds that go beyond the layer's create/read/update/delete/search:
/// deputies written per agent, label and rule look-ups, usage counts, the account's record retention.
extension AccountState {
    /// The person labels whose scope (`scope::value`) is `scope`.
    public func personLabels(scope: String, for principal: Principal) throws(CollabError) -> [PersonLabel] {
        _ = try callerAccountId(principal)
        try Limits.check(scope, field: "scope", max: 250, required: true)
        let labels = declared.table(PersonLabel.self)
        return labels.ids("SCOPE", scope).compactMap { labels[$0] }.sorted { ($0.name ?? "", $0.id) < ($1.name ?? "", $1.id) }
    }

    /// The visibility rules that select agents or visitors by the label `name`.
    public func personVisibilityRules(usingLabel name: String, for principal: Principal) throws(CollabError) -> [PersonVisibilityRule] {
        _ = try callerAccountId(principal)
        try Limits.check(name, field: "labelName", max: 250, required: true)
        let rules = declared.table(PersonVisibilityRule.self)
        return rules.ids("USED_LABEL_NAME", name).compactMap { rules[$0] }.sorted { $0.id < $1.id }
    }

    /// How many entities of a kind (canned-response usages) pass `filters`: without filters, for a kind
    /// that hides none from its readers, the table's count; else the matches among the candidates an
    /// index gives, as a search finds them.
    public func countEntities<E: DeclaredEntity>(_ type: E.Type, _ filters: [SearchFilter], for principal: Principal) throws(CollabError) -> Int {
        _ = try callerAccountId(principal)
        let table = declared.table(E.self)
        if filters.isEmpty, E.declaration.rules.hidesNothing { return table.count }
        return try table.count(filters) { E.declaration.rules.visible($0, principal, self) }
    }

    /// The deputies of the user `agentUserId` (an index lookup).
    public func deputyRelationships(ofAgent agentUserId: String) -> [DeputyRelationship] {
        let table = declared.table(DeputyRelationship.self)
        return table.ids("AGENT_USER_ID", agentUserId).compactMap { table[$0] }.sorted { $0.id < $1.id }
    }

    /// One deputy of `writeAgentDeputies`: an agent or a team, at an escalation level.
    public struct DeputyDefinition: Sendable {
        public var type: String?
        public var id: String?
        public var level: String

        public init(type: String?, id: String?, level: String) {
            self.type = type
            self.id = id
            self.level = level
        }
    }

    /// Replaces every deputy of an agent with `deputies` (the vendor's batch write).
    /// - Throws: `badRequest` for an unknown agent or deputy; nothing changes then.
    public mutating func writeAgentDeputies(
        agentUserId: String?, _ deputies: [DeputyDefinition], for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        let accountId = try callerAccountId(principal)
        guard let agentUserId, users[agentUserId] != nil else { throw .badRequest("agentUserId must name a user of this account") }
        guard deputies.count <= 100 else { throw .badRequest("an agent has at most 100 deputies") }
        var replacements: [DeputyRelationship] = []
        for (position, deputy) in deputies.enumerated() {
            let relationship = DeputyRelationship(
                id: context.ids.make(), accountId: accountId, creationTimestamp: context.now, modificationTimestamp: context.now, version: 1,
                agentUserId: agentUserId, deputyType: deputy.type ?? "AGENT", deputyId: deputy.id, escalationLevel: deputy.level
            )
            do { try relationship.check(in: self) } catch { throw .badRequest("deputies[\(position)]: \(error.message)") }
            replacements.append(relationship)
        }
        for old in deputyRelationships(ofAgent: agentUserId) { removeEntity(old, by: principal, context: context, changes: &changes) }
        for relationship in replacements {
            putEntity(relationship, action: .create, previous: nil, by: principal, context: context, changes: &changes)
        }
    }

    /// The account's record retention (the defaults until an admin sets it).
    public func recordRetention(for principal: Principal) throws(CollabError) -> RecordRetention {
        let accountId = try callerAccountId(principal)
        return declared.table(RecordRetention.self)[accountId] ?? .defaults(accountId: accountId)
    }

    /// Replaces the account's record retention; intervals left out keep their current value.
    public mutating func updateRecordRetention(
        _ draft: RecordRetention, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> RecordRetention {
        let current = try recordRetention(for: principal)
        if !draft.accountId.isEmpty, draft.accountId != accountId { throw .notFound("Account", draft.accountId) }
        var retention = current
        retention.retentionIntervalConversationSeconds = draft.retentionIntervalConversationSeconds ?? current.retentionIntervalConversationSeconds
        retention.retentionIntervalPresenceSeconds = draft.retentionIntervalPresenceSeconds ?? current.retentionIntervalPresenceSeconds
        retention.retentionIntervalWebhookDeliveryLogSeconds =
            draft.retentionIntervalWebhookDeliveryLogSeconds ?? current.retentionIntervalWebhookDeliveryLogSeconds
        retention.retentionIntervalAuditLogSeconds = draft.retentionIntervalAuditLogSeconds ?? current.retentionIntervalAuditLogSeconds
        try RecordRetention.declaration.rules.validate(retention, principal, self)
        guard retention != current else { return current }
        let stored = declared.table(RecordRetention.self)[accountId]
        if stored == nil { retention.creationTimestamp = context.now }
        retention.modificationTimestamp = context.now
        putEntity(retention, action: stored == nil ? .create : .update, previous: stored, by: principal, context: context, changes: &changes)
        return retention
    }
}

extension AccountState {
    /// The persons who stand in for the user `userId`: AGENT deputies' persons, and the users of TEAM
    /// deputies (but the agent), each once; with `level`, only the deputies at that escalation level.
    /// The relationships and a team's users come from indexes.
    public func deputyPersons(ofUser userId: String, level: String? = nil) -> [Person] {
        let relationships = deputyRelationships(ofAgent: userId).filter { level == nil || $0.escalationLevel == level }
        guard !relationships.isEmpty else { return [] }
        var userIds: [String] = []
        for relationship in relationships {
            guard let deputyId = relationship.deputyId else { continue }
            if relationship.deputyType == "TEAM" {
                userIds += users.ids(Indexes.userByTeam, deputyId).filter { $0 != userId }.sorted()
            } else {
                userIds.append(deputyId)
            }
        }
        var seen = Set<String>()
        return userIds.filter { seen.insert($0).inserted }.compactMap { id in
            personIdBySource[PersonSourceKey(source: .userDB, sourceId: id)].flatMap { persons[$0] }
        }
    }
}
