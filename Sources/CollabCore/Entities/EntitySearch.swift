/// Searches over one kind's ``EntityTable``: the vendor's query model (filters with the operators each
/// field's schema allows, all of which must hold; order; offset and limit).
///
/// Candidates come from the most selective filter an index can answer (an id, a foreign key, a name,
/// an enum value, a timestamp or a range of them); every filter is then checked on those candidates
/// only. A query with no such filter checks every entity of the kind in the account.
extension EntityTable {
    /// The fields a query may name: the declared ones, and `ID` for ordering.
    static var searchableFields: [EntityField<Entity>] {
        let declared = Entity.declaration.fields.filter(\.searchable)
        guard !declared.contains(where: { $0.name == "ID" }) else { return declared }
        return [EntityField("ID", .id, filterable: false) { .string($0.id) }] + declared
    }

    /// Runs `query`; `visible` hides what the caller may not see (before paging, so pages stay full).
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
        let matched = try matching(query.filters, visible: visible)
        func before(_ a: Entity, _ b: Entity) -> Bool {
            for (field, descending) in sorters {
                let va = field.value(a)
                let vb = field.value(b)
                if va != vb { return descending ? vb < va : va < vb }
            }
            return a.id < b.id
        }
        let start = min(query.offset, matched.count)
        let end = min(start + query.limit, matched.count)
        let hasMore = end < matched.count
        return SearchPage(items: Array(matched.firstSorted(end, by: before)[start...]), hasMoreItems: hasMore, nextOffset: hasMore ? end : nil)
    }

    /// How many entities pass `filters` (the vendor's `…CountQuery`).
    public func count(_ filters: [SearchFilter], visible: (Entity) -> Bool) throws(CollabError) -> Int {
        try matching(filters, visible: visible).count
    }

    /// The entities that pass every filter and `visible`, in no particular order.
    private func matching(_ filters: [SearchFilter], visible: (Entity) -> Bool) throws(CollabError) -> [Entity] {
        let fields = Self.searchableFields
        var checks: [(EntityField<Entity>, SearchFilter)] = []
        for (position, filter) in filters.enumerated() {
            guard let field = fields.first(where: { $0.name == filter.field }), field.filterable else {
                throw .badRequest("searchFilters[\(position)].field: \(Entity.declaration.typeName) search has no filter field '\(filter.field)'")
            }
            try field.kind.check(filter, at: position)
            checks.append((field, filter))
        }
        var matched: [Entity] = []
        func consider(_ entity: Entity) {
            if checks.allSatisfy({ $0.1.op.matches($0.0.value(entity)) }), visible(entity) { matched.append(entity) }
        }
        if let candidates = plannedCandidates(checks) {
            for id in candidates { if let entity = rows[id] { consider(entity) } }
        } else {
            for entity in rows.values { consider(entity) }
        }
        return matched
    }

    /// The smallest candidate list an index gives for one of the filters, or `nil` to scan.
    private func plannedCandidates(_ checks: [(EntityField<Entity>, SearchFilter)]) -> [String]? {
        var best: [String]?
        for (field, filter) in checks {
            guard let ids = indexed(filter, field: field) else { continue }
            if let current = best, current.count <= ids.count { continue }
            best = ids
        }
        return best
    }
}
