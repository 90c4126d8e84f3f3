/// A vendor webhook event body: the ``VendorEventHeader`` every event schema starts with, followed by the
/// event's own `fields` in the same JSON object (a ``FlatObject``).
public struct VendorEvent<Fields>: FlatObject {
    /// The members every event carries.
    public var header: VendorEventHeader
    /// The event's own members.
    public var fields: Fields

    /// An event with this header and these fields.
    /// - Parameters:
    ///   - header: Its `$_type`, timestamp, event name and account.
    ///   - fields: Its own fields.
    public init(_ header: VendorEventHeader, _ fields: Fields) {
        self.header = header
        self.fields = fields
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
extension VendorEvent: Encodable where Fields: Encodable {}
extension VendorEvent: Decodable where Fields: Decodable {}
