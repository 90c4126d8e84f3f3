/// A vendor webhook event body: the header every event schema starts with (`$_type`, `timestamp`,
/// `eventType`, `accountId`), followed by the event's own `fields` in the same JSON object. Each event
/// declares only its fields; they read and write as if they were the envelope's own (`event.reason`).
@dynamicMemberLookup
public struct VendorEvent<Fields> {
    /// The schema's name, e.g. `ConversationCreatedEvent`.
    public var type: String
    public var timestamp: Int64
    /// The event name, e.g. `conversation.created`.
    public var eventType: String
    /// Absent only from the ping of a global file-upload interceptor, which belongs to no account.
    public var accountId: String?
    public var fields: Fields

    public init(type: String, eventType: String, timestamp: Int64, accountId: String?, fields: Fields) {
        self.type = type
        self.eventType = eventType
        self.timestamp = timestamp
        self.accountId = accountId
        self.fields = fields
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Fields, Value>) -> Value {
        get { fields[keyPath: keyPath] }
        set { fields[keyPath: keyPath] = newValue }
    }
}

extension VendorEvent: Sendable where Fields: Sendable {}

extension VendorEvent {
    private enum HeaderKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId
    }
}

extension VendorEvent: Encodable where Fields: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var header = encoder.container(keyedBy: HeaderKeys.self)
        try header.encode(type, forKey: .type)
        try header.encode(timestamp, forKey: .timestamp)
        try header.encode(eventType, forKey: .eventType)
        try header.encodeIfPresent(accountId, forKey: .accountId)
        // The fields' keyed container is the same JSON object as the header's.
        try fields.encode(to: encoder)
    }
}

extension VendorEvent: Decodable where Fields: Decodable {
    public init(from decoder: any Decoder) throws {
        let header = try decoder.container(keyedBy: HeaderKeys.self)
        type = try header.decode(String.self, forKey: .type)
        timestamp = try header.decode(Int64.self, forKey: .timestamp)
        eventType = try header.decode(String.self, forKey: .eventType)
        accountId = try header.decodeIfPresent(String.self, forKey: .accountId)
        fields = try Fields(from: decoder)
    }
}
