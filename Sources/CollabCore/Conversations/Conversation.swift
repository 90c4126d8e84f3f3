import Foundation
public import CollabWire

/// Where a conversation is routed: a named area's queue, the account-wide queue, or one agent.
public struct ConversationRecipient: Sendable, Codable, Equatable, Hashable {
    public var type: RecipientType
    /// The named area's, account's or agent person's id.
    public var id: String

    public init(type: RecipientType, id: String) {
        self.type = type
        self.id = id
    }
}

/// One person's part in a conversation.
public struct Participation: Sendable, Codable, Equatable {
    public var personId: String
    public var type: ParticipationType
    public var state: ParticipationState = .active
    public var hidden: Bool = false
    public var joinedTimestamp: Timestamp
    public var leftTimestamp: Timestamp?
    /// The vendor's `EConversationLeftReason`, when the participation was offboarded with one.
    public var leftReason: String?
    /// Whether the participant starred the conversation (`setStarred`; absent: not starred).
    public var starred: Bool?
}

extension Participation {
    /// An active, shown participation of `personId` from `joinedTimestamp` on.
    public init(personId: String, type: ParticipationType, joinedTimestamp: Timestamp) {
        self.personId = personId
        self.type = type
        self.joinedTimestamp = joinedTimestamp
    }
}

/// A state the conversation entered, and when.
public struct ConversationStateChange: Sendable, Codable, Equatable {
    public var state: ConversationState
    public var timestamp: Timestamp
    public init(state: ConversationState, timestamp: Timestamp) {
        self.state = state
        self.timestamp = timestamp
    }
}

/// A conversation between visitors and agents, routed through a queue.
public struct Conversation: Sendable, Codable, Equatable, Identifiable {
    public var id: String
    public var accountId: String
    public var topic: String?
    public var state: ConversationState
    public var recipient: ConversationRecipient
    public var initialEngagementType: EngagementType
    public var participants: [Participation]
    public var creationTimestamp: Timestamp
    /// When the conversation (last) entered the queue; orders the queue.
    public var queuedTimestamp: Timestamp?
    public var assigneeJoinTimestamp: Timestamp?
    public var endTimestamp: Timestamp?
    public var endReason: EndReason?
    public var endComment: String?
    public var endPersonId: String?
    public var lastMessageTimestamp: Timestamp?
    /// Every message, agents' internal notes included (the per-conversation cap counts these).
    public var messageCount: Int
    /// The messages every participant sees, internal notes left out: what a conversation view counts,
    /// so a visitor cannot tell that notes were written, nor when. `nil` in state stored before it was
    /// kept (``messageCount`` stands in).
    public var publicMessageCount: Int?
    /// When the last message every participant sees was posted.
    public var lastPublicMessageTimestamp: Timestamp?

    /// What a conversation view shows as the message count: the public one, or for state stored
    /// before it was kept, every message.
    public var shownMessageCount: Int { publicMessageCount ?? messageCount }
    /// What a conversation view shows as the last message's time, as ``shownMessageCount``.
    public var shownLastMessageTimestamp: Timestamp? { publicMessageCount == nil ? lastMessageTimestamp : lastPublicMessageTimestamp }
    /// Agents who declined this request; they no longer see it in their queue.
    public var declinedBy: [String]
    public var stateChanges: [ConversationStateChange]
    public var sourceId: String?
    public var sourceUrl: String?
    public var locale: String?
    public var metadata: [String: String]?
    /// Custom data the visitor side may read (`setVisitorData`); never anything confidential.
    public var visitorData: String?
    /// Who may see the conversation (`setVisibility`; absent: PRIVATE).
    public var visibility: ConversationVisibility?
    /// The awaited person type a caller set (`setAwaitedPersonType`), which holds while the
    /// conversation stays in the state it was set in (see ``awaitedPersonType``).
    public var awaitedOverride: AwaitedOverride?
    /// When a SCHEDULED_CONVERSATION is scheduled for (whole minutes).
    public var scheduledTimestamp: Timestamp?
    /// The CONVERSATION scope of the configuration cascade (`updateConfiguration`).
    public var configuration: [String: String]?
    /// Texts by key and locale (`updateText`).
    public var text: [String: [String: String]]?
    /// Recordings, oldest first; the last one may still be running (see ``ConversationRecording``).
    public var recordings: [ConversationRecording]?
    /// The template the conversation was created from (see ``ConversationTemplate``).
    public var conversationTemplateId: String?
    /// Whether the conversation follows its template's configuration and texts: then ``configuration``
    /// and ``text`` hold only its own values, over the template's current ones
    /// (``AccountState/inheritedTemplate(of:)``); otherwise they hold the copy made at creation.
    public var inheritConfigurationAndTexts: Bool?
    /// The external messenger channel the conversation runs over (``ExternalMessenger``).
    public var externalMessengerChannelId: String?

    public init(
        id: String, accountId: String, topic: String?, recipient: ConversationRecipient, initialEngagementType: EngagementType,
        creationTimestamp: Timestamp
    ) {
        self.id = id
        self.accountId = accountId
        self.topic = topic
        self.state = .created
        self.recipient = recipient
        self.initialEngagementType = initialEngagementType
        self.participants = []
        self.creationTimestamp = creationTimestamp
        self.messageCount = 0
        self.declinedBy = []
        self.stateChanges = [ConversationStateChange(state: .created, timestamp: creationTimestamp)]
    }

    /// Whether `personId` takes part hidden (its latest participation is hidden): a visitor is not
    /// shown it, nor told what it does.
    public func isHiddenParticipant(_ personId: String) -> Bool {
        participants.last { $0.personId == personId }?.hidden == true
    }

    /// The assigned agent's person id, if any.
    public var assigneePersonId: String? {
        participants.first { $0.type == .assignedAgent && $0.state != .ended }?.personId
    }

    /// The visitor the conversation is about, if any.
    public var contextPersonId: String? {
        participants.first { $0.type == .contextPerson }?.personId
    }

    /// A set awaited person type and the state it was set in.
    public struct AwaitedOverride: Sendable, Codable, Equatable {
        public var type: AwaitedPersonType
        public var state: ConversationState
        public var timestamp: Timestamp
    }

    /// The person type the conversation waits for: the one set with `setAwaitedPersonType` while the
    /// conversation is still in the state it was set in, else what the state implies (an agent while
    /// it waits in a queue or onboarding, nobody otherwise).
    public var awaitedPersonType: AwaitedPersonType {
        if let awaitedOverride, awaitedOverride.state == state { return awaitedOverride.type }
        switch state {
        case .queued, .unassigned, .onboarding, .created: return .agent
        default: return .none
        }
    }

    /// When ``awaitedPersonType`` last changed: when it was set, else when the state changed.
    public var awaitedPersonTypeChangeTimestamp: Timestamp {
        if let awaitedOverride, awaitedOverride.state == state { return awaitedOverride.timestamp }
        return stateChanges.last?.timestamp ?? creationTimestamp
    }

    /// The recording still running, if any.
    public var runningRecording: ConversationRecording? {
        recordings?.last.flatMap { $0.endTimestamp == nil ? $0 : nil }
    }

    /// Whether `personId` takes part (and has not left).
    public func isParticipant(_ personId: String) -> Bool {
        participants.contains { $0.personId == personId && $0.state != .ended }
    }

    /// Everyone who takes part and has not left.
    public var activeParticipantIds: [String] {
        participants.filter { $0.state != .ended }.map(\.personId)
    }

    /// Moves to `next`, recording the change.
    /// - Throws: `conflict` for a transition the state machine does not allow.
    public mutating func move(to next: ConversationState, at timestamp: Timestamp) throws(CollabError) {
        guard state.canMove(to: next) else {
            throw .conflict("conversation \(id) cannot move from \(state.rawValue) to \(next.rawValue)")
        }
        state = next
        stateChanges.append(ConversationStateChange(state: next, timestamp: timestamp))
        // The first change (CREATED) stays; past the bound the oldest after it go.
        if stateChanges.count > ConversationLimits.stateChanges {
            stateChanges.removeSubrange(1...(stateChanges.count - ConversationLimits.stateChanges))
        }
        if next == .queued { queuedTimestamp = timestamp }
    }
}

/// A text message in a conversation.
public struct ConversationMessage: Sendable, Codable, Equatable, Identifiable {
    public var id: String
    public var accountId: String
    public var conversationId: String
    /// Position in the conversation, from 1: clients page and resume by it.
    public var sequence: Int
    public var senderPersonId: String
    public var text: String
    /// When the server stored the message.
    public var serverTimestamp: Timestamp
    /// An id the sender chose, to make retries idempotent.
    public var clientMessageId: String?
    /// Agent-only message, hidden from visitors.
    public var isInternal: Bool = false
    /// The file of a FILE message (`text` then holds its name, the fallback text).
    public var file: FileAttachment?
    /// When its recipient marked it delivered (`bots/dialogMessageDelivered`, an external messenger's
    /// `messageDelivered`).
    public var deliveredTimestamp: Timestamp?
    /// When its recipient marked it read (`bots/dialogMessageRead`, an external messenger's `messageRead`).
    public var readTimestamp: Timestamp?
    /// Whether the external messenger channel of its conversation could send it on to its contacts.
    public var externalSendState: ExternalSendState?
    /// A dialog bot's question (`TEXT_QUESTION`, `MULTICHOICE_QUESTION`, `RATING_QUESTION`).
    public var question: BotQuestion?

    /// The longest message text accepted.
    public static let maximumLength = 16 * 1024

    /// Checks a message's text (not only white space, at most ``maximumLength`` bytes of UTF-8) and
    /// the sender's own id for it, before anything is changed.
    static func check(text: String, clientMessageId: String?) throws(CollabError) {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .badRequest("text must not be empty") }
        guard text.utf8.count <= maximumLength else {
            throw CollabError(.payloadTooLarge, "text is longer than \(maximumLength) bytes")
        }
        try Limits.checkOptional(clientMessageId, field: "clientMessageId")
    }
}

/// A question a dialog bot asked (the vendor's question messages): pending until canceled
/// (`bots/cancelPendingQuestion`, `cancelPendingDialogQuestions`).
public struct BotQuestion: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        case pending = "PENDING"
        case canceled = "CANCELED"
    }

    /// `EPostMessageType` of the question.
    public var type: String
    public var state: State = .pending

    /// The question types a bot may send.
    public static let types: Set<String> = ["TEXT_QUESTION", "MULTICHOICE_QUESTION", "RATING_QUESTION"]
}
