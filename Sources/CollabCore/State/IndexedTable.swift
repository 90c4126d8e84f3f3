/// A secondary index of an ``IndexedTable``: the keys a row is filed under.
public struct TableIndex<Entity: Sendable>: Sendable {
    /// Position among the table's indexes.
    let slot: Int
    /// The keys `row` is found under (none: not in this index).
    let keys: @Sendable (Entity) -> [String]

    /// - Parameters:
    ///   - slot: The index's position in the table's `indexes` list.
    ///   - keys: The keys a row is filed under.
    public init(_ slot: Int, keys: @escaping @Sendable (Entity) -> [String]) {
        self.slot = slot
        self.keys = keys
    }
}

/// Rows by id, with secondary indexes and orders kept in step on every write, so lookups by another
/// field, and pages in an order, cost what they return rather than the size of the table.
///
/// It reads like a dictionary (`table[id]`, `table[id] = row`, `values`, `count`), which keeps the
/// operations on ``AccountState`` plain while the indexes take care of themselves.
public struct IndexedTable<Entity: Sendable>: Sendable {
    private var rows: [String: Entity] = [:]
    private let indexes: [TableIndex<Entity>]
    /// Per index: key → ids of the rows filed under it.
    private var postings: [[String: Set<String>]]
    private let orders: [TableOrder<Entity>]
    /// Per order: every row's place in it.
    private var orderings: [SortedList<OrderedRow>]

    /// A table with the given secondary indexes and orders; each one's `slot` is its position in its list.
    public init(indexes: [TableIndex<Entity>] = [], orders: [TableOrder<Entity>] = []) {
        for (position, index) in indexes.enumerated() {
            precondition(index.slot == position, "a TableIndex's slot must be its position in the table's index list")
        }
        for (position, order) in orders.enumerated() {
            precondition(order.slot == position, "a TableOrder's slot must be its position in the table's order list")
        }
        self.indexes = indexes
        self.postings = Array(repeating: [:], count: indexes.count)
        self.orders = orders
        self.orderings = Array(repeating: SortedList(), count: orders.count)
    }

    /// The row with `id`; setting `nil` removes it.
    public subscript(id: String) -> Entity? {
        get { rows[id] }
        set {
            let old = rows[id]
            if let newValue { rows[id] = newValue } else { rows[id] = nil }
            reindex(id: id, old: old, new: newValue)
        }
    }

    /// Removes and returns the row with `id`.
    @discardableResult
    public mutating func removeValue(forKey id: String) -> Entity? {
        let old = rows.removeValue(forKey: id)
        if old != nil { reindex(id: id, old: old, new: nil) }
        return old
    }

    /// The ids filed under `key` in `index`.
    public func ids(_ index: TableIndex<Entity>, _ key: String) -> Set<String> {
        postings[index.slot][key] ?? []
    }

    /// The rows filed under `key` in `index`, in no particular order.
    public func rows(_ index: TableIndex<Entity>, _ key: String) -> [Entity] {
        guard let ids = postings[index.slot][key] else { return [] }
        return ids.compactMap { rows[$0] }
    }

    /// The keys at least one row is filed under in `index`.
    public func keys(_ index: TableIndex<Entity>) -> Dictionary<String, Set<String>>.Keys {
        postings[index.slot].keys
    }

    /// How many rows are filed under `key` in `index`.
    public func count(_ index: TableIndex<Entity>, _ key: String) -> Int {
        postings[index.slot][key]?.count ?? 0
    }

    /// The rows' places in `order` within `bounds`, ascending or descending; each place names its row by
    /// the order's ``TableOrder/searchId`` when it has one.
    public func walk(_ order: TableOrder<Entity>, bounds: OrderBounds = .all, descending: Bool = false) -> OrderedWalk {
        OrderedWalk(orderings[order.slot], bounds: bounds, descending: descending, byIdAlone: order.byIdAlone)
    }

    /// The ids after `cursor` (all, without one), ascending, in an order by id alone (``TableOrder/byId(_:searchId:)``),
    /// read lazily: a page from a cursor costs its own rows.
    public func ids(in order: TableOrder<Entity>, after cursor: String?) -> some Sequence<String> {
        precondition(order.byIdAlone, "ids(in:after:) reads an order by id alone")
        return orderings[order.slot].ascending(after: cursor.map { OrderedRow(key: nil, id: $0) }).lazy.map(\.id)
    }

    /// Whether a row has `id` (without copying the row).
    public func contains(_ id: String) -> Bool { rows.index(forKey: id) != nil }

    public var values: Dictionary<String, Entity>.Values { rows.values }
    public var keys: Dictionary<String, Entity>.Keys { rows.keys }
    public var count: Int { rows.count }
    public var isEmpty: Bool { rows.isEmpty }

    private mutating func reindex(id: String, old: Entity?, new: Entity?) {
        for index in indexes {
            let before = old.map(index.keys) ?? []
            let after = new.map(index.keys) ?? []
            guard before != after else { continue }
            for key in before where !after.contains(key) {
                postings[index.slot][key]?.remove(id)
                if postings[index.slot][key]?.isEmpty == true { postings[index.slot][key] = nil }
            }
            for key in after where !before.contains(key) {
                postings[index.slot][key, default: []].insert(id)
            }
        }
        for order in orders {
            let before = old.map { OrderedRow(key: order.key($0), id: order.searchId?($0) ?? id) }
            let after = new.map { OrderedRow(key: order.key($0), id: order.searchId?($0) ?? id) }
            orderings[order.slot].replace(before, with: after)
        }
    }
}

extension IndexedTable: Equatable where Entity: Equatable {
    /// Tables are equal when their rows are (indexes follow from the rows).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rows == rhs.rows }
}
