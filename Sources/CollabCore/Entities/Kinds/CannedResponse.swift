public import CollabWire

/// A predefined chat answer (`CannedResponse`), owned by the account, a team or one user.
///
/// Scopes, as the vendor's policy applies them to the caller: an ACCOUNT response (its owner is the
/// account) is seen by everyone in the account and changed by admins; a TEAM response by the team's
/// members and supervisors and up, changed by supervisors and up; a USER (personal) response only by its
/// owner, and by admins who manage the account. A response without an owner is the caller's own.
public struct CannedResponse: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var ownerId: String?
    public var ownerType: String?
    /// Kept as the client sent them (`Placeholder` objects).
    public var placeholders: [JSONValue]?
    public var title: String?
    public var text: String?
    public var language: String?

    public static let scopes = ["ACCOUNT", "TEAM", "USER"]

    public static let declaration = EntityDeclaration<CannedResponse>(
        typeName: "CannedResponse", path: "cannedresponses", idParameter: "cannedResponseId", seedKey: "cannedResponses",
        operations: .standard(.registeredUser),
        fields: [
            .creationTimestamp, .modificationTimestamp, .text("TEXT") { $0.text }, .name("TITLE", ordered: true) { $0.title },
            .id("OWNER_ID") { $0.ownerId }, .enumeration("OWNER_TYPE") { $0.ownerType },
            .text("KEY", filterable: false) { $0.title },
        ],
        naturalKey: { [$0.ownerType, $0.ownerId, $0.title].map { $0 ?? "" }.joined(separator: "/") },
        rules: EntityRules(
            validate: { response, _, _ throws(CollabError) in
                try Limits.check(response.title, field: "title", max: 250, required: true)
                try Limits.check(response.language, field: "language", max: 35)
                try Limits.check(response.ownerType, field: "ownerType", oneOf: scopes, required: true)
                try Limits.check(response.ownerId, field: "ownerId", max: Limits.nameLength, required: true)
            },
            visible: { response, principal, state in response.isVisible(to: principal, in: state) },
            writable: { response, principal, _ throws(CollabError) in try response.checkWritable(by: principal) },
            complete: { response, principal in
                if response.ownerType == nil { response.ownerType = "USER" }
                if response.ownerId == nil || response.ownerId?.isEmpty == true {
                    response.ownerId = response.ownerType == "ACCOUNT" ? response.accountId : response.ownerType == "USER" ? principal.userId : nil
                }
            }
        )
    )

    func isVisible(to principal: Principal, in state: borrowing AccountState) -> Bool {
        switch ownerType {
        case "ACCOUNT": return true
        case "TEAM":
            if principal.role >= .supervisor { return true }
            guard let userId = principal.userId, let teamId = state.users[userId]?.teamId else { return false }
            return teamId == ownerId
        default: return ownerId == principal.userId || principal.role >= .admin
        }
    }

    func checkWritable(by principal: Principal) throws(CollabError) {
        switch ownerType {
        case "ACCOUNT": try principal.require(.admin)
        case "TEAM": try principal.require(.supervisor)
        default:
            guard ownerId == principal.userId || principal.role >= .admin else {
                throw .forbidden("a personal canned response belongs to its owner")
            }
        }
    }
}

/// A record that a canned response was used in a message (`CannedResponseUsage`).
public struct CannedResponseUsage: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var cannedResponseId: String?
    public var personId: String?
    public var messageId: String?
    public var conversationId: String?

    public static let declaration = EntityDeclaration<CannedResponseUsage>(
        typeName: "CannedResponseUsage", path: "cannedresponses/usage", idParameter: "cannedResponseUsageId", seedKey: "cannedResponseUsages",
        operations: EntityOperations(search: .registeredUser),
        fields: [
            .id("CANNED_RESPONSE_ID") { $0.cannedResponseId }, .id("CONVERSATION_ID") { $0.conversationId }, .creationTimestamp,
            .id("MESSAGE_ID") { $0.messageId }, .id("PERSON_ID") { $0.personId },
        ],
        audited: false, versioned: false,
        rules: EntityRules(validate: { usage, _, state throws(CollabError) in
            guard let responseId = usage.cannedResponseId, state.declared.table(CannedResponse.self)[responseId] != nil else {
                throw .badRequest("cannedResponseId must name a canned response of this account")
            }
        })
    )
}
