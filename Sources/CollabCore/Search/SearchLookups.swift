/// The fields a search over one of ``AccountState``'s tables can look up instead of reading every row:
/// for each, the ids of the rows whose field holds a given value (`ID` itself, or a secondary index).
///
/// A search takes its candidates from the smallest list one filter's look-up gives, and runs every
/// filter on those candidates only, so its answer is the one a scan would give. A query with no filter a
/// look-up can answer reads the whole table. Declared entities plan their searches the same way, over
/// ``EntityTable``'s own indexes.
struct SearchLookups {
    /// Field name → the ids of the rows whose field holds (or whose list field contains) the key.
    private var lookups: [String: (String) -> Set<String>] = [:]
    /// The ids every row the search may answer is among, whatever the filters (``narrowing(to:)``).
    private var base: Set<String>?

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

    /// The ids every match of `query` is among, from the filter whose look-up gives the fewest (or the
    /// ``narrowing(to:)`` set, when smaller); `nil` when neither applies (then the search reads the table).
    func candidates(for query: SearchQuery) -> [String]? {
        var best = base
        for filter in query.filters {
            guard let lookup = lookups[filter.field], let keys = filter.op.pinnedKeys else { continue }
            var ids = Set<String>()
            for key in keys { ids.formUnion(lookup(key)) }
            if let current = best, current.count <= ids.count { continue }
            best = ids
        }
        return best.map(Array.init)
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
        guard let ids = lookups.candidates(for: query) else { return try run(query, over: all, id: id) }
        return try run(query, over: ids.lazy.compactMap(row), id: id)
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
}
