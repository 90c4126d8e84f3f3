/// `WebhookRegistration`.
public typealias WebWebhookRegistration = WebEntity<WebWebhookRegistrationFields>

/// The fields of `WebhookRegistration` after the ``WebEntityHeader``.
public struct WebWebhookRegistrationFields: WebEntityFields, Equatable {
    public static let typeName = "WebhookRegistration"
    public var name: String?
    /// `ACTIVE`, `INACTIVE` or `INACTIVE_UNAVAILABLE`.
    public var status: String?
    public var description: String?
    public var endpoint: String?
    public var apiVersion: String?
    public var secret: String?
    public var events: [String]?
}

extension WebWebhookRegistration {
    /// A webhook registration to create.
    public init(name: String? = nil, endpoint: String? = nil, events: [String]? = nil, secret: String? = nil) {
        self.init(WebWebhookRegistrationFields(name: name, endpoint: endpoint, secret: secret, events: events))
    }
}

/// `TextMessageData`, as webhook events carry it.
public struct WebTextMessage: Codable, Sendable, Equatable {
    public var type: String? = "TextMessageData"
    public var id: String?
    public var conversationId: String?
    public var accountId: String?
    public var senderPerson: WebPerson?
    public var serverTimestamp: Int64?
    public var sendTimestamp: Int64?
    public var messageType: String?
    public var fallbackText: String?
    public var `internal`: Bool?
    public var text: String?
    public var textType: String?
    /// `FileMessageData` fields, set for FILE messages.
    public var fileName: String?
    public var mimeType: String?
    public var fileStoreId: String?
    public var fileStatus: String?
    public var totalSize: Int64?
    public var uploadedSize: Int64?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, conversationId, accountId, senderPerson, serverTimestamp, sendTimestamp
        case messageType = "type"
        case fallbackText, `internal`, text, textType
        case fileName, mimeType, fileStoreId, fileStatus, totalSize, uploadedSize
    }

    public init(id: String, conversationId: String, accountId: String, senderPerson: WebPerson?, timestamp: Int64, text: String, internal: Bool) {
        self.id = id
        self.conversationId = conversationId
        self.accountId = accountId
        self.senderPerson = senderPerson
        self.serverTimestamp = timestamp
        self.sendTimestamp = timestamp
        self.messageType = "TEXT"
        self.fallbackText = text
        self.internal = `internal`
        self.text = text
        self.textType = "SIMPLE_TEXT"
    }
}

/// The body of a webhook delivery: the vendor's `…Event` schemas (`ConversationCreatedEvent`,
/// `ConversationNewMessageEvent`, `ConversationEndedEvent`, `WebhookPingEvent`, …).
public typealias WebhookEventBody = VendorEvent<WebhookEventFields>

/// The fields of ``WebhookEventBody`` after the ``VendorEvent`` header.
public struct WebhookEventFields: Codable, Sendable {
    public var conversation: WebConversation?
    public var conversationMessage: WebTextMessage?
    public var endReason: String?
    public var endPerson: WebPerson?
    public var endComment: String?
    public var webhookConfiguration: WebWebhookRegistration?
    /// The call of a `conversation.call.*` event (its id is a UUID), in its state after the event.
    public var call: WebCall?

    public init() {}
}

/// The headers of a webhook delivery.
public enum WebhookHeaders {
    /// The event name, e.g. `conversation.created`.
    public static let event = "x-unblu-event"
    /// Lower-case hex HMAC-SHA256 of the raw body, keyed with the registration's secret.
    public static let signature = "x-unblu-signature-256"
    /// A unique id per delivery (retries of one delivery share it).
    public static let delivery = "x-unblu-delivery"
    /// The attempt number, from 1.
    public static let attempt = "x-mock-collab-attempt"
}

/// One webhook delivery as the control API reports it.
public struct WebhookDelivery: Codable, Sendable, Equatable {
    public struct Attempt: Codable, Sendable, Equatable {
        public var timestamp: Int64
        /// The HTTP status, when the endpoint answered.
        public var status: Int?
        public var error: String?
        public var durationMillis: Int64
        /// The fault rule (`WEBHOOK_FAILURE`) that answered this attempt in the endpoint's place, if one did.
        public var faultRuleId: String?
        public init(timestamp: Int64, status: Int?, error: String?, durationMillis: Int64) {
            self.timestamp = timestamp
            self.status = status
            self.error = error
            self.durationMillis = durationMillis
        }
    }

    public var deliveryId: String
    public var registrationId: String
    public var accountId: String
    public var eventType: String
    public var endpoint: String
    /// `PENDING`, `DELIVERED`, `FAILED`, or `DROPPED` (never sent: a queue was full, see ``reason``).
    public var state: String
    public var attempts: [Attempt]
    public var createdAt: Int64
    public var bodyBytes: Int
    /// Why a `DROPPED` delivery was never sent.
    public var reason: String?

    public init(
        deliveryId: String, registrationId: String, accountId: String, eventType: String, endpoint: String, state: String, attempts: [Attempt],
        createdAt: Int64, bodyBytes: Int
    ) {
        self.deliveryId = deliveryId
        self.registrationId = registrationId
        self.accountId = accountId
        self.eventType = eventType
        self.endpoint = endpoint
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.bodyBytes = bodyBytes
    }
}

/// The control API's delivery log page.
public struct WebhookDeliveryPage: Codable, Sendable {
    public var deliveries: [WebhookDelivery]
    public init(deliveries: [WebhookDelivery]) { self.deliveries = deliveries }
}
