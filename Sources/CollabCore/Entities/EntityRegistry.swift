/// Every declared entity kind. A new kind joins the layer by conforming to ``DeclaredEntity`` and being
/// listed here: storage, replication, snapshots, seeds, the inspector and the Web API routes find it
/// through this list.
public enum EntityRegistry {
    public static let kinds: [any DeclaredEntity.Type] = [
        NamedArea.self,
        DialogBot.self,
        WebhookRegistration.self,
        ApiKey.self,
        CannedResponse.self,
        CannedResponseUsage.self,
        CustomAction.self,
        PersonLabel.self,
        PersonVisibilityRule.self,
        DeputyRelationship.self,
        Domain.self,
        SuggestionSource.self,
        Avatar.self,
        RecordRetention.self,
        AuditChange.self,
        Team.self,
        ConversationTemplate.self,
        ExternalMessenger.self,
        ExternalMessengerContact.self,
    ]

    private static let byTypeName: [String: any DeclaredEntity.Type] = Dictionary(
        kinds.map { ($0.typeName, $0) }, uniquingKeysWith: { first, _ in first }
    )
    private static let bySeedKey: [String: any DeclaredEntity.Type] = Dictionary(
        kinds.map { ($0.seedKey, $0) }, uniquingKeysWith: { first, _ in first }
    )

    private static let byLegacyKind: [EntityKind: any DeclaredEntity.Type] = Dictionary(
        kinds.compactMap { type in type.legacyKind.map { ($0, type) } }, uniquingKeysWith: { first, _ in first }
    )

    /// The kind whose type name is `name`.
    public static func type(named name: String) -> (any DeclaredEntity.Type)? { byTypeName[name] }

    /// The kind a seed file lists under `key`.
    public static func type(seedKey key: String) -> (any DeclaredEntity.Type)? { bySeedKey[key] }

    /// The kind whose records the store kept as `kind` before it joined the layer.
    static func type(legacyKind kind: EntityKind) -> (any DeclaredEntity.Type)? { byLegacyKind[kind] }
}

extension DeclaredEntity {
    /// The kind's type name (reachable through an existential metatype).
    public static var typeName: String { declaration.typeName }
    /// The kind's seed key.
    public static var seedKey: String { declaration.seedKey }
    /// The store kind of the kind's records from before it joined the layer.
    static var legacyKind: EntityKind? { declaration.legacyKind }
}

extension EntityRegistry {
    /// A declared record of a redacted snapshot with its secrets issued anew, or `nil` when its kind
    /// has none (or the record names no declared kind: the import's load reports that).
    static func renewingSecrets(of record: StoredRecord, context: OperationContext) throws(CollabError) -> StoredRecord? {
        guard let key = try? DeclaredRecordKey(record.id), let type = type(named: key.typeName) else { return nil }
        return try renewingSecrets(type, record, context: context)
    }

    private static func renewingSecrets<E: DeclaredEntity>(
        _ type: E.Type, _ record: StoredRecord, context: OperationContext
    ) throws(CollabError) -> StoredRecord? {
        guard let secrets = E.declaration.secrets else { return nil }
        let entity: E
        do { entity = try RecordCoding.decode(DeclaredRecord<E>.self, from: record).entity } catch {
            throw .badRequest("the snapshot's \(record.id) does not decode: \(error)")
        }
        let renewed = secrets.renew(entity) { context.ids.makeSecret() }
        return renewed == entity ? nil : StoredRecord(encoding: DeclaredRecord(renewed))
    }
}
