import CollabWire

/// An entity the entity layer keeps: a plain vendor entity that joins by declaring itself
/// (see ``EntityDeclaration``) instead of being wired by hand into storage, replication, snapshots,
/// seeds, search and the Web API.
///
/// The record is the vendor's wire object without its `$_type`: its stored JSON and its Web API JSON
/// are the same, so a conforming type names its properties as the vendor's schema does. The layer owns
/// the fields below; whatever a client sends for them is replaced.
public protocol DeclaredEntity: Codable, Sendable, Equatable {
    /// How the layer stores, indexes, searches, serves and announces the entity.
    static var declaration: EntityDeclaration<Self> { get }
    /// Unique among the entities of its kind (made by the layer on create).
    var id: String { get set }
    /// The account the entity belongs to (the caller's, set by the layer).
    var accountId: String { get set }
    /// Set by the layer on create.
    var creationTimestamp: Int64 { get set }
    /// Set by the layer on each write; `nil` for kinds whose vendor schema has none.
    var modificationTimestamp: Int64? { get set }
    /// Incremented by the layer on each update, which must name the current one; `nil` for kinds whose
    /// vendor schema has none.
    var version: Int64? { get set }
}

/// The Web API operations of a declared entity, each with the role the vendor's spec gives it
/// (`x-required-role`).
public struct EntityOperations: Sendable, Equatable {
    public var create: AuthorizationRole? = nil
    public var read: AuthorizationRole? = nil
    public var update: AuthorizationRole? = nil
    public var delete: AuthorizationRole? = nil
    public var search: AuthorizationRole? = nil
    public var readMultiple: AuthorizationRole? = nil
    /// `GET …/getByName?name=` on the declaration's unique name.
    public var getByName: AuthorizationRole? = nil
    /// `POST …/getByNames` with a list of unique names.
    public var getByNames: AuthorizationRole? = nil
}

extension EntityOperations {
    /// create, read, update, delete and readMultiple with `role`; search with `search` (else `role`).
    public static func standard(_ role: AuthorizationRole, search: AuthorizationRole? = nil, getByNames: AuthorizationRole? = nil) -> Self {
        Self(create: role, read: role, update: role, delete: role, search: search ?? role, readMultiple: role, getByNames: getByNames)
    }
}

/// Everything the layer needs to know about a declared entity, in one place.
public struct EntityDeclaration<Entity: DeclaredEntity>: Sendable {
    /// The vendor's schema name: the `$_type` of the wire object, the name in errors and audit entries,
    /// and the key of its stored records.
    public var typeName: String
    /// The Web API path segment (`cannedresponses`) and the name of its id parameter (`cannedResponseId`).
    public var path: String
    public var idParameter: String
    /// The vendor's `…Query`, `…Result` and `…List` schema names.
    public var queryType: String
    public var resultType: String
    public var listType: String
    /// The key of the entity's list under an account's `entities` in a seed file.
    public var seedKey: String
    /// The operations the Web API routes, with their roles.
    public var operations: EntityOperations
    /// The searchable fields (the vendor's `…SearchFilter` and `…OrderBy` fields), with their indexes.
    public var fields: [EntityField<Entity>]
    /// The field whose values are unique within an account (a second entity with the same value is a
    /// conflict), used by `getByName`, seeds and audit entries; `nil` when the kind has none.
    public var uniqueName: EntityField<Entity>?
    /// What identifies an entity in a seed file when the kind has no unique name (a seed applied again
    /// updates the entity instead of adding one); `nil`: the seed's `id`.
    public var naturalKey: (@Sendable (Entity) -> String?)?
    /// The vendor's webhook event for creations, updates and deletions (`person_label` →
    /// `PersonLabelModificationEvent`), if it has one.
    public var webhookEvent: String?
    /// Whether writes are recorded in the account's audit log.
    public var audited: Bool
    /// Whether the vendor's schema has `version` (updates must name the current one) and
    /// `modificationTimestamp`.
    public var versioned: Bool
    public var tracksModification: Bool
    /// The most entities of the kind one account holds.
    public var maxPerAccount: Int
    /// The rules the vendor gives the entity beyond its shape.
    public var rules: EntityRules<Entity>
    /// Secrets no API returns: removed from redacted snapshots and audit entries, renewed on import.
    public var secrets: EntitySecrets<Entity>?
    /// The `$_type` of one entity (one schema per variant for kinds with several).
    public var wireType: @Sendable (Entity) -> String
    /// Fields the layer keeps that the vendor's schema does not have, or that the Web API never shows
    /// (write-only secrets): left out of the wire object.
    public var storedOnly: Set<String>
    /// Fields the Web API shows only when the request's `expand` names them (the vendor's
    /// `configuration`, `metadata`, `text`): left out otherwise, shown empty when expanded but unset.
    public var expandable: Set<String>
    /// The store kind the entity's records had before the kind joined the layer (id: the entity's id,
    /// body: the entity's JSON): such records still load, and the entity's next write removes them.
    public var legacyKind: EntityKind?
    /// Values unique across every account (an API key's string): a write claims them in the server's
    /// ``Directory`` (one another account holds is a conflict) and releases those the entity no longer
    /// has; a delete releases them; a load registers them.
    public var globalKeys: (@Sendable (Entity) -> [Directory.Key])?
    /// What a caller whose role may list the kind but not read one (``EntityOperations/read``) sees of an
    /// entity: the vendor's custom actions are listed to agents, but their webhook's signing secret is
    /// only for the admins who may read them.
    public var shownBelowRead: (@Sendable (Entity) -> Entity)?
    /// What audit entries leave out of a kind whose Web API objects show its admins a secret that
    /// ``secrets`` does not name (a webhook's signing secret, an API key's string): an entry would keep
    /// it after it changed. `nil`: entries leave out the ``secrets`` alone.
    public var auditView: EntityAuditView<Entity>?
    /// Whether the kind's entities count against ``StoredRecordLimits/entityBytesPerAccount`` (all but
    /// the audit log, which keeps its own bound).
    public var bytesCounted: Bool

    public init(
        typeName: String, path: String, idParameter: String, queryType: String? = nil, resultType: String? = nil, listType: String? = nil,
        seedKey: String, operations: EntityOperations, fields: [EntityField<Entity>], uniqueName: EntityField<Entity>? = nil,
        naturalKey: (@Sendable (Entity) -> String?)? = nil, webhookEvent: String? = nil, audited: Bool = true, versioned: Bool = true,
        tracksModification: Bool = true, maxPerAccount: Int = 200_000, rules: EntityRules<Entity> = EntityRules(),
        secrets: EntitySecrets<Entity>? = nil, wireType: (@Sendable (Entity) -> String)? = nil, storedOnly: Set<String> = [],
        expandable: Set<String> = [], legacyKind: EntityKind? = nil, globalKeys: (@Sendable (Entity) -> [Directory.Key])? = nil,
        auditView: EntityAuditView<Entity>? = nil, bytesCounted: Bool = true
    ) {
        self.typeName = typeName
        self.path = path
        self.idParameter = idParameter
        self.queryType = queryType ?? typeName + "Query"
        self.resultType = resultType ?? typeName + "Result"
        self.listType = listType ?? typeName + "List"
        self.seedKey = seedKey
        self.operations = operations
        self.fields = fields
        self.uniqueName = uniqueName
        self.naturalKey = naturalKey
        self.webhookEvent = webhookEvent
        self.audited = audited
        self.versioned = versioned
        self.tracksModification = tracksModification
        self.maxPerAccount = maxPerAccount
        self.rules = rules
        self.secrets = secrets
        self.wireType = wireType ?? { _ in typeName }
        self.storedOnly = storedOnly
        self.expandable = expandable
        self.legacyKind = legacyKind
        self.globalKeys = globalKeys
        self.auditView = auditView
        self.bytesCounted = bytesCounted
    }

    /// `entity` as `role` may see it: for a role below the one that reads the kind (its read operation's,
    /// else its search's), through ``shownBelowRead``, else without its ``secrets``. The Web API's lists
    /// and the control API's entity inspector both show entities through it.
    public func shown(_ entity: Entity, to role: AuthorizationRole) -> Entity {
        guard role < operations.read ?? operations.search ?? .superAdmin, let hide = shownBelowRead ?? secrets?.redact else { return entity }
        return hide(entity)
    }

    /// `entity` as its audit entries hold it: without its ``secrets`` and what ``auditView`` leaves out.
    public func audited(_ entity: Entity) -> Entity {
        let redacted = secrets?.redact(entity) ?? entity
        return auditView?.redact(redacted) ?? redacted
    }

    /// The `entityName` of `entity`'s audit entries: ``auditView``'s name, else the ``uniqueName``.
    public func auditName(_ entity: Entity) -> String? {
        if let name = auditView?.name { return name(entity) }
        return uniqueName.flatMap { $0.value(entity).indexKey }
    }

    /// The field named `name` (the vendor's `E…SearchFilterField`).
    public func field(_ name: String) -> EntityField<Entity>? {
        fields.first { $0.name == name }
    }
}

/// The vendor's rules for one kind, as functions of the entity, the caller and the account's state
/// (run under the account's lock).
public struct EntityRules<Entity: DeclaredEntity>: Sendable {
    public typealias Check = @Sendable (Entity, Principal, borrowing AccountState) throws(CollabError) -> Void
    /// Checks an entity about to be stored (shape, bounds, references); names the field at fault.
    public var validate: Check
    /// Whether the caller sees an entity (read, search, readMultiple); others are "not found".
    public var visible: @Sendable (Entity, Principal, borrowing AccountState) -> Bool
    /// Whether `visible` is the default, which hides nothing (a count may then take the table's own).
    public let hidesNothing: Bool
    /// Checks that the caller may create, change or delete an entity (its current state for an update
    /// or delete, then the new one for an update).
    public var writable: Check
    /// Fills what the vendor fills when a client leaves it out (before `validate`).
    public var complete: @Sendable (inout Entity, Principal) -> Void
    /// What a create or update through the Web API changes beyond the entity (run after it is stored,
    /// in the same operation).
    public var afterWrite: AfterWrite
    public typealias AfterWrite = @Sendable (Entity, Principal, inout AccountState, OperationContext, inout ChangeSet) -> Void
    /// Checks that an entity may go (nothing still depends on it), after `writable`.
    public var deletable: Check
    /// An update's draft with what it leaves out taken from the current entity (the vendor's partial
    /// updates, e.g. of fields the Web API shows only when expanded); by default the draft replaces all.
    public var merge: @Sendable (_ draft: Entity, _ current: Entity) -> Entity
    /// What a create fills in once the entity passed its checks, before its room is checked and it is
    /// stored: ids and secrets the layer does not make (an API key's string, the id of a bot's person).
    /// It changes nothing but the entity, so the room checked after it is the entity's stored size, and
    /// it checks the room of what ``afterCreate`` adds (a bot's person). The entity's global keys are
    /// claimed after it (it may make the key).
    public var prepareCreate: PrepareCreate
    public typealias PrepareCreate = @Sendable (inout Entity, Principal, borrowing AccountState, OperationContext) throws(CollabError) -> Void
    /// What a create adds beside the entity once it is stored (a bot's person), in the same operation:
    /// ``prepareCreate`` checked its room, so nothing is refused after the state changed.
    public var afterCreate: AfterWrite

    public init(
        validate: @escaping Check = { _, _, _ throws(CollabError) in },
        visible: (@Sendable (Entity, Principal, borrowing AccountState) -> Bool)? = nil,
        writable: @escaping Check = { _, _, _ throws(CollabError) in }, complete: @escaping @Sendable (inout Entity, Principal) -> Void = { _, _ in },
        afterWrite: @escaping AfterWrite = { _, _, _, _, _ in }, deletable: @escaping Check = { _, _, _ throws(CollabError) in },
        merge: @escaping @Sendable (_ draft: Entity, _ current: Entity) -> Entity = { draft, _ in draft },
        prepareCreate: @escaping PrepareCreate = { _, _, _, _ throws(CollabError) in }, afterCreate: @escaping AfterWrite = { _, _, _, _, _ in }
    ) {
        self.validate = validate
        self.visible = visible ?? { _, _, _ in true }
        self.hidesNothing = visible == nil
        self.writable = writable
        self.complete = complete
        self.afterWrite = afterWrite
        self.deletable = deletable
        self.merge = merge
        self.prepareCreate = prepareCreate
        self.afterCreate = afterCreate
    }
}

extension EntityRules {
    /// A ``merge`` for the vendor's partial updates: every field the draft leaves out keeps the current
    /// value, but the `replaced` fields (an update always names them: left out, they are cleared) and
    /// the `kept` ones (never the client's to change: always the current value).
    public static func keepingOmitted(replaced: Set<String> = [], kept: Set<String> = []) -> @Sendable (Entity, Entity) -> Entity {
        { (draft: Entity, current: Entity) -> Entity in
            guard case .object(let given) = EntityWire.object(draft), case .object(var merged) = EntityWire.object(current) else { return draft }
            for (field, value) in given where !kept.contains(field) { merged[field] = value }
            for field in replaced where given[field] == nil { merged[field] = nil }
            // Both sides are entities of the kind, so their fields always decode together.
            return EntityWire.entity(Entity.self, from: .object(merged)) ?? draft
        }
    }
}

/// How audit entries show a kind whose Web API objects carry a secret for the admins who read them.
public struct EntityAuditView<Entity: DeclaredEntity>: Sendable {
    /// The entity without that secret.
    public var redact: @Sendable (Entity) -> Entity
    /// The entries' `entityName`, for a kind whose unique name is the secret; `nil`: the unique name.
    public var name: (@Sendable (Entity) -> String?)?

    public init(redact: @escaping @Sendable (Entity) -> Entity, name: (@Sendable (Entity) -> String?)? = nil) {
        self.redact = redact
        self.name = name
    }
}

/// The secrets of a kind: how a redacted snapshot leaves them out and how an import renews them.
public struct EntitySecrets<Entity: DeclaredEntity>: Sendable {
    /// The entity without its secrets.
    public var redact: @Sendable (Entity) -> Entity
    /// The entity with redacted secrets issued anew (`makeSecret` gives a fresh one).
    public var renew: @Sendable (Entity, _ makeSecret: () -> String) -> Entity
    /// For kinds whose secrets the Web API never shows (``EntityDeclaration/storedOnly``): an update's
    /// draft with the secrets it leaves out taken from the current entity.
    public var keep: (@Sendable (_ draft: Entity, _ current: Entity) -> Entity)?
}
