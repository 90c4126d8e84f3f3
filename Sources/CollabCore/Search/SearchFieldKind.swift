/// The operator family of a searchable field's filter schema in the vendor's query model
/// (`IdOperator`, `StringOperator`, `TimestampOperator`, …): which operator `type`s a filter on the field
/// may use, and which operator `$_type`s name that family.
public enum SearchFieldKind: Sendable, Equatable {
    /// `IdOperator`.
    case id
    /// `StringOperator`.
    case string
    /// `TimestampOperator`.
    case timestamp
    /// `BooleanOperator`.
    case boolean
    /// An enum's operator (`PropertyOwnerTypeOperator`, …): EQUALS, NOT_EQUALS, IN, NOT_IN.
    case enumeration
    /// An enum's operator with EQUALS and NOT_EQUALS only (`VisibilityRuleLabelSelectionOperator`).
    case selection
    /// `IdListOperator`: a list of ids (a conversation's participants), ALL_OF, ANY_OF, ALL_EQUAL.
    case idList

    /// The operator `type`s the vendor's schema allows for the family.
    public var operators: Set<String> {
        switch self {
        case .id: ["EQUALS", "NOT_EQUALS", "IN", "NOT_IN", "IS_NULL", "IS_NOT_NULL", "STARTS_WITH"]
        case .string: ["EQUALS", "NOT_EQUALS", "IN", "NOT_IN", "IS_NULL", "IS_NOT_NULL", "CONTAINS"]
        case .timestamp:
            [
                "EQUALS", "NOT_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_NULL", "LOWER_THAN", "LOWER_THAN_OR_NULL", "IN", "NOT_IN",
                "IS_NULL", "IS_NOT_NULL", "IN_RANGE", "NOT_IN_RANGE",
            ]
        case .boolean: ["EQUALS", "NOT_EQUALS", "IS_NULL", "IS_NOT_NULL"]
        case .enumeration: ["EQUALS", "NOT_EQUALS", "IN", "NOT_IN"]
        case .selection: ["EQUALS", "NOT_EQUALS"]
        case .idList: ["ALL_OF", "ANY_OF", "ALL_EQUAL"]
        }
    }

    /// The family the vendor's field names imply: `ID` and `…_ID` are ids, `…_TIMESTAMP` timestamps;
    /// `nil` for any other name (its schema says).
    public static func implied(by field: String) -> Self? {
        if field == "ID" || field.hasSuffix("_ID") { return .id }
        if field.hasSuffix("TIMESTAMP") { return .timestamp }
        return nil
    }

    /// Whether an operator `$_type` of this family may carry `family` between its type's prefix and
    /// `Operator` (`String`, `Id`, `Timestamp`, `Boolean`, `IdList`, or an enum's name).
    func accepts(family: String) -> Bool {
        switch self {
        case .id: family == "Id"
        case .string: family == "String"
        case .timestamp: family == "Timestamp"
        case .boolean: family == "Boolean"
        case .idList: family == "IdList"
        case .enumeration, .selection: !["Id", "String", "Timestamp", "Boolean", "IdList", ""].contains(family)
        }
    }

    /// Refuses a filter whose operator the family does not allow, or whose `$_type` names another
    /// family (a `GreaterThanTimestampOperator` on a name), so a mistyped query is a 400, never an empty page.
    public func check(_ filter: SearchFilter, at position: Int) throws(CollabError) {
        let type = filter.op.typeName
        guard operators.contains(type) else {
            throw .badRequest(
                "searchFilters[\(position)].operator.type: the \(filter.field) filter does not allow \(type)"
                    + " (it allows \(operators.sorted().joined(separator: ", ")))"
            )
        }
        if let family = filter.operatorFamily, !accepts(family: family) {
            throw .badRequest(
                "searchFilters[\(position)].operator.$_type: the \(filter.field) filter takes \(expectedTypeName(for: type)),"
                    + " not \("AEIOU".contains(family.first ?? "-") ? "an" : "a") \(family) operator"
            )
        }
    }

    private func expectedTypeName(for type: String) -> String {
        let prefix = FilterOperator.typePrefix(type) ?? ""
        switch self {
        case .id: return "\(prefix)IdOperator"
        case .string: return "\(prefix)StringOperator"
        case .timestamp: return "\(prefix)TimestampOperator"
        case .boolean: return "\(prefix)BooleanOperator"
        case .idList: return "\(prefix)IdListOperator"
        case .enumeration, .selection: return "an enum operator (\(prefix)…Operator)"
        }
    }
}

extension FilterOperator {
    /// The start of the vendor's operator `$_type` for an operator `type`: `ContainsStringOperator` starts
    /// with `Contains` for CONTAINS.
    public static func typePrefix(_ type: String) -> String? {
        guard !type.isEmpty, type.allSatisfy({ $0.isUppercase || $0 == "_" }) else { return nil }
        return type.split(separator: "_").map { $0.prefix(1) + $0.dropFirst().lowercased() }.joined()
    }
}
