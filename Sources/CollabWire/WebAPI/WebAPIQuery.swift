/// A search operator (`StringOperator`, `IdOperator`, `TimestampOperator`, …), told apart by `type`.
public struct WebSearchOperator: Codable, Sendable, Equatable {
    public var discriminator: String?
    /// `EQUALS`, `IN`, `CONTAINS`, `GREATER_THAN`, …
    public var type: String?
    public var value: JSONScalar?
    public var values: [JSONScalar]?
    public var minimum: Int64?
    public var maximum: Int64?

    enum CodingKeys: String, CodingKey {
        case discriminator = "$_type", type, value, values, minimum, maximum
    }

    public init(type: String, value: JSONScalar? = nil, values: [JSONScalar]? = nil) {
        self.type = type
        self.value = value
        self.values = values
    }
}

/// A search filter (`…SearchFilter`): a field and an operator.
public struct WebSearchFilter: Codable, Sendable, Equatable {
    public var discriminator: String?
    public var field: String?
    public var `operator`: WebSearchOperator?
    /// Only compound filters carry nested filters.
    public var searchFilters: [WebSearchFilter]?

    enum CodingKeys: String, CodingKey {
        case discriminator = "$_type", field, `operator`, searchFilters
    }

    public init(field: String, operator op: WebSearchOperator) {
        self.field = field
        self.operator = op
    }
}

/// An order-by item (`…OrderBy`).
public struct WebOrderBy: Codable, Sendable, Equatable {
    public var discriminator: String?
    public var field: String?
    /// `ASCENDING` or `DESCENDING`.
    public var order: String?

    enum CodingKeys: String, CodingKey {
        case discriminator = "$_type", field, order
    }

    public init(field: String, order: String = "ASCENDING") {
        self.field = field
        self.order = order
    }
}

/// Any `…Query` body: filters, order, offset and limit.
public struct WebQuery: Codable, Sendable, Equatable {
    public var type: String?
    public var searchFilters: [WebSearchFilter]?
    public var orderBy: [WebOrderBy]?
    public var offset: Int?
    public var limit: Int?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", searchFilters, orderBy, offset, limit
    }

    public init(type: String, searchFilters: [WebSearchFilter]? = nil, orderBy: [WebOrderBy]? = nil, offset: Int? = nil, limit: Int? = nil) {
        self.type = type
        self.searchFilters = searchFilters
        self.orderBy = orderBy
        self.offset = offset
        self.limit = limit
    }
}

/// Any `…Result` body: one page of items.
public struct WebResult<Item: Codable & Sendable>: Codable, Sendable {
    public var type: String?
    public var hasMoreItems: Bool?
    public var nextOffset: Int?
    public var items: [Item]?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", hasMoreItems, nextOffset, items
    }

    public init(type: String, items: [Item], hasMoreItems: Bool, nextOffset: Int) {
        self.type = type
        self.items = items
        self.hasMoreItems = hasMoreItems
        self.nextOffset = nextOffset
    }
}

/// Any `…List` body.
public struct WebList<Item: Codable & Sendable>: Codable, Sendable {
    public var type: String?
    public var items: [Item]?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", items
    }

    public init(type: String, items: [Item]) {
        self.type = type
        self.items = items
    }
}
