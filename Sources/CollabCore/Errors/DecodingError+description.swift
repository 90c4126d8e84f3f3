extension DecodingError {
    /// What went wrong and where, in words a client can act on ("persons[2].email is required"),
    /// for the 400 answers to bodies and seeds that do not decode.
    public var readableDescription: String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the body" : String(text.drop { $0 == "." })
        }
        switch self {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) has the wrong type: expected \(Self.describe(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) must not be null: expected \(Self.describe(type))"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let detail = context.underlyingError.map { "\($0)" } ?? context.debugDescription
                return "the request body is not valid JSON or holds a value out of range (\(detail.prefix(200)))"
            }
            return "\(path(context.codingPath)) is invalid: \(context.debugDescription)"
        @unknown default:
            return "the request body could not be decoded"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is Double.Type: return "a number"
        default: return String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
