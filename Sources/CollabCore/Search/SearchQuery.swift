/// A value of a searchable field.
public enum FieldValue: Sendable, Equatable, Comparable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)

    /// Orders nulls first, then by value; values of different types order by type.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): false
        case (.null, _): true
        case (_, .null): false
        case (.bool(let a), .bool(let b)): !a && b
        case (.int(let a), .int(let b)): a < b
        case (.string(let a), .string(let b)): a.lowercased() < b.lowercased()
        default: lhs.typeRank < rhs.typeRank
        }
    }

    private var typeRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int: 2
        case .string: 3
        }
    }

    var isNull: Bool { self == .null }
}

/// The operators of the Web API's search filters (string, id, timestamp, boolean and enum operators).
public enum FilterOperator: Sendable, Equatable {
    case equals(FieldValue)
    case notEquals(FieldValue)
    case isIn([FieldValue])
    case notIn([FieldValue])
    case isNull
    case isNotNull
    /// Case-insensitive substring match.
    case contains(String)
    case startsWith(String)
    case greaterThan(Int64)
    case greaterThanOrNull(Int64)
    case lowerThan(Int64)
    case lowerThanOrNull(Int64)
    /// Inclusive range.
    case inRange(from: Int64, to: Int64)
    case notInRange(from: Int64, to: Int64)
    /// A list field (`IdListOperator`) holds every one of the values.
    case allOf([String])
    /// A list field holds at least one of the values.
    case anyOf([String])
    /// A list field holds exactly the values (in any order).
    case allEqual([String])

    /// Whether `value` passes the operator.
    public func matches(_ value: FieldValue) -> Bool {
        switch self {
        case .equals(let expected): return value == expected
        case .notEquals(let expected): return value != expected
        case .isIn(let values): return values.contains(value)
        case .notIn(let values): return !values.contains(value)
        case .isNull: return value.isNull
        case .isNotNull: return !value.isNull
        case .contains(let needle):
            guard case .string(let s) = value else { return false }
            return s.lowercased().contains(needle.lowercased())
        case .startsWith(let prefix):
            guard case .string(let s) = value else { return false }
            return s.hasPrefix(prefix)
        case .greaterThan(let bound):
            guard case .int(let v) = value else { return false }
            return v > bound
        case .greaterThanOrNull(let bound):
            guard case .int(let v) = value else { return value.isNull }
            return v > bound
        case .lowerThan(let bound):
            guard case .int(let v) = value else { return false }
            return v < bound
        case .lowerThanOrNull(let bound):
            guard case .int(let v) = value else { return value.isNull }
            return v < bound
        case .inRange(let from, let to):
            guard case .int(let v) = value else { return false }
            return v >= from && v <= to
        case .notInRange(let from, let to):
            guard case .int(let v) = value else { return false }
            return v < from || v > to
        case .allOf, .anyOf, .allEqual:
            return matches(list: value.indexKey.map { [$0] } ?? [])
        }
    }

    /// The UTF-8 length of the longest text it compares with (0 for none): bounded, since each row's
    /// value is compared with it under the account's lock.
    public var longestText: Int {
        func length(_ value: FieldValue) -> Int {
            if case .string(let text) = value { text.utf8.count } else { 0 }
        }
        switch self {
        case .equals(let value), .notEquals(let value): return length(value)
        case .isIn(let values), .notIn(let values): return values.lazy.map(length).max() ?? 0
        case .contains(let text), .startsWith(let text): return text.utf8.count
        case .allOf(let texts), .anyOf(let texts), .allEqual(let texts): return texts.lazy.map(\.utf8.count).max() ?? 0
        case .isNull, .isNotNull, .greaterThan, .greaterThanOrNull, .lowerThan, .lowerThanOrNull, .inRange, .notInRange: return 0
        }
    }

    /// Whether a list field's values pass the operator: the `IdListOperator`s compare the lists, and any
    /// other operator holds when it holds for one of the items.
    public func matches(list: [String]) -> Bool {
        switch self {
        case .allOf(let values): return Set(values).isSubset(of: list)
        case .anyOf(let values): return values.contains(where: list.contains)
        case .allEqual(let values): return values.count == list.count && Set(values) == Set(list)
        default: return list.contains { matches(.string($0)) }
        }
    }
}

/// One condition of a query: a field name (the vendor's `E…SearchFilterField`) and an operator.
public struct SearchFilter: Sendable, Equatable {
    public var field: String
    public var op: FilterOperator
    /// The operator family its `$_type` names (`String` of `ContainsStringOperator`, `ConversationState`
    /// of `EqualsConversationStateOperator`), checked against the field's; `nil` when it gave none.
    public var operatorFamily: String?

    public init(field: String, op: FilterOperator, operatorFamily: String? = nil) {
        self.field = field
        self.op = op
        self.operatorFamily = operatorFamily
    }
}

/// One sort key (the vendor's `E…OrderByField`).
public struct SearchOrder: Sendable, Equatable {
    public var field: String
    public var descending: Bool
    public init(field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }
}

/// A search: filters (all must hold), order, and a page window.
public struct SearchQuery: Sendable, Equatable {
    /// Page size when the caller gives none.
    public static let defaultLimit = 100
    /// The largest page a caller can ask for.
    public static let maximumLimit = 1000
    /// The most filters one search takes (each runs on every candidate row).
    public static let maximumFilters = 32
    /// The most sort keys one search takes (each may run on every comparison).
    public static let maximumOrders = 8

    public var filters: [SearchFilter]
    public var orderBy: [SearchOrder]
    public var offset: Int
    public var limit: Int

    /// Creates a query; `offset` must not be negative and `limit` must be at least 1 (a page of none
    /// would answer `hasMoreItems` with the same `nextOffset` forever).
    public init(filters: [SearchFilter] = [], orderBy: [SearchOrder] = [], offset: Int? = nil, limit: Int? = nil) throws(CollabError) {
        let offset = offset ?? 0
        let limit = limit ?? Self.defaultLimit
        guard offset >= 0 else { throw .badRequest("offset must not be negative") }
        guard limit >= 1 else { throw .badRequest("limit must be at least 1") }
        // Each filter runs on every candidate row and each sort key on every comparison: bounded.
        guard filters.count <= Self.maximumFilters else { throw .badRequest("searchFilters has more than \(Self.maximumFilters) entries") }
        guard orderBy.count <= Self.maximumOrders else { throw .badRequest("orderBy has more than \(Self.maximumOrders) entries") }
        for (index, filter) in filters.enumerated() where filter.op.longestText > Limits.textLength {
            throw .badRequest("searchFilters[\(index)].operator compares with a text longer than \(Limits.textLength) bytes")
        }
        self.filters = filters
        self.orderBy = orderBy
        self.offset = offset
        self.limit = min(limit, Self.maximumLimit)
    }
}

/// One page of search results.
public struct SearchPage<Item: Sendable>: Sendable {
    public var items: [Item]
    public var hasMoreItems: Bool
    /// The offset of the next page, when there is one.
    public var nextOffset: Int?
}

/// The fields of an entity that searches can filter and sort on.
public struct SearchSchema<Entity>: Sendable {
    public typealias Extractor = @Sendable (Entity) -> FieldValue
    public typealias ListExtractor = @Sendable (Entity) -> [String]
    private let fields: [String: Extractor]
    private let lists: [String: ListExtractor]
    private let kinds: [String: SearchFieldKind]
    private let entityName: String

    /// Creates a schema from field names and value extractors.
    /// - Parameters:
    ///   - kinds: The operator family of fields whose name does not say it (``SearchFieldKind/implied(by:)``
    ///     reads `ID`, `…_ID` and `…_TIMESTAMP`): strings, enums, booleans.
    ///   - lists: Filter-only list fields (`IdListOperator`: a conversation's participants).
    public init(_ entityName: String, _ fields: [String: Extractor], kinds: [String: SearchFieldKind] = [:], lists: [String: ListExtractor] = [:]) {
        self.entityName = entityName
        self.fields = fields
        self.kinds = kinds
        self.lists = lists
    }

    /// The field names the schema knows.
    public var fieldNames: Set<String> { Set(fields.keys).union(lists.keys) }

    /// The operator family of a field, where the schema knows it.
    func kind(of field: String) -> SearchFieldKind? {
        lists[field] != nil ? .idList : kinds[field] ?? SearchFieldKind.implied(by: field)
    }

    /// Runs `query` over `candidates`: filter, order (by id last for stability), then page.
    public func run(_ query: SearchQuery, over candidates: some Sequence<Entity>, id: (Entity) -> String) throws(CollabError) -> SearchPage<Entity> {
        try run(query, candidates) { _, entity in id(entity) }
    }

    /// Runs `query` over candidates that come in an order of their own (a conversation's messages, in
    /// the order they were sent): entities the query's order finds equal keep that order.
    public func run(_ query: SearchQuery, overOrdered candidates: some Sequence<Entity>) throws(CollabError) -> SearchPage<Entity> {
        try run(query, candidates) { position, _ in position }
    }

    /// Filters, orders (ties by `tie`, given each candidate's position and the candidate), then pages: only
    /// the matches up to the page's end are put in order.
    private func run<Tie: Comparable>(
        _ query: SearchQuery, _ candidates: some Sequence<Entity>, tie: (Int, Entity) -> Tie
    ) throws(CollabError) -> SearchPage<Entity> {
        let search = try compile(query)
        var ranked: [(Entity, Tie)] = []
        for (position, entity) in candidates.enumerated() where search.matches(entity) {
            ranked.append((entity, tie(position, entity)))
        }
        let start = min(query.offset, ranked.count)
        let end = min(start + query.limit, ranked.count)
        let hasMore = end < ranked.count
        let page = ranked.firstSorted(end) { a, b in search.order(a.0, b.0) ?? (a.1 < b.1) }
        return SearchPage(items: page[start...].map(\.0), hasMoreItems: hasMore, nextOffset: hasMore ? end : nil)
    }

    /// `query` checked against the schema: its filters as one test and its sort keys as one comparison.
    /// - Throws: `badRequest` for a field the schema cannot filter or order by, or an operator its family
    ///   does not allow.
    func compile(_ query: SearchQuery) throws(CollabError) -> CompiledSearch<Entity> {
        var checks: [(Entity) -> Bool] = []
        for (position, filter) in query.filters.enumerated() {
            if let kind = kind(of: filter.field) { try kind.check(filter, at: position) }
            if let list = lists[filter.field] {
                checks.append { filter.op.matches(list: list($0)) }
            } else if let extractor = fields[filter.field] {
                checks.append { filter.op.matches(extractor($0)) }
            } else {
                throw .badRequest("\(entityName) search does not support the filter field '\(filter.field)'")
            }
        }
        var sorters: [CompiledSearch<Entity>.Sorter] = []
        for order in query.orderBy {
            guard let extractor = fields[order.field] else {
                throw .badRequest("\(entityName) search cannot order by '\(order.field)'")
            }
            sorters.append(.init(extract: extractor, descending: order.descending, exact: kind(of: order.field) == .id))
        }
        return CompiledSearch(checks: checks, sorters: sorters)
    }
}

extension FieldValue {
    /// Whether `self` comes before `other` (`true`) or after it (`false`) as `<` orders them, or `nil` when
    /// they tie (text that differs only in case); text is folded once, not once per comparison. `exactly`
    /// compares text as it is, code point by code point: identifiers, which tie only when equal and sort
    /// as a table keeps its ids and breaks ties.
    func precedes(_ other: FieldValue, exactly: Bool = false) -> Bool? {
        if case .string(let a) = self, case .string(let b) = other {
            if exactly { return a == b ? nil : a < b }
            let (foldedA, foldedB) = (a.lowercased(), b.lowercased())
            return foldedA == foldedB ? nil : foldedA < foldedB
        }
        return self < other ? true : other < self ? false : nil
    }
}

/// A query ready to run over one kind of entity (``SearchSchema/compile(_:)``).
struct CompiledSearch<Entity> {
    /// One sort key: the field's value, its direction, and whether it compares exactly (an id) or folded.
    struct Sorter {
        let extract: SearchSchema<Entity>.Extractor
        let descending: Bool
        let exact: Bool
    }

    let checks: [(Entity) -> Bool]
    let sorters: [Sorter]

    /// Whether `entity` passes every filter.
    func matches(_ entity: Entity) -> Bool { checks.allSatisfy { $0(entity) } }

    /// Whether `a` comes before `b` by the query's sort keys; `nil` when they tie on all of them.
    /// Text compares without regard to case: values that differ only in case tie on that key and go on
    /// to the next (and last to the id), as the orders a table keeps put them. Ids compare exactly, as
    /// the tables keep them, so a query ordered by `ID` walks that order.
    func order(_ a: Entity, _ b: Entity) -> Bool? {
        for sorter in sorters {
            if let before = sorter.extract(a).precedes(sorter.extract(b), exactly: sorter.exact) {
                return sorter.descending ? !before : before
            }
        }
        return nil
    }
}
