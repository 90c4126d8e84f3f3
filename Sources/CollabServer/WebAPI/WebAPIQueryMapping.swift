import CollabCore
import CollabWire

extension WebQuery {
    /// The domain query for this body; `expectedType` is the `…Query` `$_type` the endpoint takes.
    func searchQuery(expectedType: String) throws(CollabError) -> SearchQuery {
        if let type, type != expectedType { throw .badRequest("$_type must be '\(expectedType)', not '\(type)'") }
        var filters: [SearchFilter] = []
        for (index, filter) in (searchFilters ?? []).enumerated() {
            guard let field = filter.field else { throw .badRequest("searchFilters[\(index)].field is required") }
            guard filter.searchFilters == nil else { throw .badRequest("compound search filters are not supported") }
            guard let op = filter.operator else { throw .badRequest("searchFilters[\(index)].operator is required") }
            let path = "searchFilters[\(index)].operator"
            filters.append(SearchFilter(field: field, op: try op.domain(at: path), operatorFamily: try op.family(at: path)))
        }
        var orders: [SearchOrder] = []
        for (index, order) in (orderBy ?? []).enumerated() {
            guard let field = order.field else { throw .badRequest("orderBy[\(index)].field is required") }
            switch order.order ?? "ASCENDING" {
            case "ASCENDING": orders.append(SearchOrder(field: field))
            case "DESCENDING": orders.append(SearchOrder(field: field, descending: true))
            case let other: throw .badRequest("orderBy[\(index)].order must be ASCENDING or DESCENDING, not '\(other)'")
            }
        }
        return try SearchQuery(filters: filters, orderBy: orders, offset: offset, limit: limit)
    }
}

extension WebSearchOperator {
    func domain(at path: String) throws(CollabError) -> FilterOperator {
        guard let type else { throw .badRequest("\(path).type is required") }
        func single() throws(CollabError) -> FieldValue {
            guard let value else { throw .badRequest("\(path).value is required for \(type)") }
            return value.fieldValue
        }
        func list() throws(CollabError) -> [FieldValue] {
            guard let values else { throw .badRequest("\(path).values is required for \(type)") }
            guard values.count <= Limits.readMultipleCount else { throw .badRequest("\(path).values has too many entries") }
            return values.map(\.fieldValue)
        }
        func number() throws(CollabError) -> Int64 {
            guard case .int(let number) = try single() else { throw .badRequest("\(path).value must be an integer for \(type)") }
            return number
        }
        func text() throws(CollabError) -> String {
            guard case .string(let text) = try single() else { throw .badRequest("\(path).value must be a string for \(type)") }
            return text
        }
        func ids() throws(CollabError) -> [String] {
            try list().map { value throws(CollabError) in
                guard case .string(let id) = value else { throw .badRequest("\(path).values must be strings for \(type)") }
                return id
            }
        }
        func range() throws(CollabError) -> (Int64, Int64) {
            guard let minimum, let maximum else { throw .badRequest("\(path).minimum and maximum are required for \(type)") }
            return (minimum, maximum)
        }
        switch type {
        case "EQUALS": return .equals(try single())
        case "NOT_EQUALS": return .notEquals(try single())
        case "IN": return .isIn(try list())
        case "NOT_IN": return .notIn(try list())
        case "IS_NULL": return .isNull
        case "IS_NOT_NULL": return .isNotNull
        case "CONTAINS": return .contains(try text())
        case "STARTS_WITH": return .startsWith(try text())
        case "GREATER_THAN": return .greaterThan(try number())
        case "GREATER_THAN_OR_NULL": return .greaterThanOrNull(try number())
        case "LOWER_THAN": return .lowerThan(try number())
        case "LOWER_THAN_OR_NULL": return .lowerThanOrNull(try number())
        case "IN_RANGE":
            let (from, to) = try range()
            return .inRange(from: from, to: to)
        case "NOT_IN_RANGE":
            let (from, to) = try range()
            return .notInRange(from: from, to: to)
        case "ALL_OF": return .allOf(try ids())
        case "ANY_OF": return .anyOf(try ids())
        case "ALL_EQUAL": return .allEqual(try ids())
        default: throw .badRequest("\(path).type '\(type)' is not a known operator")
        }
    }
}

extension WebSearchOperator {
    /// The operator family the `$_type` names between the type's prefix and `Operator`
    /// (`EqualsStringOperator` → `String`); `nil` without a `$_type`.
    /// - Throws: `badRequest` for a `$_type` that is no operator of this `type`.
    func family(at path: String) throws(CollabError) -> String? {
        guard let discriminator, let type else { return nil }
        guard let prefix = FilterOperator.typePrefix(type), discriminator.hasPrefix(prefix), discriminator.hasSuffix("Operator"),
            discriminator.count > prefix.count + "Operator".count
        else {
            let example = "\(FilterOperator.typePrefix(type) ?? "")StringOperator"
            throw .badRequest("\(path).$_type '\(discriminator)' is not an operator of type \(type) (e.g. \(example))")
        }
        return String(discriminator.dropFirst(prefix.count).dropLast("Operator".count))
    }
}

extension JSONScalar {
    var fieldValue: FieldValue {
        switch self {
        case .string(let value): .string(value)
        case .int(let value): .int(value)
        case .double(let value): Int64(exactly: value).map { .int($0) } ?? .string(String(value))
        case .bool(let value): .bool(value)
        }
    }
}
