import Foundation

/// The declared entities of one account: one ``EntityTable`` per kind, keyed by the kind's type name.
///
/// Tables are kept type-erased so ``AccountState`` has one field for every declared kind; storage,
/// replication and snapshots reach them through ``EntityRegistry`` by the type name in a record's key.
public struct EntityTables: Sendable {
    private var tables: [String: any AnyEntityTable] = [:]
    /// Record id → the bytes of JSON the entity is stored as, for the kinds whose bytes count.
    private var sizes: [String: Int] = [:]
    /// What the account's entities count for against ``StoredRecordLimits/entityBytesPerAccount``.
    public private(set) var storedBytes = 0

    public init() {}

    /// The table of `type` (empty when the account holds none).
    public func table<E: DeclaredEntity>(_ type: E.Type) -> EntityTable<E> {
        tables[E.declaration.typeName] as? EntityTable<E> ?? EntityTable()
    }

    /// Changes the table of `type` in place.
    @discardableResult
    public mutating func modify<E: DeclaredEntity, Result, Failure: Error>(
        _ type: E.Type, _ body: (inout EntityTable<E>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // Taken out of the dictionary first, so the table's storage is uniquely referenced and a write
        // does not copy the kind's rows.
        var table = take(E.self)
        defer { tables[E.declaration.typeName] = table }
        return try body(&table)
    }

    private mutating func take<E: DeclaredEntity>(_ type: E.Type) -> EntityTable<E> {
        guard let existing = tables.removeValue(forKey: E.declaration.typeName) else { return EntityTable() }
        return existing as? EntityTable<E> ?? EntityTable()
    }

    /// Loads a stored record of a declared kind (a start, a snapshot, another replica's put).
    /// - Throws: When the record names no declared kind or does not decode.
    /// - Returns: The entity's owning account, as the entity says.
    @discardableResult
    mutating func load(_ record: StoredRecord) throws -> String? {
        let key = try DeclaredRecordKey(record.id)
        guard let type = EntityRegistry.type(named: key.typeName) else { throw DeclaredRecordKey.Failure.unknownKind(key.typeName) }
        return try load(type, record)
    }

    /// Loads a record a kind was stored as before it joined the layer (``EntityDeclaration/legacyKind``):
    /// its body is the entity's JSON, as a declared record's is.
    /// - Throws: When no declared kind had the record's store kind or the record does not decode.
    @discardableResult
    mutating func load(legacy record: StoredRecord) throws -> String? {
        guard let type = EntityRegistry.type(legacyKind: record.kind) else { throw DeclaredRecordKey.Failure.unknownKind(record.kind.rawValue) }
        return try load(type, record)
    }

    private mutating func load<E: DeclaredEntity>(_ type: E.Type, _ stored: StoredRecord) throws -> String? {
        let record = try RecordCoding.decode(DeclaredRecord<E>.self, from: stored)
        modify(E.self) { table in table.put(record.entity) }
        count(E.self, record.id, bytes: stored.body.count)
        return record.storageAccountId
    }

    /// Stores `entity`, counting its bytes (`size`: as ``storedSize(of:)`` gave them, when the caller
    /// already knows them).
    mutating func put<E: DeclaredEntity>(_ entity: E, size: Int? = nil) {
        modify(E.self) { $0.put(entity) }
        if E.declaration.bytesCounted { count(E.self, DeclaredRecord<E>.recordId(entity.id), bytes: size ?? Self.storedSize(of: entity)) }
    }

    /// The bytes of JSON `entity` is stored as.
    static func storedSize<E: DeclaredEntity>(of entity: E) -> Int {
        (try? RecordCoding.encoder.encode(DeclaredRecord(entity)).count) ?? 0
    }

    /// What the stored entity `id` of `type` counts for now (0: none, or a kind that does not count).
    func storedSize<E: DeclaredEntity>(of type: E.Type, id: String) -> Int {
        sizes[DeclaredRecord<E>.recordId(id)] ?? 0
    }

    private mutating func count<E: DeclaredEntity>(_ type: E.Type, _ recordId: String, bytes: Int?) {
        guard E.declaration.bytesCounted else { return }
        storedBytes -= sizes[recordId] ?? 0
        sizes[recordId] = bytes
        storedBytes += bytes ?? 0
    }

    /// Removes the entity a record key names (another replica's delete); unknown keys are nothing.
    mutating func remove(recordId: String) {
        guard let key = try? DeclaredRecordKey(recordId), let type = EntityRegistry.type(named: key.typeName) else { return }
        remove(type, key.id)
    }

    /// Removes the entity `id` of `type`, and what it counted for.
    mutating func remove<E: DeclaredEntity>(_ type: E.Type, _ id: String) {
        modify(E.self) { table in table.remove(id) }
        count(E.self, DeclaredRecord<E>.recordId(id), bytes: nil)
    }

    /// Every entity as the store keeps it, by kind then id.
    public var storedEntities: [any StorableEntity] {
        tables.keys.sorted().flatMap { tables[$0]?.storedEntities ?? [] }
    }

    /// The ``EntityDeclaration/globalKeys`` of every entity the account holds.
    var globalKeys: [Directory.Key] {
        tables.values.flatMap { $0.globalKeys }
    }

    /// The global keys of the entity a declared record key names (none when it names no entity).
    func globalKeys(ofRecord recordId: String) -> [Directory.Key] {
        guard let key = try? DeclaredRecordKey(recordId) else { return [] }
        return tables[key.typeName]?.globalKeys(of: key.id) ?? []
    }

    /// How many entities of each kind the account holds.
    public var counts: [String: Int] {
        tables.compactMapValues { $0.count == 0 ? nil : $0.count }
    }
}

/// What ``EntityTables`` needs of a table without knowing its kind.
protocol AnyEntityTable: Sendable {
    var count: Int { get }
    var storedEntities: [any StorableEntity] { get }
    var globalKeys: [Directory.Key] { get }
    func globalKeys(of id: String) -> [Directory.Key]
}

extension EntityTable: AnyEntityTable {
    var storedEntities: [any StorableEntity] {
        rows.values.sorted { $0.id < $1.id }.map { DeclaredRecord($0) }
    }

    var globalKeys: [Directory.Key] {
        guard let keys = Entity.declaration.globalKeys else { return [] }
        return rows.values.flatMap(keys)
    }

    func globalKeys(of id: String) -> [Directory.Key] {
        guard let keys = Entity.declaration.globalKeys, let entity = rows[id] else { return [] }
        return keys(entity)
    }
}

/// A declared entity as the store keeps it: kind ``EntityKind/declared``, id `TypeName/id`, the body the
/// entity's own JSON (its wire object without `$_type`).
public struct DeclaredRecord<Entity: DeclaredEntity>: StorableEntity, SecretBearingEntity {
    public static var kind: EntityKind { .declared }
    public var entity: Entity

    public init(_ entity: Entity) { self.entity = entity }

    public var id: String { DeclaredRecordKey.make(Entity.declaration.typeName, entity.id) }
    public var storageAccountId: String? { entity.accountId }

    public init(from decoder: any Decoder) throws { entity = try Entity(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try entity.encode(to: encoder) }

    /// Without the secrets the declaration names.
    public var redactingSecrets: DeclaredRecord? {
        Entity.declaration.secrets.map { DeclaredRecord($0.redact(entity)) } ?? self
    }

    /// The store's id of the entity `id` of this kind.
    public static func recordId(_ id: String) -> String { DeclaredRecordKey.make(Entity.declaration.typeName, id) }
}

/// `TypeName/id`: the key of a declared entity's record (ids are unique per kind, not across kinds).
struct DeclaredRecordKey {
    enum Failure: Error, CustomStringConvertible {
        case malformed(String)
        case unknownKind(String)

        var description: String {
            switch self {
            case .malformed(let id): "the declared record id '\(id)' is not TypeName/id"
            case .unknownKind(let name): "no declared entity kind is named '\(name)'"
            }
        }
    }

    var typeName: String
    var id: String

    init(_ recordId: String) throws {
        guard let slash = recordId.firstIndex(of: "/") else { throw Failure.malformed(recordId) }
        typeName = String(recordId[..<slash])
        id = String(recordId[recordId.index(after: slash)...])
    }

    static func make(_ typeName: String, _ id: String) -> String { typeName + "/" + id }
}
