public import CollabWire
/// A webhook registration (`WebhookRegistration`): where to POST which events of an account, signed
/// with which secret. Dispatch finds the registrations that want an event through the `EVENT` index.
public struct WebhookRegistration: DeclaredEntity {
    /// `ERegistrationStatus`.
    public enum Status: String, Sendable, Codable, CaseIterable, NamedCases {
        case active = "ACTIVE"
        case inactive = "INACTIVE"
        case inactiveUnavailable = "INACTIVE_UNAVAILABLE"
    }

    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    /// ACTIVE when a new registration leaves it out; an update without it keeps it.
    public var status: Status?
    /// The `http(s)` URL events are posted to.
    public var endpoint: String?
    /// `EWebApiVersion`; MockCollab speaks V4.
    public var apiVersion: String?
    /// The HMAC key of `x-unblu-signature-256`: generated when a new registration has none, kept when an
    /// update leaves it out. Admins of the account read it.
    public var secret: String?
    /// Event names (`conversation.created`, …, or `*`) the endpoint wants, in the vendor's names.
    public var events: [String]?

    /// A registration as a seed or test builds it; the layer sets its id, account and timestamps.
    public init(name: String, endpoint: String, events: [String], secret: String? = nil, status: Status? = nil, description: String? = nil) {
        (id, accountId, creationTimestamp) = ("", "", 0)
        (self.name, self.endpoint, self.events) = (name, endpoint, events)
        (self.secret, self.status, self.description) = (secret, status, description)
    }

    /// Registrations one account may have.
    public static let maxPerAccount = 1_000

    public static let declaration = EntityDeclaration<WebhookRegistration>(
        typeName: "WebhookRegistration", path: "webhookregistrations", idParameter: "registrationId", seedKey: "webhookRegistrations",
        operations: EntityOperations(
            create: .admin, read: .admin, update: .admin, delete: .admin, search: .admin, readMultiple: .admin, getByName: .admin
        ),
        fields: [
            .creationTimestamp, .text("DESCRIPTION") { $0.description }, .text("ENDPOINT") { $0.endpoint }, .modificationTimestamp,
            .name("NAME", ordered: true) { $0.name }, .enumeration("STATUS", filterable: false) { $0.status?.rawValue },
            .enumeration("API_VERSION", filterable: false) { $0.apiVersion }, .list("EVENT") { $0.events ?? [] },
        ],
        uniqueName: .name("NAME") { $0.name },
        maxPerAccount: maxPerAccount,
        rules: EntityRules(
            validate: { registration, _, _ throws(CollabError) in try registration.check() },
            complete: { registration, _ in
                registration.status = registration.status ?? .active
                registration.apiVersion = registration.apiVersion ?? "V4"
                registration.events = registration.events.map(Self.vendorEventNames)
            },
            // An update names the registration's name, description, endpoint and events; status and secret
            // left out keep their current value.
            merge: EntityRules.keepingOmitted(replaced: ["name", "description", "endpoint", "events"]),
            prepareCreate: { registration, _, _, context in
                if registration.secret == nil { registration.secret = context.ids.makeSecret() }
            }
        ),
        legacyKind: .webhookRegistration,
        // The signing secret is the admins' to read, not an audit entry's to keep once it changes.
        auditView: EntityAuditView { registration in
            var kept = registration
            kept.secret = nil
            return kept
        }
    )

    /// Whether the registration wants `eventName`.
    public func wants(_ eventName: String) -> Bool {
        guard status == .active, let events else { return false }
        return events.contains(eventName) || events.contains("*")
    }

    func check() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        try Limits.checkOutbound(
            endpoint: endpoint, endpointField: "endpoint", apiVersion: apiVersion, apiVersionField: "apiVersion", secret: secret,
            secretField: "secret"
        )
        guard let events, !events.isEmpty else { throw .badRequest("events must name at least one event") }
        // Every entry must be a known name, so once repeats are folded the list holds at most every name
        // there is (the vendor's events and `*`): a registration may ask for all of them.
        for event in events where !Self.knownEvents.contains(Self.legacyEventNames[event] ?? event) {
            throw .badRequest("unknown event '\(event)': use an event name of the vendor's Web API v4 callbacks, or '*'")
        }
    }

    /// The event names a registration may ask for: every name in the vendor spec's callbacks, and `*`.
    public static let knownEvents: Set<String> = Set(VendorWebhookEvents.schemas.keys).union(["*"])

    /// Names earlier MockCollab versions used where the vendor has its own, translated on registration
    /// (the registration stores and shows the vendor's name).
    public static let legacyEventNames: [String: String] = [
        "webhook.ping": "ping", "conversation.call.started": "conversation.call.initiated",
        "conversation.call.answered": "conversation.call.accepted",
    ]

    /// `events` with legacy names translated and duplicates removed, in their order.
    public static func vendorEventNames(_ events: [String]) -> [String] {
        var seen: Set<String> = []
        return events.map { legacyEventNames[$0] ?? $0 }.filter { seen.insert($0).inserted }
    }
}

extension AccountState {
    /// The account's webhook registrations.
    public var webhooks: EntityTable<WebhookRegistration> { declared.table(WebhookRegistration.self) }

    /// The active registrations of an account that want `eventName` (an index lookup of the event and
    /// of `*`).
    public func webhooks(accountId: String, wanting eventName: String) -> [WebhookRegistration] {
        guard accountId == self.accountId else { return [] }
        let webhooks = webhooks
        let ids = webhooks.ids("EVENT", eventName).union(webhooks.ids("EVENT", "*"))
        return ids.compactMap { webhooks[$0] }.filter { $0.wants(eventName) }.sorted { $0.id < $1.id }
    }
}
