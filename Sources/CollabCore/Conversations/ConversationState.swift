public import CollabWire
/// The vendor's `EConversationState`, with the transitions the server allows.
///
/// ```
/// CREATED → ONBOARDING → QUEUED → ACTIVE → OFFBOARDING → ENDED
///                          ↑  ↓      ↓ ↑
///                          UNASSIGNED  REBOARDING
/// ```
/// Every state but ENDED may end directly; an ACTIVE or UNASSIGNED conversation may be requeued. A
/// conversation whose assignee left is UNASSIGNED; the visitor's next message reboards it
/// (UNASSIGNED → REBOARDING → QUEUED, the vendor's rule).
public enum ConversationState: String, Sendable, Codable, CaseIterable, NamedCases {
    case created = "CREATED"
    case onboarding = "ONBOARDING"
    case reboarding = "REBOARDING"
    case queued = "QUEUED"
    case active = "ACTIVE"
    case unassigned = "UNASSIGNED"
    case offboarding = "OFFBOARDING"
    case ended = "ENDED"

    /// The states this state may move to.
    public var successors: Set<ConversationState> {
        switch self {
        case .created: [.onboarding, .ended]
        case .onboarding: [.queued, .active, .unassigned, .ended]
        case .queued: [.active, .ended]
        case .active: [.unassigned, .reboarding, .queued, .offboarding, .ended]
        case .unassigned: [.queued, .active, .reboarding, .offboarding, .ended]
        case .reboarding: [.queued, .active, .offboarding, .ended]
        case .offboarding: [.ended]
        case .ended: []
        }
    }

    /// Whether the conversation may move to `next`.
    public func canMove(to next: ConversationState) -> Bool { successors.contains(next) }

    /// Whether messages can still be exchanged.
    public var acceptsMessages: Bool { self != .ended && self != .offboarding }
}

/// `EConversationRealParticipationType`.
public enum ParticipationType: String, Sendable, Codable, CaseIterable, NamedCases {
    case assignedAgent = "ASSIGNED_AGENT"
    case contextPerson = "CONTEXT_PERSON"
    case secondaryAgent = "SECONDARY_AGENT"
    case secondaryVisitor = "SECONDARY_VISITOR"
}

/// `EConversationParticipationState`.
public enum ParticipationState: String, Sendable, Codable, CaseIterable, NamedCases {
    case created = "CREATED"
    case onboarding = "ONBOARDING"
    case active = "ACTIVE"
    case offboarding = "OFFBOARDING"
    case ended = "ENDED"
}

/// `EConversationRecipientType`.
public enum RecipientType: String, Sendable, Codable, CaseIterable, NamedCases {
    case namedArea = "NAMED_AREA"
    case account = "ACCOUNT"
    case agent = "AGENT"
    /// A team's queue: its agents and the agents of its parent teams see it (``AccountState/queueTeams(ofAgent:)``).
    case team = "TEAM"
}

/// `EInitialEngagementType`: how a conversation started.
public enum EngagementType: String, Sendable, Codable, CaseIterable, NamedCases {
    case chatRequest = "CHAT_REQUEST"
    case offlineChatRequest = "OFFLINE_CHAT_REQUEST"
    case videoRequest = "VIDEO_REQUEST"
    case audioRequest = "AUDIO_REQUEST"
    case mobileCobrowsingRequest = "MOBILE_COBROWSING_REQUEST"
    case chatInvite = "CHAT_INVITE"
    case scheduledConversation = "SCHEDULED_CONVERSATION"
}

/// `EConversationEndReason`.
public enum EndReason: String, Sendable, Codable, CaseIterable, NamedCases {
    case endedByParticipant = "ENDED_BY_PARTICIPANT"
    case mandatoryParticipantGone = "MANDATORY_PARTICIPANT_GONE"
    case requestDeclined = "REQUEST_DECLINED"
    case requestNotAnswered = "REQUEST_NOT_ANSWERED"
    case externalChannelClosed = "EXTERNAL_CHANNEL_CLOSED"
    case solvedByBot = "SOLVED_BY_BOT"
    case canceled = "CANCELED"
    case callEnded = "CALL_ENDED"
    case noAgentAvailable = "NO_AGENT_AVAILABLE"
    case other = "OTHER"
}

/// `EConversationVisibility`: who may see a conversation.
public enum ConversationVisibility: String, Sendable, Codable, CaseIterable, NamedCases {
    /// Only its participants.
    case `private` = "PRIVATE"
    /// Its participants and the agents the account's rules let see its context.
    case ruleBased = "RULE_BASED"
}

/// `EAwaitedPersonType`: whom a conversation waits for.
public enum AwaitedPersonType: String, Sendable, Codable, CaseIterable, NamedCases {
    case none = "NONE"
    case visitor = "VISITOR"
    case agent = "AGENT"
}
