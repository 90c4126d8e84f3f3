/// Reading the vendor's enumerations (`EConversationEndReason`, `ERegistrationStatus`, …) from the text
/// a request or a seed gives, with the one answer every field gives to a name it does not know.
extension CaseIterable where Self: RawRepresentable, Self.RawValue == String {
    /// The case `text` names.
    /// - Parameters:
    ///   - text: The name as given.
    ///   - field: The field it came in, as the error names it.
    ///   - absent: The case an absent field stands for; `nil`: the field is required.
    /// - Throws: `badRequest` naming `field` and listing every case, for a name of no case (or an absent
    ///   required field).
    public init(parsing text: String?, field: String, absent: Self? = nil) throws(CollabError) {
        let value: Self? = if let text { Self(rawValue: text) } else { absent }
        guard let value else { throw Self.noCase(field: field) }
        self = value
    }

    /// The case an optional field names; `nil` when the field is absent.
    /// - Throws: `badRequest` naming `field` and listing every case, for a name of no case.
    public static func parseIfPresent(_ text: String?, field: String) throws(CollabError) -> Self? {
        guard let text else { return nil }
        return try Self(parsing: text, field: field)
    }

    private static func noCase(field: String) -> CollabError {
        .badRequest("\(field) must be one of \(allCases.map(\.rawValue).joined(separator: ", "))")
    }
}
