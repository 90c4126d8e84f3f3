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

    /// The event names a registration may ask for.
    public static let knownEvents: Set<String> = Set(DomainEvent.Kind.allCases.map(\.rawValue)).union([
        "webhook.ping", "push_notification.new_message", "push_notification.incoming_call", "push_notification.missed_call",
        "push_notification.revoke_call", "conversation.call.started", "conversation.call.ended", "*",
        "file_upload_interceptor.file_rejected", "message_interceptor.message_rejected",
    ])
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
        guard let endpoint, endpoint.count <= 2048, endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://"), endpoint.count > "https://".count else {
            throw .badRequest("endpoint must be an http:// or https:// URL")
        }
        guard let events, !events.isEmpty else { throw .badRequest("events must name at least one event") }
        guard events.count <= 100 else { throw .badRequest("events has too many entries") }
        for event in events where !WebhookRegistration.knownEvents.contains(event) {
            throw .badRequest("unknown event '\(event)'")
        }
        if let apiVersion, apiVersion != "V4" { throw .badRequest("apiVersion must be V4") }
        if let secret { guard !secret.isEmpty, secret.count <= 1024 else { throw .badRequest("secret must be 1 to 1024 characters") } }
    }
}

extension WebhookRegistration: StorableEntity {
    public static var kind: EntityKind { .webhookRegistration }
    public var storageAccountId: String? { accountId }
}
