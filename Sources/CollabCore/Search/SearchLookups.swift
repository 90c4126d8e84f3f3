/// The fields a search over one of ``AccountState``'s tables can look up instead of reading every row:
/// for each, the ids of the rows whose field holds a given value (`ID` itself, or a secondary index).
///
/// A search takes its candidates from the smallest list one filter's look-up gives, and runs every
/// filter on those candidates only, so its answer is the one a scan would give. When the table keeps
/// the order the query's first sort key asks for (``ordering(_:count:walk:)``: a timestamp, a name, or
/// the ids for a query that names no order), the search may instead read the rows in that order,
/// within the bounds its range filters on the field set, and stop once its page is full; it does so
/// when that should read fewer rows than the candidates. A range filter on an ordered field also gives candidates.
/// A query with none of these reads the whole table. Declared entities plan their searches the same
/// way, over ``EntityTable``'s own indexes.
struct SearchLookups {
    /// Field name → the ids of the rows whose field holds (or whose list field contains) the key.
    private var lookups: [String: (String) -> Set<String>] = [:]
    /// The ids every row the search may answer is among, whatever the filters (``narrowing(to:)``).
    private var base: Set<String>?
    /// Field name (`ID`: the ids alone) → the table's rows in that field's order.
    private var orderings: [String: Ordering] = [:]

    /// The rows of a table in one field's order.
    struct Ordering {
        /// How many rows the table holds.
        let count: Int
        /// The rows within the bounds, ascending or (`true`) descending.
        let walk: (OrderBounds, Bool) -> OrderedWalk
    }

    /// How a search reads the table.
    enum Plan {
        /// Every row.
        case scan
        /// The rows with these ids.
        case candidates([String])
        /// The rows in the order of the query's first sort key (``SearchQuery/orderBy``, or the ids when it
        /// names none), ties by id; `grouped` when the query has more sort keys, so that the rows that tie
        /// on the first are put in order among themselves.
        case walk(OrderedWalk, grouped: Bool)
    }

    /// No look-ups: every search reads the table.
    init() {}

    /// Adds a look-up for `field`; `ids` must give at least every row whose `field` holds (or, for a list
    /// field, contains) the key, or the search misses rows a scan would find. More is allowed: the filters
    /// still run on what it gives.
    func adding(_ field: String, _ ids: @escaping (String) -> Set<String>) -> Self {
        var copy = self
        copy.lookups[field] = ids
        return copy
    }

    /// Confines every search to `ids` (rows the search answers only from among them, such as the persons
    /// of one type for `searchAgents`): the candidates when no filter's look-up gives fewer.
    func narrowing(to ids: Set<String>) -> Self {
        var copy = self
        copy.base = ids
        return copy
    }

    /// Adds the order of `field` (`ID`: the ids alone, walked for queries that name no order); it must
    /// sort as the search sorts the field, rows without a value first.
    func ordering(_ field: String, count: Int, walk: @escaping (OrderBounds, Bool) -> OrderedWalk) -> Self {
        var copy = self
        copy.orderings[field] = Ordering(count: count, walk: walk)
        return copy
    }

    /// Adds the orders of `table` that `orders` names by search field.
    func ordering<Entity>(_ orders: [String: TableOrder<Entity>], of table: IndexedTable<Entity>) -> Self {
        orders.reduce(self) { lookups, order in lookups.ordering(order.key, count: table.count, walk: table.walk(order.value)) }
    }

    /// How to read the table for `query`: in its order when that should read fewer rows than the
    /// smallest candidate list (``OrderedPage/candidateLimit(offset:limit:rows:)``), else the
    /// candidates, else the rows within a range filter's bounds on an ordered field, else every row.
    func plan(for query: SearchQuery) -> Plan {
        let (field, descending) = query.orderBy.first.map { ($0.field, $0.descending) } ?? ("ID", false)
        let walkable = orderings[field]
        let limit = walkable.map { OrderedPage.candidateLimit(offset: query.offset, limit: query.limit, rows: $0.count) }
        var pinned = candidates(for: query, upTo: limit)
        if pinned == nil {
            // A range on another ordered field: the rows within it (the walk applies its own field's range),
            // read only as far as they could beat the walk.
            for (other, ordering) in orderings.sorted(by: { $0.key < $1.key }) where other != "ID" && (walkable == nil || other != field) {
                let bounds = OrderBounds.of(query.filters, field: other)
                guard bounds.isBounded else { continue }
                let within = Set(ordering.walk(bounds, false).prefix(limit.map { $0 + 1 } ?? .max).lazy.map(\.id))
                if limit.map({ within.count <= $0 }) ?? true { pinned = within }
                break
            }
        }
        if let walkable, pinned.map({ $0.count > limit ?? 0 }) ?? true {
            let bounds = field == "ID" ? OrderBounds.all : OrderBounds.of(query.filters, field: field)
            return .walk(walkable.walk(bounds, descending), grouped: query.orderBy.count > 1)
        }
        return pinned.map { .candidates(Array($0)) } ?? .scan
    }

    /// The ids every match of `query` is among, from the filter whose look-up gives the fewest (or the
    /// ``narrowing(to:)`` set, when smaller); `nil` when neither applies (then the search reads the table).
    /// - Parameter cap: With a walk to fall back on, the most candidates worth reading: a filter whose
    ///   keys' lists hold more is passed over without joining them.
    func candidates(for query: SearchQuery, upTo cap: Int? = nil) -> Set<String>? {
        var best = base
        for filter in query.filters {
            guard let lookup = lookups[filter.field], let keys = filter.op.pinnedKeys else { continue }
            // Each key's list is the index's own set (shared, not copied); their join holds at least the
            // largest, so a wide IN that cannot win costs no copy.
            let lists = Set(keys).map(lookup)
            let least = lists.map(\.count).max() ?? 0
            if let current = best, current.count <= least { continue }
            if let cap, least > cap { continue }
            let ids = lists.count == 1 ? lists[0] : lists.reduce(into: Set<String>()) { $0.formUnion($1) }
            if let current = best, current.count <= ids.count { continue }
            best = ids
        }
        return best
    }
}

extension FilterOperator {
    /// Keys that every value passing the operator is one of, or for a list field, that every passing list
    /// holds one of: the keys an index of the field is looked up by. `nil` when the operator passes values
    /// outside any such list (NOT_EQUALS, CONTAINS, a range, IN with a null, ALL_OF with no values).
    var pinnedKeys: [String]? {
        switch self {
        case .equals(.string(let value)):
            return [value]
        case .isIn(let values):
            var keys: [String] = []
            for value in values {
                guard case .string(let key) = value else { return nil }
                keys.append(key)
            }
            return keys
        case .anyOf(let values):
            return values
        case .allOf(let values), .allEqual(let values):
            // Every passing list holds all of the values: the rows filed under any one of them suffice.
            return values.first.map { [$0] }
        default:
            return nil
        }
    }
}

extension SearchSchema {
    /// Runs `query` over the rows `lookups` point to when one of its filters can be looked up, else over
    /// `all`: the same answer either way.
    /// - Parameters:
    ///   - row: The row with an id as the search should see it, or `nil` for none (or one the caller may not
    ///     see: `all` must hide the same rows).
    ///   - all: Every row, as `row` would give it.
    func run(
        _ query: SearchQuery, lookups: SearchLookups, row: (String) -> Entity?, all: some Sequence<Entity>, id: (Entity) -> String
    ) throws(CollabError) -> SearchPage<Entity> {
        switch lookups.plan(for: query) {
        case .scan: return try run(query, over: all, id: id)
        case .candidates(let ids): return try run(query, over: ids.lazy.compactMap(row), id: id)
        case .walk(let rows, let grouped): return try run(query, walking: rows, grouped: grouped, row: row, id: id)
        }
    }

    /// Runs `query` over rows that come in the order of its first sort key (``OrderedPage``).
    func run(
        _ query: SearchQuery, walking rows: OrderedWalk, grouped: Bool, row: (String) -> Entity?, id: (Entity) -> String
    ) throws(CollabError) -> SearchPage<Entity> where Entity: Sendable {
        let search = try compile(query)
        return OrderedPage.read(
            rows, grouped: grouped, offset: query.offset, limit: query.limit, row: row, matches: search.matches, order: search.order, id: id)
    }
}

extension IndexedTable {
    /// The look-up of the rows' own ids (the `ID` field).
    var idLookup: (String) -> Set<String> {
        { [self] id in self.contains(id) ? [id] : [] }
    }

    /// The look-up of `index`.
    func lookup(_ index: TableIndex<Entity>) -> (String) -> Set<String> {
        { [self] key in self.ids(index, key) }
    }

    /// The walk of `order`.
    func walk(_ order: TableOrder<Entity>) -> (OrderBounds, Bool) -> OrderedWalk {
        { [self] bounds, descending in self.walk(order, bounds: bounds, descending: descending) }
    }
}
