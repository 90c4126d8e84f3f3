/// The entities of one declared kind in one account, with the indexes its declaration asks for, kept
/// in step on every write: hashed postings for ids, foreign keys, names, enums and list items, and the
/// entities in order per timestamp field, per name a list is sorted by, and by id, so a search on them,
/// or a page in one of those orders, costs what it returns rather than the size of the kind.
public struct EntityTable<Entity: DeclaredEntity>: Sendable {
    public private(set) var rows: [String: Entity] = [:]
    /// Field name → key → ids.
    private var hashed: [String: [String: Set<String>]] = [:]
    /// Timestamp (or kept name) field name → every entity's place by that field (no value first), then id.
    private var ordered: [String: SortedList<OrderedRow>] = [:]
    /// Every entity's place by id alone (the order of a search that names none).
    private var byId = SortedList<OrderedRow>()

    public init() {}

    public var count: Int { rows.count }

    public var isEmpty: Bool { rows.isEmpty }

    public subscript(id: String) -> Entity? { rows[id] }

    /// Stores `entity` (replacing the one with its id) and files it in every index.
    public mutating func put(_ entity: Entity) {
        let old = rows.updateValue(entity, forKey: entity.id)
        if old == nil { byId.insert(OrderedRow(key: nil, id: entity.id)) }
        reindex(id: entity.id, old: old, new: entity)
    }

    /// Removes and returns the entity with `id`.
    @discardableResult
    public mutating func remove(_ id: String) -> Entity? {
        guard let old = rows.removeValue(forKey: id) else { return nil }
        byId.remove(OrderedRow(key: nil, id: id))
        reindex(id: id, old: old, new: nil)
        return old
    }

    /// The ids filed under `key` in the hashed index of `field`.
    public func ids(_ field: String, _ key: String) -> Set<String> {
        hashed[field]?[key] ?? []
    }

    /// The id of the entity with the smallest value of the ordered `field` (the oldest, for a
    /// creation timestamp).
    public func first(byOrdered field: String) -> String? {
        var rows = walk(field, bounds: OrderBounds(lower: .min, upper: nil), descending: false)
        return rows?.next()?.id
    }

    /// The entities in the order of `field` (a timestamp or kept name field; `ID`: by id alone) within
    /// `bounds`, ascending or descending, ties by id; `nil` when the kind keeps no such order.
    func walk(_ field: String, bounds: OrderBounds, descending: Bool) -> OrderedWalk? {
        let list: SortedList<OrderedRow>
        if field == "ID" {
            list = byId
        } else if let kept = ordered[field] {
            list = kept
        } else if Entity.declaration.fields.contains(where: { $0.name == field && ($0.index == .ordered || $0.keptInOrder) }) {
            list = SortedList()
        } else {
            return nil
        }
        return OrderedWalk(list, bounds: bounds, descending: descending, byIdAlone: field == "ID")
    }

    private mutating func reindex(id: String, old: Entity?, new: Entity?) {
        for field in Entity.declaration.fields {
            switch field.index {
            case .none: continue
            case .hashed:
                let before = old.map(field.keys) ?? []
                let after = new.map(field.keys) ?? []
                guard before != after else { continue }
                for key in Set(before).subtracting(after) {
                    hashed[field.name]?[key]?.remove(id)
                    if hashed[field.name]?[key]?.isEmpty == true { hashed[field.name]?[key] = nil }
                }
                for key in Set(after).subtracting(before) { hashed[field.name, default: [:]][key, default: []].insert(id) }
                if field.keptInOrder { reorder(field, id: id, old: old, new: new) }
            case .ordered:
                reorder(field, id: id, old: old, new: new)
            }
        }
    }

    /// Moves the entity with `id` in the order of `field`.
    private mutating func reorder(_ field: EntityField<Entity>, id: String, old: Entity?, new: Entity?) {
        let before = old.map { OrderedRow(key: Self.orderKey(field.value($0)), id: id) }
        let after = new.map { OrderedRow(key: Self.orderKey(field.value($0)), id: id) }
        ordered[field.name, default: SortedList()].replace(before, with: after)
    }

    /// A field's value as an order key: a timestamp's number, or a name folded as searches compare text
    /// (`nil`: none).
    private static func orderKey(_ value: FieldValue) -> OrderKey? {
        switch value {
        case .int(let number): .int(number)
        case .string(let text): .text(text)
        case .null, .bool: nil
        }
    }

    /// The ids an index can answer `filter` with, or `nil` when it cannot (the filter then checks
    /// every candidate). A range reads at most `cap` ids (then the answer is a part of the ids).
    func indexed(_ filter: SearchFilter, field: EntityField<Entity>, upTo cap: Int? = nil) -> Set<String>? {
        if field.name == "ID" {
            switch filter.op {
            case .equals(let value): return value.indexKey.flatMap { rows[$0] == nil ? nil : [$0] } ?? []
            case .isIn(let values): return Set(values.compactMap(\.indexKey)).filter { rows[$0] != nil }
            default: return nil
            }
        }
        switch field.index {
        case .none: return nil
        case .hashed:
            switch filter.op {
            // One key's list is the index's own set (shared, not copied).
            case .equals(let value): return value.indexKey.map { ids(field.name, $0) } ?? []
            case .isIn(let values): return Set(Set(values.compactMap(\.indexKey)).flatMap { ids(field.name, $0) })
            default: return nil
            }
        case .ordered:
            func within(_ bounds: OrderBounds) -> Set<String> {
                Set(walk(field.name, bounds: bounds, descending: false).map { $0.prefix(cap ?? .max).lazy.map(\.id) } ?? [])
            }
            switch filter.op {
            case .isIn(let values):
                return Set(values.flatMap { value -> Set<String> in
                    guard case .int(let number) = value else { return [] }
                    return within(OrderBounds(lower: number, upper: number))
                })
            case .equals(.int), .greaterThan, .lowerThan, .inRange: return within(OrderBounds.of([filter], field: field.name))
            default: return nil
            }
        }
    }
}

extension EntityTable: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rows == rhs.rows }
}
