/// A webhook registration: where to POST which events of an account, signed with which secret.
public struct WebhookRegistration: Sendable, Codable, Equatable, Identifiable {
    /// `ERegistrationStatus`.
    public enum Status: String, Sendable, Codable, CaseIterable {
        case active = "ACTIVE"
        case inactive = "INACTIVE"
        case inactiveUnavailable = "INACTIVE_UNAVAILABLE"
    }

    public var id: String
    public var accountId: String
    public var name: String
    public var description: String?
    public var status: Status
    /// The `http(s)` URL events are posted to.
    public var endpoint: String
    /// `EWebApiVersion`; MockCollab speaks V4.
    public var apiVersion: String
    /// The HMAC key of `x-unblu-signature-256`.
    public var secret: String
    /// Event names (`conversation.created`, …) the endpoint wants.
    public var events: [String]
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64

    public init(
        id: String, accountId: String, name: String, description: String?, status: Status, endpoint: String, apiVersion: String = "V4", secret: String,
        events: [String], creationTimestamp: Timestamp, modificationTimestamp: Timestamp, version: Int64 = 1
    ) {
        self.id = id
        self.accountId = accountId
        self.name = name
        self.description = description
        self.status = status
        self.endpoint = endpoint
        self.apiVersion = apiVersion
        self.secret = secret
        self.events = events
        self.creationTimestamp = creationTimestamp
        self.modificationTimestamp = modificationTimestamp
        self.version = version
    }

    /// Whether the registration wants `eventName`.
    public func wants(_ eventName: String) -> Bool {
        status == .active && (events.contains(eventName) || events.contains("*"))
    }

    /// The event names a registration may ask for: every name in the vendor spec's callbacks, and `*`.
    public static let knownEvents: Set<String> = Set(VendorWebhookEvents.schemas.keys).union(["*"])

    /// Names earlier MockCollab versions used where the vendor has its own, translated on registration
    /// (the registration stores and shows the vendor's name).
    public static let legacyEventNames: [String: String] = [
        "webhook.ping": "ping", "conversation.call.started": "conversation.call.initiated", "conversation.call.answered": "conversation.call.accepted",
    ]

    /// `events` with legacy names translated and duplicates removed, in their order.
    public static func vendorEventNames(_ events: [String]) -> [String] {
        var seen: Set<String> = []
        return events.map { legacyEventNames[$0] ?? $0 }.filter { seen.insert($0).inserted }
    }
}

/// The editable fields of a webhook registration.
public struct WebhookRegistrationInput: Sendable {
    public var name: String?
    public var description: String?
    public var status: WebhookRegistration.Status?
    public var endpoint: String?
    public var apiVersion: String?
    public var secret: String?
    public var events: [String]?

    public init(
        name: String? = nil, description: String? = nil, status: WebhookRegistration.Status? = nil, endpoint: String? = nil, apiVersion: String? = nil,
        secret: String? = nil, events: [String]? = nil
    ) {
        self.name = name
        self.description = description
        self.status = status
        self.endpoint = endpoint
        self.apiVersion = apiVersion
        self.secret = secret
        self.events = events
    }

    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        try Limits.checkOutbound(
            endpoint: endpoint, endpointField: "endpoint", apiVersion: apiVersion, apiVersionField: "apiVersion", secret: secret, secretField: "secret"
        )
        guard let events, !events.isEmpty else { throw .badRequest("events must name at least one event") }
        // Every entry must be a known name, so once repeats are folded the list holds at most every name
        // there is (the vendor's 115 events and `*`): a registration may ask for all of them. The list as
        // sent is bounded by the request body's size.
        for event in events where !WebhookRegistration.knownEvents.contains(WebhookRegistration.legacyEventNames[event] ?? event) {
            throw .badRequest("unknown event '\(event)': use an event name of the vendor's Web API v4 callbacks, or '*'")
        }
        let names = WebhookRegistration.vendorEventNames(events)
        guard names.count <= WebhookRegistration.knownEvents.count else {
            throw .badRequest("events names \(names.count) events; there are \(WebhookRegistration.knownEvents.count)")
        }
    }
}

extension WebhookRegistration: StorableEntity {
    public static var kind: EntityKind { .webhookRegistration }
    public var storageAccountId: String? { accountId }
}
