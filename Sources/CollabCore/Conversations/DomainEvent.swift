public import CollabWire
/// Something that happened, for live clients and webhooks. Emitted by state operations alongside their
/// durable changes and published only after those are stored.
public struct DomainEvent: Sendable, Equatable {
    /// The vendor's webhook event names where one exists.
    public enum Kind: String, Sendable, Codable, CaseIterable, NamedCases {
        case conversationCreated = "conversation.created"
        case conversationOnboarding = "conversation.onboarding"
        case conversationQueued = "conversation.queued"
        case conversationActive = "conversation.active"
        case conversationUnassigned = "conversation.unassigned"
        case conversationRequeued = "conversation.requeued"
        case conversationReboarding = "conversation.reboarding"
        case conversationOffboarding = "conversation.offboarding"
        case conversationEnded = "conversation.ended"
        case conversationUpdated = "conversation.updated"
        case conversationDeleted = "conversation.deleted"
        case newMessage = "conversation.new_message"
        /// A message was marked delivered or read (``message``; `detail`: `state`, `personId`).
        case messageState = "conversation.message_state"
        /// A stored message changed otherwise (a bot's question canceled; live only).
        case messageUpdated = "conversation.message_updated"
        /// A dialog bot started or stopped typing (live only; `detail`: `personId`, `typing`).
        case typingChanged = "conversation.typing"
        /// The app should show the collaboration UI (an incoming call or a co-browsing request while in the
        /// foreground with the UI closed).
        case uiVisibilityRequest = "ui.visibility_request"
        /// The app should hide the collaboration UI (a layer activated, or the user's collapse action).
        case uiHideRequest = "ui.hide_request"
        /// An error the client reports through its delegate (`detail`: `errorType`, `fatal`, `reason`,
        /// `message`): the access token it started with expired or was revoked. Sent to that client only,
        /// which the server then disconnects.
        case clientError = "client.error"
        case agentPresenceChanged = "agent.presence_changed"
        case callStarted = "conversation.call.started"
        case callAnswered = "conversation.call.answered"
        case callEnded = "conversation.call.ended"
        case coBrowsingRequested = "cobrowsing.requested"
        case coBrowsingStarted = "cobrowsing.started"
        case coBrowsingEnded = "cobrowsing.ended"
        // Webhook-only events (see ``isWebhookOnly``): no live client receives them.
        case participationCreated = "conversation.participation.created"
        case participationActivated = "conversation.participation.activated"
        case participationLeft = "conversation.participation.left"
        case participationHidden = "conversation.participation.hidden"
        case participationUnhidden = "conversation.participation.unhidden"
        /// A participation changed its type (a new context person).
        case participationUpdated = "conversation.participation.updated"
        case awaitedPersonTypeChanged = "conversation.awaitedpersontype_changed"
        /// A recording started (the conversation's last recording).
        case recordingStarted = "conversation.recording_started"
        /// A recording stopped and its metadata is available (the conversation's last recording).
        case recordingAvailable = "conversation.recording_available"
        /// An account, API key, named area, user or person was created, updated or deleted (``entity``).
        case entityModified = "entity.modified"
        /// An invitation was created, renewed, redeemed or revoked (``invitation``, ``detail``["action"]).
        case invitationChanged = "invitation.changed"
        /// A person's notification controls changed (``entity`` holds the person).
        case notificationControlsChanged = "notification_controls.changed"
        /// A dialog bot took its onboarding offer (``detail``["dialogToken"]): the bot is told (`bot.dialog.opened`).
        case botDialogOpened = "bot.dialog.opened"
        /// An open bot dialog ended (``detail``["dialogToken"]): the bot is told (`bot.dialog.closed`).
        case botDialogClosed = "bot.dialog.closed"
    }

    public var kind: Kind
    public var accountId: String
    public var timestamp: Timestamp
    /// The conversation after the change.
    public var conversation: Conversation?
    public var message: ConversationMessage?
    /// Persons who must receive the event (participants, the addressed visitor).
    public var personIds: Set<String>
    /// Queue recipients whose agents must receive the event (the conversation is or was in their queue).
    public var queueRecipients: Set<ConversationRecipient>
    /// Agents-only events (internal messages, presence).
    public var agentsOnly: Bool
    /// Free-form detail (the reason of a visibility request, a presence value).
    public var detail: [String: String]
    /// The call after the change, for call events.
    public var call: Call?
    /// The participation that changed, for participation events.
    public var participation: Participation?
    /// The entity that changed, for ``Kind/entityModified``.
    public var entity: EntityChange?
    /// The invitation after the change, for ``Kind/invitationChanged``.
    public var invitation: Invitation?
    /// Shown names of the conversation's participants as the commit left them (``Person/shownName``, by
    /// person id), filled in by ``EffectResolver/named(_:in:)`` under the account's lock for events live
    /// clients receive; `nil` before that, and for events without a conversation.
    public var participantNames: [String: String]?
    /// The public id of the one client the event is for (a hide request the user asked for, a client
    /// error): other connections of the same person do not receive it.
    public var clientId: String?

    /// Events no live client receives (only webhooks and bots do): they take no live id, stay out of the
    /// replay window and out of a cluster's change log.
    public var isWebhookOnly: Bool {
        switch kind {
        case .participationCreated, .participationActivated, .participationLeft, .participationHidden, .participationUnhidden, .participationUpdated,
            .entityModified, .invitationChanged, .notificationControlsChanged, .botDialogOpened, .botDialogClosed, .awaitedPersonTypeChanged,
            .recordingStarted, .recordingAvailable: true
        // The mock passes through these states within one operation; live clients see where it lands.
        case .conversationOnboarding, .conversationOffboarding: true
        default: false
        }
    }

    public init(
        kind: Kind, accountId: String, timestamp: Timestamp, conversation: Conversation? = nil, message: ConversationMessage? = nil,
        personIds: Set<String> = [], queueRecipients: Set<ConversationRecipient> = [], agentsOnly: Bool = false, detail: [String: String] = [:]
    ) {
        self.kind = kind
        self.accountId = accountId
        self.timestamp = timestamp
        self.conversation = conversation
        self.message = message
        self.personIds = personIds
        self.queueRecipients = queueRecipients
        self.agentsOnly = agentsOnly
        self.detail = detail
    }
}

/// Events travel in the replicated change log (see ``ReplicatedChange``).
extension DomainEvent: Codable {}
