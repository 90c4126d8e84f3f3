/// A vendor webhook event body: the ``VendorEventHeader`` every event schema starts with, followed by the
/// event's own `fields` in the same JSON object. Each event declares only its fields; the header's and the
/// fields' members read and write as if they were the envelope's own (`event.timestamp`, `event.reason`).
@dynamicMemberLookup
public struct VendorEvent<Fields> {
    public var header: VendorEventHeader
    public var fields: Fields

    public init(_ header: VendorEventHeader, _ fields: Fields) {
        self.header = header
        self.fields = fields
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<VendorEventHeader, Value>) -> Value {
        get { header[keyPath: keyPath] }
        set { header[keyPath: keyPath] = newValue }
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Fields, Value>) -> Value {
        get { fields[keyPath: keyPath] }
        set { fields[keyPath: keyPath] = newValue }
    }
}

/// The members every vendor event schema starts with.
public struct VendorEventHeader: Codable, Sendable, Equatable {
    /// The schema's name, e.g. `ConversationCreatedEvent`.
    public var type: String
    public var timestamp: Int64
    /// The event name, e.g. `conversation.created`.
    public var eventType: String
    /// Absent only from the ping of a global file-upload interceptor, which belongs to no account.
    public var accountId: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId
    }

    public init(type: String, timestamp: Int64, eventType: String, accountId: String?) {
        self.type = type
        self.timestamp = timestamp
        self.eventType = eventType
        self.accountId = accountId
    }
}

extension VendorEvent: Sendable where Fields: Sendable {}

/// The header and the fields write into one JSON object: both use the encoder's keyed container.
extension VendorEvent: Encodable where Fields: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try header.encode(to: encoder)
        try fields.encode(to: encoder)
    }
}

extension VendorEvent: Decodable where Fields: Decodable {
    public init(from decoder: any Decoder) throws {
        self.init(try VendorEventHeader(from: decoder), try Fields(from: decoder))
    }
}
