import CollabCore
import Foundation

/// A vendor webhook event body: the header every event schema starts with (`$_type`, the schema
/// ``VendorWebhookEvents/schemas`` names for the event, then `timestamp`, `eventType` and `accountId`),
/// followed by the event's own `fields` in the same JSON object. Each event type declares only its fields.
struct VendorEvent<Fields: Encodable>: Encodable {
    var eventType: String
    var timestamp: Int64
    var accountId: String
    var fields: Fields

    init(_ eventType: String, timestamp: Int64, accountId: String, _ fields: Fields) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.accountId = accountId
        self.fields = fields
    }

    /// The vendor event `eventType` for the domain event `event`: its time and account.
    init(_ eventType: String, of event: DomainEvent, _ fields: Fields) {
        self.init(eventType, timestamp: event.timestamp, accountId: event.accountId, fields)
    }

    /// The body as a webhook delivery carries it.
    var data: Data? { try? JSONBody.encoder.encode(self) }

    private enum HeaderKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId
    }

    func encode(to encoder: any Encoder) throws {
        var header = encoder.container(keyedBy: HeaderKeys.self)
        try header.encode(VendorWebhookEvents.schemas[eventType] ?? "", forKey: .type)
        try header.encode(timestamp, forKey: .timestamp)
        try header.encode(eventType, forKey: .eventType)
        try header.encode(accountId, forKey: .accountId)
        // The fields' keyed container is the same JSON object as the header's.
        try fields.encode(to: encoder)
    }
}
