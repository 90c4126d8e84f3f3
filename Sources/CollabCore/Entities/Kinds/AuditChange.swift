import Foundation
import CollabWire

/// One change an admin (or anyone) made through the Web API (`AuditChange`): what the entity layer's
/// writes and the admin writes of accounts, API keys, named areas and users record, searched with
/// `audit/search`. An account keeps its newest ``AuditChange/retained`` entries.
public struct AuditChange: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var interactionType: String?
    public var interactionName: String?
    public var userName: String?
    public var userId: String?
    public var userRole: String?
    public var userAnonymous: Bool?
    public var userVirtual: Bool?
    public var userPropagated: Bool?
    public var userImpersonationType: String?
    public var changeType: String?
    public var entityType: String?
    public var entityName: String?
    public var entityId: String?
    /// The entity's JSON before and after the change (its secrets left out).
    public var oldState: String?
    public var newState: String?
    public var ownerType: String?
    public var ownerId: String?
    public var globalChange: Bool?
    public var accountChange: Bool?

    /// How many entries an account keeps; a new one beyond it removes the oldest.
    public static let retained = 10_000

    /// The largest state an entry keeps, in bytes of JSON: a larger one is replaced by a note of its
    /// size, so the retained entries of an account hold at most about 320 MiB however large the
    /// entities they record (a 1 MiB entity updated 10,000 times would otherwise keep 20 GiB).
    public static let maxStateBytes = 16 * 1024

    public static let declaration = EntityDeclaration<AuditChange>(
        typeName: "AuditChange", path: "audit", idParameter: "auditChangeId", seedKey: "auditChanges",
        operations: EntityOperations(search: .admin),
        fields: [
            .boolean("ACCOUNT_CHANGE") { $0.accountChange }, .enumeration("AUTHORIZATION_ROLE") { $0.userRole },
            .enumeration("CHANGE_TYPE") { $0.changeType }, .creationTimestamp, .id("ENTITY_ID") { $0.entityId },
            .name("ENTITY_NAME") { $0.entityName }, .name("ENTITY_TYPE") { $0.entityType }, .boolean("GLOBAL_CHANGE") { $0.globalChange },
            .enumeration("IMPERSONATION_TYPE") { $0.userImpersonationType }, .name("INTERACTION_NAME") { $0.interactionName },
            .enumeration("INTERACTION_TYPE") { $0.interactionType }, .id("OWNER_ID") { $0.ownerId },
            .enumeration("OWNER_TYPE") { $0.ownerType }, .name("USERNAME") { $0.userName }, .id("USER_ID") { $0.userId },
        ],
        audited: false, versioned: false, tracksModification: false, bytesCounted: false
    )
}

/// A change to record in the audit log.
struct AuditedChange {
    var action: EntityChange.Action
    var entityType: String
    var entityId: String
    var entityName: String?
    var oldState: JSONValue?
    var newState: JSONValue?
}

extension AccountState {
    /// Records `change` as an ``AuditChange`` of this account, made by `principal` (the system when `nil`),
    /// removing the oldest entry beyond ``AuditChange/retained``.
    mutating func recordAudit(_ change: AuditedChange, by principal: Principal?, context: OperationContext, changes: inout ChangeSet) {
        let user = principal?.userId.flatMap { users[$0] }
        func text(_ state: JSONValue?) -> String? {
            guard let state, let data = try? RecordCoding.encoder.encode(state) else { return nil }
            guard data.count <= AuditChange.maxStateBytes else {
                return #"{"$_omitted":"larger than \#(AuditChange.maxStateBytes) bytes","bytes":\#(data.count)}"#
            }
            return String(decoding: data, as: UTF8.self)
        }
        let entry = AuditChange(
            id: context.ids.make(), accountId: accountId, creationTimestamp: context.now, modificationTimestamp: nil, version: nil,
            interactionType: "API",
            interactionName: "\(change.entityType).\(change.action.rawValue.lowercased())", userName: user?.username, userId: user?.id,
            userRole: principal?.role.rawValue, userAnonymous: principal.map { $0.method == .anonymous }, userVirtual: user?.virtualUser,
            userPropagated: false, changeType: change.action.rawValue, entityType: change.entityType, entityName: change.entityName,
            entityId: change.entityId, oldState: text(change.oldState), newState: text(change.newState), ownerType: "ACCOUNT", ownerId: accountId,
            globalChange: false, accountChange: true
        )
        let evicted: String? = declared.modify(AuditChange.self) { table in
            table.put(entry)
            guard table.count > AuditChange.retained, let oldest = table.first(byOrdered: "CREATION_TIMESTAMP") else { return nil }
            table.remove(oldest)
            return oldest
        }
        changes.put(DeclaredRecord(entry))
        if let evicted { changes.delete(.declared, DeclaredRecord<AuditChange>.recordId(evicted)) }
    }
}
