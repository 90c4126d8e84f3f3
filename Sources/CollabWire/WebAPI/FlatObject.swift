/// A vendor object whose JSON is one object: the members of a header every schema of its family starts
/// with, followed by the members of the schema's own `fields`. A schema declares only its fields; the
/// header's and the fields' members read and write as if they were the object's own
/// (`event.timestamp`, `apiKey.name`). ``VendorEvent`` and ``WebEntity`` are the two families.
@dynamicMemberLookup
public protocol FlatObject {
    /// The members the family's schemas start with.
    associatedtype Header
    /// The members of one schema.
    associatedtype Fields

    /// The family's members.
    var header: Header { get set }
    /// The schema's own members.
    var fields: Fields { get set }

    /// The object with these members.
    /// - Parameters:
    ///   - header: The family's members.
    ///   - fields: The schema's own members.
    init(_ header: Header, _ fields: Fields)
}

extension FlatObject {
    /// A member of the header, read and written as the object's own.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Header, Value>) -> Value {
        get { header[keyPath: keyPath] }
        set { header[keyPath: keyPath] = newValue }
    }

    /// A member of the fields, read and written as the object's own.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Fields, Value>) -> Value {
        get { fields[keyPath: keyPath] }
        set { fields[keyPath: keyPath] = newValue }
    }

    /// A computed member of the fields (read only).
    public subscript<Value>(dynamicMember keyPath: KeyPath<Fields, Value>) -> Value {
        fields[keyPath: keyPath]
    }
}

/// The header and the fields write into one JSON object: both use the encoder's keyed container.
extension FlatObject where Header: Encodable, Fields: Encodable {
    /// Writes the header's members, then the fields', into one object.
    public func encode(to encoder: any Encoder) throws {
        try header.encode(to: encoder)
        try fields.encode(to: encoder)
    }
}

extension FlatObject where Header: Decodable, Fields: Decodable {
    /// Reads the header and the fields from the same object.
    public init(from decoder: any Decoder) throws {
        self.init(try Header(from: decoder), try Fields(from: decoder))
    }
}
