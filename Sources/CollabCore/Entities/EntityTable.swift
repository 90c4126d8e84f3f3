/// The entities of one declared kind in one account, with the indexes its declaration asks for, kept
/// in step on every write: hashed postings for ids, foreign keys, names, enums and list items, and a sorted list
/// per timestamp field, so a search on them costs what it returns rather than the size of the kind.
public struct EntityTable<Entity: DeclaredEntity>: Sendable {
    public private(set) var rows: [String: Entity] = [:]
    /// Field name → key → ids.
    private var hashed: [String: [String: Set<String>]] = [:]
    /// Field name → (value, id), sorted.
    private var ordered: [String: OrderedIndex] = [:]

    public init() {}

    public var count: Int { rows.count }

    public var isEmpty: Bool { rows.isEmpty }

    public subscript(id: String) -> Entity? { rows[id] }

    /// Stores `entity` (replacing the one with its id) and files it in every index.
    public mutating func put(_ entity: Entity) {
        let old = rows.updateValue(entity, forKey: entity.id)
        reindex(id: entity.id, old: old, new: entity)
    }

    /// Removes and returns the entity with `id`.
    @discardableResult
    public mutating func remove(_ id: String) -> Entity? {
        guard let old = rows.removeValue(forKey: id) else { return nil }
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
        ordered[field]?.entries.first?.id
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
            case .ordered:
                let before = old.map(field.value)
                let after = new.map(field.value)
                guard before != after else { continue }
                if case .int(let value)? = before { ordered[field.name]?.remove(value, id) }
                if case .int(let value)? = after { ordered[field.name, default: OrderedIndex()].insert(value, id) }
            }
        }
    }

    /// The ids an index can answer `filter` with, or `nil` when it cannot (the filter then checks
    /// every candidate).
    func indexed(_ filter: SearchFilter, field: EntityField<Entity>) -> [String]? {
        if field.name == "ID" {
            switch filter.op {
            case .equals(let value): return value.indexKey.flatMap { rows[$0] == nil ? nil : [$0] } ?? []
            case .isIn(let values): return Set(values.compactMap(\.indexKey)).filter { rows[$0] != nil }.sorted()
            default: return nil
            }
        }
        switch field.index {
        case .none: return nil
        case .hashed:
            switch filter.op {
            case .equals(let value): return value.indexKey.map { Array(ids(field.name, $0)) } ?? []
            case .isIn(let values): return Array(Set(values.compactMap(\.indexKey)).flatMap { ids(field.name, $0) })
            default: return nil
            }
        case .ordered:
            let index = ordered[field.name] ?? OrderedIndex()
            switch filter.op {
            case .equals(.int(let value)): return index.ids(from: value, through: value)
            case .isIn(let values):
                return Array(Set(values.flatMap { value -> [String] in
                    guard case .int(let number) = value else { return [] }
                    return index.ids(from: number, through: number)
                }))
            case .greaterThan(let bound): return bound == .max ? [] : index.ids(from: bound + 1, through: .max)
            case .lowerThan(let bound): return bound == .min ? [] : index.ids(from: .min, through: bound - 1)
            case .inRange(let from, let to): return from > to ? [] : index.ids(from: from, through: to)
            default: return nil
            }
        }
    }
}

extension EntityTable: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rows == rhs.rows }
}

/// `(value, id)` pairs sorted by value then id: a range of values is found by binary search.
struct OrderedIndex: Sendable {
    private(set) var entries: [(value: Int64, id: String)] = []

    /// The position of the first entry not before `(value, id)`.
    private func position(_ value: Int64, _ id: String) -> Int {
        entries.partitionIndex { !($0.value < value || ($0.value == value && $0.id < id)) }
    }

    mutating func insert(_ value: Int64, _ id: String) {
        entries.insert((value, id), at: position(value, id))
    }

    mutating func remove(_ value: Int64, _ id: String) {
        let at = position(value, id)
        if at < entries.count, entries[at].value == value, entries[at].id == id { entries.remove(at: at) }
    }

    /// The ids with a value in `from...through`.
    func ids(from: Int64, through: Int64) -> [String] {
        var at = position(from, "")
        var result: [String] = []
        while at < entries.count, entries[at].value <= through {
            result.append(entries[at].id)
            at += 1
        }
        return result
    }
}
