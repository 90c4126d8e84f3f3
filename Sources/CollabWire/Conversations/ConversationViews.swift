/// A conversation as the mobile and agent APIs show it.
public struct ConversationView: Codable, Sendable, Equatable {
    public struct Recipient: Codable, Sendable, Equatable {
        /// `NAMED_AREA`, `ACCOUNT` or `AGENT`.
        public var type: String
        public var id: String
        public init(type: String, id: String) {
            self.type = type
            self.id = id
        }
    }

    public struct Participant: Codable, Sendable, Equatable {
        public var personId: String
        /// `ASSIGNED_AGENT`, `CONTEXT_PERSON`, `SECONDARY_AGENT` or `SECONDARY_VISITOR`.
        public var type: String
        /// `ACTIVE` or `ENDED` (and the vendor's other participation states).
        public var state: String
        public var displayName: String?
        /// `true` for a hidden participant (a secondary agent or bot the visitor does not see); absent
        /// otherwise. Only agents' views list hidden participants.
        public var hidden: Bool?
        public init(personId: String, type: String, state: String, displayName: String? = nil, hidden: Bool? = nil) {
            self.personId = personId
            self.type = type
            self.state = state
            self.displayName = displayName
            self.hidden = hidden
        }
    }

    public var id: String
    public var topic: String?
    /// The vendor's `EConversationState`.
    public var state: String
    public var recipient: Recipient
    /// The vendor's `EInitialEngagementType`.
    public var engagementType: String
    /// Everyone who takes or took part; a visitor's view leaves hidden participants out.
    public var participants: [Participant]
    public var assigneePersonId: String?
    public var contextPersonId: String?
    public var createdAt: Int64
    public var queuedAt: Int64?
    public var endedAt: Int64?
    public var endReason: String?
    /// The person who ended the conversation; absent while it goes on, or when the server ended it.
    public var endedBy: String?
    /// The messages every participant sees; agents' internal notes are not counted.
    public var messageCount: Int
    /// When the last message every participant sees was posted.
    public var lastMessageAt: Int64?

    public init(
        id: String, topic: String?, state: String, recipient: Recipient, engagementType: String, participants: [Participant],
        assigneePersonId: String?, contextPersonId: String?, createdAt: Int64, queuedAt: Int64?, endedAt: Int64?, endReason: String?,
        messageCount: Int, lastMessageAt: Int64?, endedBy: String? = nil
    ) {
        self.id = id
        self.topic = topic
        self.state = state
        self.recipient = recipient
        self.engagementType = engagementType
        self.participants = participants
        self.assigneePersonId = assigneePersonId
        self.contextPersonId = contextPersonId
        self.createdAt = createdAt
        self.queuedAt = queuedAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.endedBy = endedBy
        self.messageCount = messageCount
        self.lastMessageAt = lastMessageAt
    }
}

/// A text message.
public struct MessageView: Codable, Sendable, Equatable {
    public var id: String
    public var conversationId: String
    /// Position in the conversation, from 1.
    public var sequence: Int
    public var senderPersonId: String
    public var text: String
    public var timestamp: Int64
    public var clientMessageId: String?
    /// Agent-only message.
    public var `internal`: Bool
    /// The file of a FILE message (`text` is then its name).
    public var file: FileView?
    /// When the recipient (a dialog bot, an external messenger) marked the message delivered.
    public var deliveredAt: Int64?
    /// When the recipient (a dialog bot, an external messenger) marked the message read.
    public var readAt: Int64?
    /// A bot's question: `PENDING` until answered or `CANCELED`.
    public var questionState: String?
    /// Whether the external messenger channel could send the message on: `SENT` or `SEND_FAILED`.
    public var externalSendState: String?
    /// When the channel reported ``externalSendState``.
    public var externalSendStateAt: Int64?
    /// For `SEND_FAILED`: `RETRYABLE` or `TERMINAL`, when the channel said.
    public var externalSendFailState: String?
    /// For `SEND_FAILED`: the channel's reason, when it gave one.
    public var externalSendFailureText: String?

    public init(
        id: String, conversationId: String, sequence: Int, senderPersonId: String, text: String, timestamp: Int64, clientMessageId: String?,
        internal: Bool, file: FileView? = nil, deliveredAt: Int64? = nil, readAt: Int64? = nil, questionState: String? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.sequence = sequence
        self.senderPersonId = senderPersonId
        self.text = text
        self.timestamp = timestamp
        self.clientMessageId = clientMessageId
        self.internal = `internal`
        self.file = file
        self.deliveredAt = deliveredAt
        self.readAt = readAt
        self.questionState = questionState
    }
}

/// A page of messages.
public struct MessagePage: Codable, Sendable {
    public var messages: [MessageView]
    public var hasMore: Bool
    public init(messages: [MessageView], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

/// Sends a text message.
public struct SendMessageRequest: Codable, Sendable {
    public var text: String
    /// Makes retries idempotent: the same id returns the stored message.
    public var clientMessageId: String?
    /// Agent-only message (agents only).
    public var `internal`: Bool?
    public init(text: String, clientMessageId: String? = nil, internal: Bool? = nil) {
        self.text = text
        self.clientMessageId = clientMessageId
        self.internal = `internal`
    }
}

/// Ends a conversation.
public struct EndConversationRequest: Codable, Sendable {
    /// The vendor's `EConversationEndReason`; `ENDED_BY_PARTICIPANT` when absent.
    public var reason: String?
    public var comment: String?
    public init(reason: String? = nil, comment: String? = nil) {
        self.reason = reason
        self.comment = comment
    }
}

/// A person as the mobile and agent APIs show it.
public struct PersonView: Codable, Sendable, Equatable {
    public var id: String
    /// `VISITOR` or `AGENT`.
    public var type: String
    public var displayName: String?
    public var sourceId: String
    public init(id: String, type: String, displayName: String?, sourceId: String) {
        self.id = id
        self.type = type
        self.displayName = displayName
        self.sourceId = sourceId
    }
}

/// The typed error body of the mobile and agent APIs. `type` mirrors the SDK's client error types.
public struct APIErrorBody: Codable, Sendable, Equatable, Error {
    /// `AUTHORIZATION`, `INVALID_API_KEY`, `BAD_REQUEST`, `FORBIDDEN`, `NOT_FOUND`, `CONFLICT`,
    /// `PAYLOAD_TOO_LARGE`, `REQUEST_TIMEOUT`, `RATE_LIMITED`, `UNAVAILABLE` or `INTERNAL`.
    public var type: String
    public var message: String
    public var status: Int
    public init(type: String, message: String, status: Int) {
        self.type = type
        self.message = message
        self.status = status
    }
}

/// An agent invitation or forwarding addressed to the calling agent (`GET /agent/v1/invitations`).
public struct AgentInvitationView: Codable, Sendable, Equatable {
    public var id: String
    /// `AGENT_INVITATION`, `AGENT_FORWARDING`, `DEPUTY_INVITATION` (the agent is a deputy delegated to) or
    /// `ASSIGNMENT_REQUEST` (a requeued conversation addressed to the agent or its team; taken by accepting
    /// the invitation or the conversation).
    public var type: String
    public var conversationId: String
    public var comment: String?
    public var createdAt: Int64

    public init(id: String, type: String, conversationId: String, comment: String?, createdAt: Int64) {
        self.id = id
        self.type = type
        self.conversationId = conversationId
        self.comment = comment
        self.createdAt = createdAt
    }
}

/// `GET /agent/v1/invitations`.
public struct AgentInvitationList: Codable, Sendable, Equatable {
    public var invitations: [AgentInvitationView]
    public init(invitations: [AgentInvitationView]) { self.invitations = invitations }
}
