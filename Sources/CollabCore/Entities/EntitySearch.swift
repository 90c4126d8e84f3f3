/// Searches over one kind's ``EntityTable``: the vendor's query model (filters with the operators each
/// field's schema allows, all of which must hold; order; offset and limit).
///
/// Candidates come from the most selective filter an index can answer (an id, a foreign key, a name,
/// an enum value, a timestamp or a range of them); every filter is then checked on those candidates
/// only. A query sorted first by a timestamp or a kept name (``EntityField/keptInOrder``), or by
/// nothing, may instead read the entities in that order until its page is full. A query with neither
/// checks every entity of the kind in the account.
extension EntityTable {
    /// The fields a query may name: the declared ones, and `ID` for ordering.
    static var searchableFields: [EntityField<Entity>] {
        let declared = Entity.declaration.fields.filter(\.searchable)
        guard !declared.contains(where: { $0.name == "ID" }) else { return declared }
        return [EntityField("ID", .id, filterable: false) { .string($0.id) }] + declared
    }

    /// Runs `query`; `visible` hides what the caller may not see (before paging, so pages stay full).
    ///
    /// When the query's first sort key is a timestamp or kept name field (or it names no order: then by
    /// id), the entities may be read in that order until the page is full (``OrderedPage``), where that
    /// should read fewer than the candidates an index gives.
    /// - Throws: `badRequest` naming a field the kind cannot filter or order by, or an operator its
    ///   filter schema does not allow.
    public func search(_ query: SearchQuery, visible: (Entity) -> Bool) throws(CollabError) -> SearchPage<Entity> {
        let fields = Self.searchableFields
        var sorters: [(EntityField<Entity>, Bool)] = []
        for (position, order) in query.orderBy.enumerated() {
            guard let field = fields.first(where: { $0.name == order.field }) else {
                throw .badRequest("orderBy[\(position)].field: \(Entity.declaration.typeName) search cannot order by '\(order.field)'")
            }
            sorters.append((field, order.descending))
        }
        let order = CompiledSearch<Entity>(
            checks: [], sorters: sorters.map { .init(extract: $0.0.value, descending: $0.1, exact: $0.0.kind == .id) }
        ).order
        let checks = try Self.checks(query.filters)
        let (first, descending) = query.orderBy.first.map { ($0.field, $0.descending) } ?? ("ID", false)
        let bounds = first == "ID" ? OrderBounds.all : OrderBounds.of(query.filters, field: first)
        let walk = walk(first, bounds: bounds, descending: descending)
        // With a walk to fall back on, a candidate list longer than this is not worth reading whole.
        let limit = walk.map { _ in OrderedPage.candidateLimit(offset: query.offset, limit: query.limit, rows: count) }
        let candidates = plannedCandidates(checks, upTo: limit)
        if let walk, candidates.map({ $0.count > limit ?? 0 }) ?? true {
            return OrderedPage.read(
                walk, grouped: sorters.count > 1, offset: query.offset, limit: query.limit,
                row: { rows[$0].flatMap { visible($0) ? $0 : nil } }, matches: { Self.passes($0, checks) }, order: order, id: \.id)
        }
        let matched = matching(checks, candidates: candidates, visible: visible)
        let start = min(query.offset, matched.count)
        let end = min(start + query.limit, matched.count)
        let hasMore = end < matched.count
        let page = matched.firstSorted(end) { a, b in order(a, b) ?? (a.id < b.id) }
        return SearchPage(items: Array(page[start...]), hasMoreItems: hasMore, nextOffset: hasMore ? end : nil)
    }

    /// How many entities pass `filters` (the vendor's `…CountQuery`).
    public func count(_ filters: [SearchFilter], visible: (Entity) -> Bool) throws(CollabError) -> Int {
        let checks = try Self.checks(filters)
        return matching(checks, candidates: plannedCandidates(checks, upTo: nil), visible: visible).count
    }

    /// `filters` checked against the kind's fields.
    private static func checks(_ filters: [SearchFilter]) throws(CollabError) -> [(EntityField<Entity>, SearchFilter)] {
        let fields = searchableFields
        var checks: [(EntityField<Entity>, SearchFilter)] = []
        for (position, filter) in filters.enumerated() {
            guard let field = fields.first(where: { $0.name == filter.field }), field.filterable else {
                throw .badRequest("searchFilters[\(position)].field: \(Entity.declaration.typeName) search has no filter field '\(filter.field)'")
            }
            try field.kind.check(filter, at: position)
            checks.append((field, filter))
        }
        return checks
    }

    /// Whether `entity` passes every check.
    private static func passes(_ entity: Entity, _ checks: [(EntityField<Entity>, SearchFilter)]) -> Bool {
        checks.allSatisfy { $0.1.op.matches($0.0.value(entity)) }
    }

    /// The entities among `candidates` (`nil`: all) that pass every check and `visible`, in no particular order.
    private func matching(
        _ checks: [(EntityField<Entity>, SearchFilter)], candidates: Set<String>?, visible: (Entity) -> Bool
    ) -> [Entity] {
        var matched: [Entity] = []
        func consider(_ entity: Entity) {
            if Self.passes(entity, checks), visible(entity) { matched.append(entity) }
        }
        if let candidates {
            for id in candidates { if let entity = rows[id] { consider(entity) } }
        } else {
            for entity in rows.values { consider(entity) }
        }
        return matched
    }

    /// The smallest candidate list an index gives for one of the filters, or `nil` to scan; with a
    /// `limit`, only a list of at most that many (a range is read no further than one past it).
    private func plannedCandidates(_ checks: [(EntityField<Entity>, SearchFilter)], upTo limit: Int?) -> Set<String>? {
        var best: Set<String>?
        for (field, filter) in checks {
            guard let ids = indexed(filter, field: field, upTo: limit.map { $0 + 1 }), ids.count <= limit ?? .max else { continue }
            if let current = best, current.count <= ids.count { continue }
            best = ids
        }
        return best
    }
}
