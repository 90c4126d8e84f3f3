/// Helpers to build field extractors.
extension FieldValue {
    /// A string field, or null when absent.
    public static func of(_ value: String?) -> FieldValue { value.map { .string($0) } ?? .null }
    /// An integer field.
    public static func of(_ value: Int64) -> FieldValue { .int(value) }
    /// A boolean field.
    public static func of(_ value: Bool) -> FieldValue { .bool(value) }
}

/// The searchable fields of each entity, named as in the vendor's `E…SearchFilterField` and
/// `E…OrderByField` enums (plus `ID` and `ACCOUNT_ID` everywhere).
public enum SearchSchemas {
    public static let account = SearchSchema<Account>("Account", [
        "ID": { .of($0.id) },
        "NAME": { .of($0.name) },
        "CREATION_TIMESTAMP": { .of($0.creationTimestamp) },
        "MODIFICATION_TIMESTAMP": { .of($0.modificationTimestamp) },
    ], kinds: ["NAME": .string])

    public static let user = SearchSchema<User>("User", [
        "ID": { .of($0.id) },
        "ACCOUNT_ID": { .of($0.accountId) },
        "USERNAME": { .of($0.username) },
        "EMAIL": { .of($0.email) },
        "FIRST_NAME": { .of($0.firstName) },
        "LAST_NAME": { .of($0.lastName) },
        "TEAM_ID": { .of($0.teamId) },
        "AUTHORIZATION_ROLE": { .of($0.authorizationRole.rawValue) },
        "VIRTUAL_USER": { .of($0.virtualUser) },
        "EXTERNALLY_MANAGED": { .of($0.externallyManaged) },
        "CREATION_TIMESTAMP": { .of($0.creationTimestamp) },
        "MODIFICATION_TIMESTAMP": { .of($0.modificationTimestamp) },
    ], kinds: [
        "USERNAME": .string, "EMAIL": .string, "FIRST_NAME": .string, "LAST_NAME": .string, "AUTHORIZATION_ROLE": .enumeration,
        "VIRTUAL_USER": .boolean, "EXTERNALLY_MANAGED": .boolean,
    ])

    public static let person = SearchSchema<Person>("Person", [
        "ID": { .of($0.id) },
        "ACCOUNT_ID": { .of($0.accountId) },
        "USERNAME": { .of($0.username) },
        "EMAIL": { .of($0.email) },
        "PHONE": { .of($0.phone) },
        "FIRST_NAME": { .of($0.firstName) },
        "LAST_NAME": { .of($0.lastName) },
        "NICKNAME": { .of($0.nickname) },
        "TEAM_ID": { .of($0.teamId) },
        "SOURCE_ID": { .of($0.sourceId) },
        "SOURCE_DATA": { .of($0.sourceData) },
        "PERSON_SOURCE": { .of($0.personSource.rawValue) },
        "PERSON_TYPE": { .of($0.personType.rawValue) },
        "AUTHORIZATION_ROLE": { .of($0.authorizationRole.rawValue) },
        "CREATION_TIMESTAMP": { .of($0.creationTimestamp) },
        "MODIFICATION_TIMESTAMP": { .of($0.modificationTimestamp) },
    ], kinds: [
        "USERNAME": .string, "EMAIL": .string, "PHONE": .string, "FIRST_NAME": .string, "LAST_NAME": .string, "NICKNAME": .string,
        "SOURCE_DATA": .string, "PERSON_SOURCE": .enumeration, "PERSON_TYPE": .enumeration, "AUTHORIZATION_ROLE": .enumeration,
    ])

    public static let conversation = SearchSchema<Conversation>(
        "Conversation", conversationFields.merging(["ACCOUNT_ID": { .of($0.accountId) }]) { shared, _ in shared },
        kinds: conversationKinds, lists: conversationLists
    )

    /// The operator families of the conversation fields whose names do not imply them.
    static let conversationKinds: [String: SearchFieldKind] = [
        "TOPIC": .string, "STATE": .enumeration, "RECIPIENT_TYPE": .enumeration, "INITIAL_ENGAGEMENT_TYPE": .enumeration,
        "END_REASON": .enumeration, "AWAITED_PERSON_TYPE": .enumeration, "VISIBILITY": .enumeration, "LOCALE": .string,
    ]

    /// `PARTICIPANT_PERSON_ID`: everyone who took part, whether or not they left (the `IdListOperator`s).
    static let conversationLists: [String: SearchSchema<Conversation>.ListExtractor] = [
        "PARTICIPANT_PERSON_ID": { $0.participants.map(\.personId) }
    ]

    /// The fields a conversation search and a conversation history search share.
    static let conversationFields: [String: SearchSchema<Conversation>.Extractor] = [
        "ID": { .of($0.id) },
        "TOPIC": { .of($0.topic) },
        "STATE": { .of($0.state.rawValue) },
        "RECIPIENT_ID": { .of($0.recipient.id) },
        "RECIPIENT_TYPE": { .of($0.recipient.type.rawValue) },
        "INITIAL_ENGAGEMENT_TYPE": { .of($0.initialEngagementType.rawValue) },
        "ASSIGNEE_PERSON_ID": { .of($0.assigneePersonId) },
        "CONTEXT_PERSON_ID": { .of($0.contextPersonId) },
        "SOURCE_ID": { .of($0.sourceId) },
        "END_REASON": { .of($0.endReason?.rawValue) },
        "CREATION_TIMESTAMP": { .of($0.creationTimestamp) },
        "END_TIMESTAMP": { $0.endTimestamp.map { .int($0) } ?? .null },
        "SCHEDULED_TIMESTAMP": { $0.scheduledTimestamp.map { .int($0) } ?? .null },
        "AWAITED_PERSON_TYPE": { .of($0.awaitedPersonType.rawValue) },
        "AWAITED_PERSON_TYPE_CHANGE_TIMESTAMP": { .of($0.awaitedPersonTypeChangeTimestamp) },
        "CONVERSATION_TEMPLATE_ID": { .of($0.conversationTemplateId) },
        "EXTERNAL_MESSENGER_CHANNEL_ID": { .of($0.externalMessengerChannelId) },
        "VISIBILITY": { .of(($0.visibility ?? .private).rawValue) },
        "LOCALE": { .of($0.locale) },
        // The mock runs no TokBox sessions: the field is there, and empty, as for a conversation without one.
        "TOKBOX_SESSION_ID": { _ in .null },
    ]

    public static let call = SearchSchema<Call>("Call", [
        "ID": { .of($0.id) },
        "CONVERSATION_ID": { .of($0.conversationId) },
        "INITIATOR_PERSON_ID": { .of($0.initiatorPersonId) },
        "INITIATION_TIMESTAMP": { .of($0.initiationTimestamp) },
        "ACCEPT_TIMESTAMP": { $0.acceptTimestamp.map { .int($0) } ?? .null },
        "END_TIMESTAMP": { $0.endTimestamp.map { .int($0) } ?? .null },
        "ESTABLISHED_TIMESTAMP": { $0.acceptTimestamp.map { .int($0) } ?? .null },
        "SERVICE_PROVIDER_CALL_ID": { .of($0.id) },
        "SERVICE_PROVIDER_TYPE": { $0.serviceProvider.map { .of($0) } ?? .null },
    ], kinds: ["SERVICE_PROVIDER_TYPE": .enumeration])
}
