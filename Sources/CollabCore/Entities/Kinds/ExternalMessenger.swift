public import CollabWire

/// An external messenger channel (`CustomExternalMessengerChannel`, `SmsExternalMessengerChannel`: one
/// kind, told apart by `type`). A CUSTOM channel is an integration that posts its contacts' messages with
/// `externalmessengers/{channelId}/sendMessage` and receives the agents' replies at its
/// `webhookEndpoint` (signed with `webhookSecret`, like webhooks) while its `webhookStatus` is ACTIVE.
/// The mock keeps SMS channels' settings; it sends no SMS.
public struct ExternalMessenger: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    /// An `Avatar` id or object, kept as sent.
    public var channelIcon: JSONValue?
    public var sourceId: String?
    public var type: String?
    public var webhookEndpoint: String?
    public var webhookApiVersion: String?
    public var webhookSecret: String?
    public var webhookStatus: String?
    public var messageStateHandledExternally: Bool?
    public var outboundSupported: Bool?
    public var outboundTimeoutMillis: Int64?
    public var contactIdentifierFieldName: String?
    public var contactIdentifierFieldType: String?
    public var contactIdentifierTranslations: [String: JSONValue]?
    public var twilioAccountSid: String?
    public var twilioAuthToken: String?
    public var phoneNumber: String?
    public var inboundTemplateName: String?
    public var recipientType: String?
    public var recipientName: String?
    public var active: Bool?
    public var supportsMultipleConversationsPerContact: Bool?
    public var metadata: [String: String]?

    /// `type` → the schema of that variant (WhatsApp and Facebook channels are not modelled).
    public static let variants = ["CUSTOM": "CustomExternalMessengerChannel", "SMS": "SmsExternalMessengerChannel"]

    /// Whether replies go to the channel's endpoint.
    public var delivers: Bool { type == "CUSTOM" && webhookStatus == "ACTIVE" && !(webhookEndpoint ?? "").isEmpty }

    public static let declaration = EntityDeclaration<ExternalMessenger>(
        typeName: "ExternalMessengerChannel", path: "externalmessengers", idParameter: "channelId", seedKey: "externalMessengers",
        operations: EntityOperations(create: .admin, read: .registeredUser, update: .admin, delete: .admin, search: .admin, getByName: .admin),
        fields: [
            .creationTimestamp, .modificationTimestamp, .name("NAME", ordered: true) { $0.name }, .enumeration("TYPE") { $0.type },
            .name("CONTACT_IDENTIFIER_FIELD_NAME") { $0.contactIdentifierFieldName },
            .enumeration("CONTACT_IDENTIFIER_FIELD_TYPE") { $0.contactIdentifierFieldType }, .name("ACCOUNT_SID") { $0.twilioAccountSid },
            .name("PHONE_NUMBER") { $0.phoneNumber },
        ],
        uniqueName: .name("NAME") { $0.name },
        rules: EntityRules(
            validate: { channel, _, _ throws(CollabError) in try channel.check() },
            complete: { channel, _ in
                if channel.type == "CUSTOM" {
                    if channel.webhookStatus == nil { channel.webhookStatus = "ACTIVE" }
                    if channel.webhookApiVersion == nil { channel.webhookApiVersion = "V4" }
                    if channel.outboundTimeoutMillis == nil { channel.outboundTimeoutMillis = 5000 }
                }
                if channel.supportsMultipleConversationsPerContact == nil { channel.supportsMultipleConversationsPerContact = false }
            }
        ),
        secrets: EntitySecrets(
            redact: { channel in
                var redacted = channel
                redacted.webhookSecret = channel.webhookSecret == nil ? nil : ""
                redacted.twilioAuthToken = channel.twilioAuthToken == nil ? nil : ""
                return redacted
            },
            renew: { channel, makeSecret in
                var renewed = channel
                if renewed.webhookSecret == "" { renewed.webhookSecret = makeSecret() }
                if renewed.twilioAuthToken == "" { renewed.twilioAuthToken = makeSecret() }
                return renewed
            },
            keep: { draft, current in
                var kept = draft
                if kept.webhookSecret == nil { kept.webhookSecret = current.webhookSecret }
                if kept.twilioAuthToken == nil { kept.twilioAuthToken = current.twilioAuthToken }
                return kept
            }
        ),
        wireType: { variants[$0.type ?? ""] ?? "CustomExternalMessengerChannel" },
        // Any agent reads a channel: its secrets are accepted, used and never shown (an update without them keeps them).
        storedOnly: ["webhookSecret", "twilioAuthToken"]
    )

    func check() throws(CollabError) {
        try Limits.check(type, field: "type", oneOf: ["CUSTOM", "SMS"], required: true)
        try Limits.check(name, field: "name", max: 250, required: true)
        try Limits.check(description, field: "description", max: 500)
        try Limits.check(sourceId, field: "sourceId", max: Limits.nameLength)
        try Limits.checkProperties(metadata, field: "metadata")
        guard type == "CUSTOM" else {
            try Limits.check(phoneNumber, field: "phoneNumber", max: 50)
            try Limits.check(recipientType, field: "recipientType", oneOf: RecipientType.allCases.map(\.rawValue))
            return
        }
        try Limits.check(webhookEndpoint, field: "webhookEndpoint", max: 4000, required: true)
        guard let endpoint = webhookEndpoint, endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
            throw .badRequest("webhookEndpoint must be an http or https URL")
        }
        try Limits.check(webhookApiVersion, field: "webhookApiVersion", oneOf: ["V2", "V3", "V4"])
        try Limits.check(webhookStatus, field: "webhookStatus", oneOf: ["ACTIVE", "INACTIVE"])
        try Limits.check(webhookSecret, field: "webhookSecret", max: 4000)
        try Limits.check(contactIdentifierFieldName, field: "contactIdentifierFieldName", max: 250)
        try Limits.check(contactIdentifierFieldType, field: "contactIdentifierFieldType", oneOf: ["EMAIL", "PHONE", "TEXT"])
        guard let timeout = outboundTimeoutMillis, (1...600_000).contains(timeout) else {
            throw .badRequest("outboundTimeoutMillis must be between 1 and 600000")
        }
    }
}

/// A user of an external messenger, linked to a person (`ExternalMessengerContact`): the contact's
/// messages are posted as that person, in conversations bound to the contact's channel. One contact per
/// channel and `sourceId`.
public struct ExternalMessengerContact: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    public var externalMessengerChannelId: String?
    public var sourceId: String?
    public var personId: String?

    public static let declaration = EntityDeclaration<ExternalMessengerContact>(
        typeName: "ExternalMessengerContact", path: "externalmessengercontacts", idParameter: "externalMessengerContactId",
        seedKey: "externalMessengerContacts",
        operations: EntityOperations(
            create: .registeredUser, read: .registeredUser, update: .registeredUser, delete: .registeredUser, search: .admin, readMultiple: .admin
        ),
        fields: [
            .creationTimestamp, .id("EXTERNAL_MESSENGER_CHANNEL_ID") { $0.externalMessengerChannelId }, .modificationTimestamp,
            .name("NAME", ordered: true) { $0.name }, .id("PERSON_ID") { $0.personId },
            // The vendor's SourceIdExternalMessengerContactSearchFilter takes a StringOperator, its ID filter an IdOperator.
            .name("SOURCE_ID") { $0.sourceId }, EntityField("ID", .id) { .string($0.id) },
        ],
        naturalKey: { ($0.externalMessengerChannelId ?? "") + "/" + ($0.sourceId ?? "") },
        // The vendor's schema has no version: updates replace the contact as sent.
        versioned: false,
        rules: EntityRules(validate: { contact, _, state throws(CollabError) in try contact.check(in: state) })
    )

    func check(in state: borrowing AccountState) throws(CollabError) {
        try Limits.check(name, field: "name", max: 250)
        try Limits.check(description, field: "description", max: 500)
        try Limits.check(sourceId, field: "sourceId", max: Limits.nameLength, required: true)
        guard let channelId = externalMessengerChannelId, state.declared.table(ExternalMessenger.self)[channelId] != nil else {
            throw .badRequest("externalMessengerChannelId must name an external messenger channel of this account")
        }
        if let personId, !personId.isEmpty, state.persons[personId]?.accountId != state.accountId {
            throw .badRequest("personId must name a person of this account")
        }
        let contacts = state.declared.table(ExternalMessengerContact.self)
        if contacts.ids("SOURCE_ID", sourceId ?? "").contains(where: { $0 != id && contacts[$0]?.externalMessengerChannelId == channelId }) {
            throw .conflict("the channel already has a contact with sourceId '\(sourceId ?? "")'")
        }
    }
}
