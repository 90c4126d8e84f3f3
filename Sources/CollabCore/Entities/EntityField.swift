/// A searchable field of a declared entity: the vendor's `E…SearchFilterField` / `E…OrderByField`
/// name, the operator family its filter schema allows, how to read it, and its index.
public struct EntityField<Entity>: Sendable {
    /// The operator family of the field's filter schema.
    public typealias Kind = SearchFieldKind

    /// How searches on the field find their candidates.
    public enum Index: Sendable, Equatable {
        /// Filters on the field check every entity of the kind in the account.
        case none
        /// Exact values (ids, foreign keys, names): EQUALS and IN cost what they return.
        case hashed
        /// Ordered values (timestamps): EQUALS, IN and ranges cost what they return.
        case ordered
    }

    public var name: String
    public var kind: Kind
    public var index: Index
    /// Whether the vendor's `…SearchFilter` has the field (some fields only order).
    public var filterable: Bool
    /// Whether searches name the field at all (filter or order); `false` for a field only the layer's
    /// own look-ups use (``list(_:_:)``).
    public var searchable = true
    /// Whether the kind also keeps its entities in the order of this text field (folded, as searches
    /// compare text), so a page sorted by it walks instead of sorting the kind: names a list is shown by.
    public var keptInOrder = false
    /// The field's value in an entity.
    public var value: @Sendable (Entity) -> FieldValue
    /// The keys a hashed index files an entity under: its value's, or each item of a list field's.
    public var keys: @Sendable (Entity) -> [String]

    public init(_ name: String, _ kind: Kind, index: Index = .none, filterable: Bool = true, value: @escaping @Sendable (Entity) -> FieldValue) {
        self.name = name
        self.kind = kind
        self.index = index
        self.filterable = filterable
        self.value = value
        self.keys = { value($0).indexKey.map { [$0] } ?? [] }
    }

    /// An id or foreign-key field, indexed.
    public static func id(_ name: String, filterable: Bool = true, _ value: @escaping @Sendable (Entity) -> String?) -> Self {
        Self(name, .id, index: .hashed, filterable: filterable) { .of(value($0)) }
    }

    /// A name-like string field, indexed for exact matches and, with `ordered`, kept in order too (the
    /// name a list of the kind is sorted by; a field the vendor's order enum lacks gains nothing by it).
    public static func name(
        _ name: String, filterable: Bool = true, ordered: Bool = false, _ value: @escaping @Sendable (Entity) -> String?
    ) -> Self {
        var field = Self(name, .string, index: .hashed, filterable: filterable) { .of(value($0)) }
        field.keptInOrder = ordered
        return field
    }

    /// A free-text field (filters on it scan the kind).
    public static func text(_ name: String, filterable: Bool = true, _ value: @escaping @Sendable (Entity) -> String?) -> Self {
        Self(name, .string, filterable: filterable) { .of(value($0)) }
    }

    /// A timestamp field, in an ordered index.
    public static func timestamp(_ name: String, filterable: Bool = true, _ value: @escaping @Sendable (Entity) -> Int64?) -> Self {
        Self(name, .timestamp, index: .ordered, filterable: filterable) { value($0).map(FieldValue.int) ?? .null }
    }

    /// An enum field (`kind` .enumeration or .selection), in a hashed index.
    public static func enumeration(
        _ name: String, _ kind: Kind = .enumeration, filterable: Bool = true, _ value: @escaping @Sendable (Entity) -> String?
    ) -> Self {
        Self(name, kind, index: .hashed, filterable: filterable) { .of(value($0)) }
    }

    /// A boolean field (filters on it scan the kind).
    public static func boolean(_ name: String, _ value: @escaping @Sendable (Entity) -> Bool?) -> Self {
        Self(name, .boolean) { value($0).map(FieldValue.bool) ?? .null }
    }

    /// A list of exact values (a webhook registration's `events`), in a hashed index under each item, so
    /// ``EntityTable/ids(_:_:)`` finds the entities whose list holds a value. No search names it.
    public static func list(_ name: String, _ items: @escaping @Sendable (Entity) -> [String]) -> Self {
        var field = Self(name, .string, index: .hashed, filterable: false) { .of(items($0).joined(separator: ",")) }
        field.searchable = false
        field.keys = items
        return field
    }
}

extension EntityField where Entity: DeclaredEntity {
    /// The layer's own fields, named as most of the vendor's filters name them.
    public static var creationTimestamp: Self { .timestamp("CREATION_TIMESTAMP") { $0.creationTimestamp } }
    public static var modificationTimestamp: Self { .timestamp("MODIFICATION_TIMESTAMP") { $0.modificationTimestamp } }
}

extension FieldValue {
    /// The key a value is filed under in a hashed index (`nil`: not filed).
    var indexKey: String? {
        switch self {
        case .null: nil
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .string(let value): value
        }
    }
}

extension FilterOperator {
    /// The vendor's operator `type`.
    public var typeName: String {
        switch self {
        case .equals: "EQUALS"
        case .notEquals: "NOT_EQUALS"
        case .isIn: "IN"
        case .notIn: "NOT_IN"
        case .isNull: "IS_NULL"
        case .isNotNull: "IS_NOT_NULL"
        case .contains: "CONTAINS"
        case .startsWith: "STARTS_WITH"
        case .greaterThan: "GREATER_THAN"
        case .greaterThanOrNull: "GREATER_THAN_OR_NULL"
        case .lowerThan: "LOWER_THAN"
        case .lowerThanOrNull: "LOWER_THAN_OR_NULL"
        case .inRange: "IN_RANGE"
        case .notInRange: "NOT_IN_RANGE"
        case .allOf: "ALL_OF"
        case .anyOf: "ANY_OF"
        case .allEqual: "ALL_EQUAL"
        }
    }
}
