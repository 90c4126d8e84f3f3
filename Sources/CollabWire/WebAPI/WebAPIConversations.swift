/// A conversation recipient (`ConversationRecipientData`): `AccountData`, `NamedAreaData` or `PersonData`.
public struct WebRecipient: Codable, Sendable, Equatable {
    /// `AccountData`, `NamedAreaData`, `PersonData` or `TeamData`.
    public var type: String?
    public var id: String?
    public var accountId: String?
    public var displayName: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, accountId, displayName
    }

    public init(type: String, id: String, accountId: String? = nil, displayName: String? = nil) {
        self.type = type
        self.id = id
        self.accountId = accountId
        self.displayName = displayName
    }
}

/// `ParticipantData`.
public struct WebParticipant: Codable, Sendable, Equatable {
    public var type: String? = "ParticipantData"
    public var state: String?
    public var personId: String?
    public var hidden: Bool?
    public var conversationStarred: Bool?
    public var participationType: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", state, personId, hidden, conversationStarred, participationType
    }

    public init(personId: String, participationType: String, state: String, hidden: Bool) {
        self.personId = personId
        self.participationType = participationType
        self.state = state
        self.hidden = hidden
        self.conversationStarred = false
    }
}

/// `ConversationData`.
public struct WebConversation: WebAPIObject, Equatable {
    public static let typeName = "ConversationData"
    public var type: String? = Self.typeName
    public var id: String?
    public var accountId: String?
    public var creationTimestamp: Int64?
    public var endTimestamp: Int64?
    public var topic: String?
    public var recipient: WebRecipient?
    public var participants: [WebParticipant]?
    public var state: String?
    public var initialEngagementType: String?
    public var conversationVisibility: String?
    public var locale: String?
    public var sourceId: String?
    public var sourceUrl: String?
    public var endReason: String?
    public var awaitedPersonType: String?
    public var awaitedPersonTypeChangeTimestamp: Int64?
    public var scheduledTimestamp: Int64?
    public var metadata: [String: String]?
    public var visitorData: String?
    /// The conversation's own configuration (CONVERSATION scope), with `expand=configuration`.
    public var configuration: [String: String]?
    /// The conversation's texts, with `expand=text`.
    public var text: [String: [String: String]]?
    public var conversationTemplateId: String?
    public var inheritConfigurationAndTexts: Bool?
    public var externalMessengerChannelId: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, accountId, creationTimestamp, endTimestamp, topic, recipient, participants, state, initialEngagementType
        case conversationVisibility, locale, sourceId, sourceUrl, endReason, awaitedPersonType, awaitedPersonTypeChangeTimestamp, scheduledTimestamp
        case metadata, visitorData, configuration, text, conversationTemplateId, inheritConfigurationAndTexts, externalMessengerChannelId
    }

    public init(id: String) { self.id = id }
}

/// `ConversationCreationRecipientData`.
public struct WebCreationRecipient: Codable, Sendable, Equatable {
    public var type: String?
    /// `NAMED_AREA`, `ACCOUNT`, `AGENT` (`TEAM` is not modelled).
    public var recipientType: String?
    public var id: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case recipientType = "type"
        case id
    }

    public init(recipientType: String, id: String) {
        self.type = "ConversationCreationRecipientData"
        self.recipientType = recipientType
        self.id = id
    }
}

/// `ConversationCreationParticipantData`.
public struct WebCreationParticipant: Codable, Sendable, Equatable {
    public var type: String?
    public var personId: String?
    public var hidden: Bool?
    public var conversationStarred: Bool?
    public var participationType: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", personId, hidden, conversationStarred, participationType
    }

    public init(personId: String, participationType: String) {
        self.type = "ConversationCreationParticipantData"
        self.personId = personId
        self.participationType = participationType
    }
}

/// `ConversationCreationData`.
public struct WebConversationCreation: WebAPIObject {
    public static let typeName = "ConversationCreationData"
    public var type: String? = Self.typeName
    public var topic: String?
    public var recipient: WebCreationRecipient?
    public var participants: [WebCreationParticipant]?
    public var initialEngagementType: String?
    public var locale: String?
    public var sourceId: String?
    public var sourceUrl: String?
    public var metadata: [String: String]?
    /// The template to start from (absent: the engagement type's default template, if any).
    public var conversationTemplateId: String?
    /// Whether the conversation follows its template's configuration and texts (absent: the template's flag).
    public var inheritConfigurationAndTexts: Bool?
    public var configuration: [String: String]?
    public var text: [String: [String: String]]?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", topic, recipient, participants, initialEngagementType, locale, sourceId, sourceUrl, metadata
        case conversationTemplateId, inheritConfigurationAndTexts, configuration, text
    }

    public init(
        topic: String? = nil, recipient: WebCreationRecipient? = nil, participants: [WebCreationParticipant]? = nil,
        initialEngagementType: String? = nil
    ) {
        self.topic = topic
        self.recipient = recipient
        self.participants = participants
        self.initialEngagementType = initialEngagementType
    }
}

/// `ConversationsEndBody`.
public struct WebEndBody: Codable, Sendable {
    public var reason: String?
    public var comment: String?
    public init(reason: String? = nil, comment: String? = nil) {
        self.reason = reason
        self.comment = comment
    }
}

/// `ConversationsAddParticipantBody` and `ConversationsSetAssigneePersonBody`.
public struct WebPersonRefBody: Codable, Sendable {
    public var personId: String?
    public var hidden: Bool?
    public var conversationStarred: Bool?
    public init(personId: String, hidden: Bool? = nil) {
        self.personId = personId
        self.hidden = hidden
    }
}

/// `ConversationsSetTopicBody`.
public struct WebTopicBody: Codable, Sendable {
    public var topic: String?
    public init(topic: String?) { self.topic = topic }
}

/// `ConversationStateChangeData`.
public struct WebStateChange: Codable, Sendable, Equatable {
    public var type: String? = "ConversationStateChangeData"
    public var state: String?
    public var timestamp: Int64?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", state, timestamp
    }

    public init(state: String, timestamp: Int64) {
        self.state = state
        self.timestamp = timestamp
    }
}

/// `ParticipantHistoryData`.
public struct WebParticipantHistory: Codable, Sendable, Equatable {
    public var type: String? = "ParticipantHistoryData"
    public var state: String?
    public var joinedTimestamp: Int64?
    public var leftTimestamp: Int64?
    public var hidden: Bool?
    public var participationType: String?
    public var person: WebPerson?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", state, joinedTimestamp, leftTimestamp, hidden, participationType, person
    }

    public init(state: String, joinedTimestamp: Int64, leftTimestamp: Int64?, hidden: Bool, participationType: String, person: WebPerson?) {
        self.state = state
        self.joinedTimestamp = joinedTimestamp
        self.leftTimestamp = leftTimestamp
        self.hidden = hidden
        self.participationType = participationType
        self.person = person
    }
}

/// `ConversationHistoryData`.
public struct WebConversationHistory: WebAPIObject {
    public static let typeName = "ConversationHistoryData"
    public var type: String? = Self.typeName
    public var id: String?
    public var recipient: WebRecipient?
    public var endPerson: WebPerson?
    public var participants: [WebParticipantHistory]?
    public var createdTimestamp: Int64?
    public var assigneeJoinTimestamp: Int64?
    public var endTimestamp: Int64?
    public var lastMessageTimestamp: Int64?
    public var state: String?
    public var initialEngagementType: String?
    public var locale: String?
    public var endReason: String?
    public var endComment: String?
    public var topic: String?
    public var sourceUrl: String?
    public var stateChanges: [WebStateChange]?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, recipient, endPerson, participants, createdTimestamp, assigneeJoinTimestamp, endTimestamp, lastMessageTimestamp
        case state, initialEngagementType, locale, endReason, endComment, topic, sourceUrl, stateChanges
    }

    public init(id: String) { self.id = id }
}

/// `BotPostMessage` with a `TextPostMessageData`.
public struct WebBotPostMessage: WebAPIObject {
    public static let typeName = "BotPostMessage"
    public var type: String? = Self.typeName
    public var conversationId: String?
    public var senderPersonId: String?
    public var recipientPersonIds: [String]?
    public var `internal`: Bool?
    public var messageData: MessageData?

    /// `PostMessageData`; only `TextPostMessageData` is accepted.
    public struct MessageData: Codable, Sendable {
        public var type: String?
        public var messageType: String?
        public var text: String?
        public var fallbackText: String?

        enum CodingKeys: String, CodingKey {
            case type = "$_type"
            case messageType = "type"
            case text, fallbackText
        }

        public init(text: String) {
            self.type = "TextPostMessageData"
            self.messageType = "TEXT"
            self.text = text
        }
    }

    enum CodingKeys: String, CodingKey {
        case type = "$_type", conversationId, senderPersonId, recipientPersonIds, `internal`, messageData
    }

    public init(conversationId: String, senderPersonId: String, text: String) {
        self.conversationId = conversationId
        self.senderPersonId = senderPersonId
        self.messageData = MessageData(text: text)
    }
}

/// `SendMessageResult`.
public struct WebSendMessageResult: WebAPIObject {
    public static let typeName = "SendMessageResult"
    public var type: String? = Self.typeName
    public var messageId: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", messageId
    }

    public init(messageId: String) { self.messageId = messageId }
}

/// `AgentAvailabilityStateData`.
public struct WebAgentAvailability: WebAPIObject {
    public static let typeName = "AgentAvailabilityStateData"
    public var type: String? = Self.typeName
    /// `AVAILABLE`, `BUSY` or `UNAVAILABLE`.
    public var availabilityState: String?
    public var isAvailable: Bool?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", availabilityState, isAvailable
    }

    public init(availabilityState: String, isAvailable: Bool) {
        self.availabilityState = availabilityState
        self.isAvailable = isAvailable
    }
}

/// `PersonStateData`: `AgentPersonStateData` or `VisitorPersonStateData`.
public struct WebPersonState: Codable, Sendable, Equatable {
    public var type: String?
    public var personId: String?
    /// `ONLINE`, `OFFLINE` or `AWAY`.
    public var onlineState: String?
    /// `AGENT` or `VISITOR`.
    public var personType: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", personId, onlineState
        case personType = "type"
    }

    public init(personId: String, onlineState: String, agent: Bool) {
        self.type = agent ? "AgentPersonStateData" : "VisitorPersonStateData"
        self.personId = personId
        self.onlineState = onlineState
        self.personType = agent ? "AGENT" : "VISITOR"
    }
}

/// `CallParticipation`.
public struct WebCallParticipation: Codable, Sendable, Equatable {
    public var type: String? = "CallParticipation"
    public var accountId: String?
    public var personId: String?
    public var ringingTimestamp: Int64?
    public var joinedTimestamp: Int64?
    public var leftTimestamp: Int64?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", accountId, personId, ringingTimestamp, joinedTimestamp, leftTimestamp
    }

    public init(accountId: String, personId: String, ringingTimestamp: Int64?, joinedTimestamp: Int64?, leftTimestamp: Int64?) {
        self.accountId = accountId
        self.personId = personId
        self.ringingTimestamp = ringingTimestamp
        self.joinedTimestamp = joinedTimestamp
        self.leftTimestamp = leftTimestamp
    }
}

/// `Call`.
public struct WebCall: WebAPIObject, Equatable {
    public static let typeName = "Call"
    public var type: String? = Self.typeName
    public var id: String?
    public var creationTimestamp: Int64?
    public var accountId: String?
    public var conversationId: String?
    public var initiatorPersonId: String?
    /// `AUDIO` or `VIDEO`.
    public var callType: String?
    public var initiationTimestamp: Int64?
    public var acceptTimestamp: Int64?
    public var establishedTimestamp: Int64?
    public var endTimestamp: Int64?
    /// The vendor's `ECallEndReason`.
    public var endReason: String?
    public var participations: [WebCallParticipation]?
    /// The call's id at its service provider (the mock's call id: media is not simulated).
    public var serviceProviderCallId: String?
    /// The vendor's `ECallServiceProvider`: `OPENTOK`, `LIVEKIT` or `ACS`.
    public var serviceProviderType: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, creationTimestamp, accountId, conversationId, initiatorPersonId, callType, initiationTimestamp, acceptTimestamp
        case establishedTimestamp, endTimestamp, endReason, participations, serviceProviderCallId, serviceProviderType
    }

    public init(
        id: String, accountId: String, conversationId: String, initiatorPersonId: String, callType: String, creationTimestamp: Int64,
        initiationTimestamp: Int64, acceptTimestamp: Int64?, establishedTimestamp: Int64?, endTimestamp: Int64?, endReason: String?,
        participations: [WebCallParticipation]
    ) {
        self.id = id
        self.accountId = accountId
        self.conversationId = conversationId
        self.initiatorPersonId = initiatorPersonId
        self.callType = callType
        self.creationTimestamp = creationTimestamp
        self.initiationTimestamp = initiationTimestamp
        self.acceptTimestamp = acceptTimestamp
        self.establishedTimestamp = establishedTimestamp
        self.endTimestamp = endTimestamp
        self.endReason = endReason
        self.participations = participations
    }
}
