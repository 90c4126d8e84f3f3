import HTTPTypes

extension HTTPFields {
    /// The value of the field `name`: the one field's value as it came when the request has exactly one,
    /// else what the subscript answers (every value joined, `nil` for none). Cheaper than the subscript
    /// for the usual single field, which it would join through a lazy sequence.
    func single(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return self[name] }
            found = field.value
        }
        return found
    }
}
