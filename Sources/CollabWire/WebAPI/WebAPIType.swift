/// A Web API v4 object with a `$_type` discriminator.
public protocol WebAPIObject: Codable, Sendable {
    /// The value of `$_type` for this object.
    static var typeName: String { get }
    /// The `$_type` the object carries; requests may omit it, responses always set it.
    var type: String? { get }
}

extension WebAPIObject {
    /// Whether the object's `$_type` is absent or the expected one.
    public var hasExpectedType: Bool { type == nil || type == Self.typeName }
}

/// A JSON scalar inside a search operator (`value` / `values`).
public enum JSONScalar: Codable, Sendable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int64.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
