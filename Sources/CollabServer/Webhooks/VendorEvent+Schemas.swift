import CollabCore
import CollabWire
import Foundation

extension VendorEvent {
    /// The event `eventType`, its `$_type` the schema ``VendorWebhookEvents/schemas`` names for it.
    init(_ eventType: String, timestamp: Int64, accountId: String?, _ fields: Fields) {
        let type = VendorWebhookEvents.schemas[eventType] ?? ""
        self.init(VendorEventHeader(type: type, timestamp: timestamp, eventType: eventType, accountId: accountId), fields)
    }

    /// The vendor event `eventType` for the domain event `event`: its time and account.
    init(_ eventType: String, of event: DomainEvent, _ fields: Fields) {
        self.init(eventType, timestamp: event.timestamp, accountId: event.accountId, fields)
    }
}

extension VendorEvent where Fields: Encodable {
    /// The body as a webhook delivery carries it.
    var data: Data? { try? JSONBody.encoder.encode(self) }
}
