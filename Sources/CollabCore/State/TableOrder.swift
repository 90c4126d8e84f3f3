/// An order an ``IndexedTable`` keeps its rows in, besides by id in a hash: by one field (a timestamp, or
/// a name compared as searches compare text; rows without a value first), then by id. A search that asks
/// for that order, or for a range of a timestamp, reads rows from it one by one and stops when its page
/// is full, instead of checking and sorting every row of the table (``SearchLookups/ordering(_:count:walk:)``).
public struct TableOrder<Entity: Sendable>: Sendable {
    /// Position among the table's orders.
    let slot: Int
    /// The field's value in `row` (`nil`: none, placed before every value).
    let key: @Sendable (Entity) -> OrderKey?
    /// The id a search names `row` by, which breaks ties (`nil`: the table's own row id).
    let searchId: (@Sendable (Entity) -> String)?
    /// Whether the rows are kept by id alone (``byId(_:searchId:)``): the id is then the value walked.
    let byIdAlone: Bool

    /// An order by an integer field.
    /// - Parameters:
    ///   - slot: The order's position in the table's `orders` list.
    ///   - searchId: The id searches name a row by and break ties with, when it is not the table's row id
    ///     (a started client's public id, whose row id is a secret); unique, never empty, never changed.
    ///   - key: The field's value in a row; it must be the value a search sorts the field by.
    public init(_ slot: Int, searchId: (@Sendable (Entity) -> String)? = nil, key: @escaping @Sendable (Entity) -> Int64?) {
        self.init(slot: slot, searchId: searchId) { row in key(row).map(OrderKey.int) }
    }

    private init(
        slot: Int, searchId: (@Sendable (Entity) -> String)?, byIdAlone: Bool = false, orderKey: @escaping @Sendable (Entity) -> OrderKey?
    ) {
        self.slot = slot
        self.searchId = searchId
        self.byIdAlone = byIdAlone
        self.key = orderKey
    }

    /// The rows by id alone (String order, as searches break ties and compare `ID`): the order of a search
    /// that names none, or names `ID`.
    public static func byId(_ slot: Int, searchId: (@Sendable (Entity) -> String)? = nil) -> Self {
        Self(slot: slot, searchId: searchId, byIdAlone: true) { _ in nil }
    }

    /// An order by a text field, as a search sorts it (``FieldValue``: without regard to case, so values
    /// that differ only in case tie and come by id).
    public static func byText(_ slot: Int, _ text: @escaping @Sendable (Entity) -> String?) -> Self {
        Self(slot: slot, searchId: nil) { row in text(row).map(OrderKey.text) }
    }
}

/// The value a row is kept in order by: a number, or a text folded to lower case (as ``FieldValue``
/// compares text). Every number comes before every text; a single order holds only one of the two.
public enum OrderKey: Sendable, Hashable, Comparable {
    case int(Int64)
    case folded(String)

    /// The key of `text`, folded as a search compares it.
    public static func text(_ text: String) -> OrderKey { .folded(text.lowercased()) }
}

/// A row's place in a ``TableOrder``: its key (none first), then its id (the id searches name it by).
public struct OrderedRow: Sendable, Hashable, Comparable {
    public var key: OrderKey?
    public var id: String

    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.key, rhs.key) {
        case (nil, nil): lhs.id < rhs.id
        case (nil, _): true
        case (_, nil): false
        case (let a?, let b?): a < b || (a == b && lhs.id < rhs.id)
        }
    }
}

/// The values of an ordered field a walk reads, inclusive; rows without a value are outside any bound.
public struct OrderBounds: Sendable, Equatable {
    public var lower: Int64?
    public var upper: Int64?

    /// No bound: every row, those without a value included.
    public static let all = OrderBounds(lower: nil, upper: nil)

    public init(lower: Int64?, upper: Int64?) {
        self.lower = lower
        self.upper = upper
    }

    /// Whether either end is bounded (then rows without a value are out).
    var isBounded: Bool { lower != nil || upper != nil }

    /// Whether no value can fall within.
    var isEmpty: Bool {
        guard let lower, let upper else { return false }
        return lower > upper
    }

    /// The bounds the range operators among `filters` on `field` put on its values (the rows they pass
    /// are within them; every filter is still checked on each row read).
    static func of(_ filters: [SearchFilter], field: String) -> OrderBounds {
        var bounds = OrderBounds.all
        for filter in filters where filter.field == field {
            switch filter.op {
            case .equals(.int(let value)): bounds.narrow(lower: value, upper: value)
            case .greaterThan(let bound): bound == .max ? bounds.narrow(lower: 1, upper: 0) : bounds.narrow(lower: bound + 1, upper: nil)
            case .lowerThan(let bound): bound == .min ? bounds.narrow(lower: 1, upper: 0) : bounds.narrow(lower: nil, upper: bound - 1)
            case .inRange(let from, let to): bounds.narrow(lower: from, upper: to)
            default: continue
            }
        }
        return bounds
    }

    private mutating func narrow(lower: Int64?, upper: Int64?) {
        if let lower { self.lower = max(self.lower ?? .min, lower) }
        if let upper { self.upper = min(self.upper ?? .max, upper) }
    }
}

/// The rows of a ``TableOrder`` within bounds, read lazily: ascending by value, or descending by value;
/// either way the rows that tie on the value come by id ascending, as a search breaks ties, so a query
/// sorted by the field alone takes the rows in the order they come. In an order by id alone the id is
/// the value: descending, the ids come descending.
public struct OrderedWalk: Sequence, IteratorProtocol {
    private let list: SortedList<OrderedRow>
    private let bounds: OrderBounds
    private let descending: Bool
    /// Whether the walk is of an order by id alone, whose rows never tie.
    let byIdAlone: Bool
    /// Ascending walks: the rows from the next one on. Descending walks: the rows of the value being
    /// read, ascending (two or more rows tie on it).
    private var rows: SortedList<OrderedRow>.Ascending
    /// In a descending walk, the rows below those read so far, descending, and the first of them when it
    /// has been read ahead (to see whether it ties with the one before).
    private var below: SortedList<OrderedRow>.Descending
    private var readAhead: OrderedRow?
    /// In a descending walk, the value whose tied rows `rows` is reading.
    private var tiedValue: OrderKey??
    private var done = false

    /// - Parameter byIdAlone: Whether `list` holds rows without values, by id alone (bounds do not apply).
    init(_ list: SortedList<OrderedRow>, bounds: OrderBounds, descending: Bool, byIdAlone: Bool = false) {
        let bounds = byIdAlone ? .all : bounds
        self.list = list
        self.bounds = bounds
        self.descending = descending
        self.byIdAlone = byIdAlone
        done = bounds.isEmpty
        if descending {
            rows = SortedList<OrderedRow>().ascending()
            // Before (upper + 1, ""): every row whose value is at most `upper` (ids are never empty).
            below = list.descending(before: bounds.upper.flatMap { $0 == .max ? nil : OrderedRow(key: .int($0 + 1), id: "") })
        } else {
            // After (lower, ""): every row whose value is at least `lower`; with an upper bound alone,
            // after every row without a value.
            rows = list.ascending(after: bounds.isBounded ? OrderedRow(key: .int(bounds.lower ?? .min), id: "") : nil)
            below = SortedList<OrderedRow>().descending()
        }
    }

    public mutating func next() -> OrderedRow? {
        guard !done else { return nil }
        guard descending else {
            guard let row = rows.next(), Self.within(row, upper: bounds.upper) else {
                done = true
                return nil
            }
            return row
        }
        if byIdAlone {
            // No two rows share an id: no tie to read ascending.
            guard let row = below.next() else {
                done = true
                return nil
            }
            return row
        }
        if case .some(let value) = tiedValue {
            if let row = rows.next(), row.key == value { return row }
            // The tie is read: go on below its first row.
            tiedValue = nil
            guard value != nil else {
                done = true
                return nil
            }
            below = list.descending(before: OrderedRow(key: value, id: ""))
            readAhead = nil
        }
        guard let row = readAhead ?? below.next(), !bounds.isBounded || (row.key.map { $0 >= .int(bounds.lower ?? .min) } ?? false) else {
            done = true
            return nil
        }
        readAhead = below.next()
        guard let next = readAhead, next.key == row.key else { return row }
        // Two or more rows share the value: read them by id ascending, from the first.
        tiedValue = .some(row.key)
        rows = list.ascending(after: OrderedRow(key: row.key, id: ""))
        return rows.next()
    }

    /// Whether `row`'s value is at most `upper` (a row without a value is, when there is no bound).
    private static func within(_ row: OrderedRow, upper: Int64?) -> Bool {
        guard let upper else { return true }
        guard let key = row.key else { return false }
        return key <= .int(upper)
    }
}
