/// A search page read from rows that come in the query's order (an ``OrderedWalk``): the rows are
/// checked one by one and the reading stops once the page and one more match (whether more follow) are
/// in hand. Used by the account tables' searches (``SearchLookups``) and the declared entities'
/// (``EntityTable``).
enum OrderedPage {
    /// The most candidates that are cheaper to check than a walk through `rows` rows in order. Finding
    /// `offset + limit + 1` matches among `n` rows of which `k` match takes about
    /// `(offset + limit + 1) · n / k` reads, the candidates `k`: the walk wins beyond
    /// `√((offset + limit + 1) · n)`. A range's candidates are read only up to one more than this.
    static func candidateLimit(offset: Int, limit: Int, rows: Int) -> Int {
        let wanted = Double(offset) + Double(limit) + 1
        return Int(min((wanted * Double(rows)).squareRoot(), Double(Int.max / 2)))
    }

    /// Reads `walk` into a page of `limit` matches after the first `offset`.
    /// - Parameters:
    ///   - walk: The rows in the order of the query's first sort key, ties by id.
    ///   - grouped: Whether the query has more sort keys: then the rows that tie on the first are put
    ///     in the full order (`order`, then id) among themselves, and the reading stops at a tie's end
    ///     (not for a walk by id alone, whose rows never tie).
    ///   - row: The row with an id, or `nil` for one the caller may not see.
    ///   - matches: Whether a row passes every filter.
    ///   - order: Whether one row comes before another by the query's sort keys (`nil`: they tie).
    static func read<Entity: Sendable>(
        _ walk: OrderedWalk, grouped: Bool, offset: Int, limit: Int, row: (String) -> Entity?, matches: (Entity) -> Bool,
        order: (Entity, Entity) -> Bool?, id: (Entity) -> String
    ) -> SearchPage<Entity> {
        // Ids never tie: a walk by id needs no grouping, whatever sort keys follow.
        let grouped = grouped && !walk.byIdAlone
        let (sum, overflow) = offset.addingReportingOverflow(limit)
        let end = overflow ? Int.max : sum
        var matched: [Entity] = []
        var group: [Entity] = []
        var groupKey: OrderKey??
        func closeGroup() {
            matched += group.sorted { order($0, $1) ?? (id($0) < id($1)) }
            group.removeAll(keepingCapacity: true)
        }
        for place in walk {
            if grouped, groupKey != .some(place.key) {
                closeGroup()
                groupKey = .some(place.key)
            }
            if matched.count > end { break }
            guard let entity = row(place.id), matches(entity) else { continue }
            if grouped { group.append(entity) } else { matched.append(entity) }
        }
        closeGroup()
        let start = min(offset, matched.count)
        let stop = min(end, matched.count)
        let hasMore = stop < matched.count
        return SearchPage(items: Array(matched[start..<stop]), hasMoreItems: hasMore, nextOffset: hasMore ? stop : nil)
    }
}
