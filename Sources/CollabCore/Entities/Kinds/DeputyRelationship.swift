/// A deputy of an agent (`DeputyRelationship`): another agent, or a team, that receives the agent's
/// inbound requests (`push_notification.deputy_delegation`) at an escalation level.
public struct DeputyRelationship: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var agentUserId: String?
    public var deputyType: String?
    public var deputyId: String?
    public var escalationLevel: String?

    static let levels = ["ASSISTANTS", "LEVEL_1", "LEVEL_2", "LEVEL_3"]

    public static let declaration = EntityDeclaration<DeputyRelationship>(
        typeName: "DeputyRelationship", path: "deputyrelationships", idParameter: "deputyRelationshipId", seedKey: "deputyRelationships",
        operations: .standard(.registeredUser, search: .admin),
        fields: [
            .id("AGENT_USER_ID") { $0.agentUserId }, .creationTimestamp, .id("DEPUTY_ID") { $0.deputyId },
            .enumeration("DEPUTY_TYPE") { $0.deputyType }, .enumeration("ESCALATION_LEVEL") { $0.escalationLevel }, .modificationTimestamp,
        ],
        naturalKey: { [$0.agentUserId, $0.deputyType, $0.deputyId].map { $0 ?? "" }.joined(separator: "/") },
        webhookEvent: "deputy_relationship",
        rules: EntityRules(
            validate: { relationship, _, state throws(CollabError) in try relationship.check(in: state) },
            // An agent manages their own deputies; admins manage everyone's.
            visible: { relationship, principal, _ in principal.role >= .admin || relationship.agentUserId == principal.userId },
            writable: { relationship, principal, _ throws(CollabError) in
                guard principal.role >= .admin || relationship.agentUserId == principal.userId else {
                    throw .forbidden("only admins manage the deputies of another agent")
                }
            },
            complete: { relationship, principal in
                if relationship.agentUserId == nil { relationship.agentUserId = principal.userId }
                if relationship.deputyType == nil { relationship.deputyType = "AGENT" }
                if relationship.escalationLevel == nil { relationship.escalationLevel = "LEVEL_1" }
            }
        )
    )

    func check(in state: borrowing AccountState) throws(CollabError) {
        guard let agentUserId, state.users[agentUserId] != nil else { throw .badRequest("agentUserId must name a user of this account") }
        try Limits.check(deputyType, field: "deputyType", oneOf: ["AGENT", "TEAM"], required: true)
        try Limits.check(escalationLevel, field: "escalationLevel", oneOf: Self.levels, required: true)
        guard let deputyId, !deputyId.isEmpty, Limits.fits(deputyId, Limits.nameLength) else { throw .badRequest("deputyId is required") }
        if deputyType == "AGENT" {
            guard state.users[deputyId] != nil else { throw .badRequest("deputyId must name a user of this account") }
            guard deputyId != agentUserId else { throw .badRequest("deputyId must not be the agent itself") }
        }
    }
}
