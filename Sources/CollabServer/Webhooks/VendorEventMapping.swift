import CollabCore
import CollabWire
import Foundation

/// The vendor's formats (see ``VendorFormats``): which of the vendor's webhook events a domain event
/// stands for, and their bodies in the vendor's schemas. One domain event can be several vendor events:
/// an answered call is `conversation.call.accepted`, `conversation.call.established` (the mock has no media
/// negotiation, so a call is established when it is accepted) and `conversation.call.participant.joined`
/// for the person who answered. Called at commit, under the account's lock, by the ``EffectResolver``.
struct VendorEventMapping: VendorFormats {
    func webhookEventNames(for event: DomainEvent) -> [String] {
        switch event.kind {
        case .conversationCreated, .conversationOnboarding, .conversationQueued, .conversationActive, .conversationUnassigned, .conversationRequeued,
            .conversationReboarding, .conversationOffboarding, .conversationEnded, .conversationUpdated, .newMessage, .participationCreated,
            .participationActivated, .participationLeft, .participationHidden, .participationUnhidden, .participationUpdated, .messageState,
            .awaitedPersonTypeChanged, .recordingStarted, .recordingAvailable:
            [event.kind.rawValue]
        case .callStarted: ["conversation.call.initiated", "conversation.call.participant.joined"]
        case .callAnswered: ["conversation.call.accepted", "conversation.call.established", "conversation.call.participant.joined"]
        case .callEnded: ["conversation.call.participant.left", "conversation.call.ended"]
        case .entityModified: event.entity.map { [$0.entity.eventName] } ?? []
        case .invitationChanged: event.invitation.flatMap { invitationEventName($0, action: event.detail["action"] ?? "") }.map { [$0] } ?? []
        case .agentPresenceChanged, .notificationControlsChanged: ["agent_person_state.changed"]
        // Live-only, or for a dialog bot only: the vendor has no webhook for these.
        case .conversationDeleted, .uiVisibilityRequest, .uiHideRequest, .clientError, .coBrowsingRequested, .coBrowsingStarted, .coBrowsingEnded,
            .typingChanged, .botDialogOpened, .botDialogClosed, .messageUpdated:
            []
        }
    }

    func webhookBodies(for event: DomainEvent, wanted: Set<String>, in state: borrowing AccountState) -> [(name: String, body: Data)] {
        var result: [(name: String, body: Data)] = []
        func add(_ name: String, _ body: some Encodable) {
            guard wanted.contains(name), let data = try? JSONBody.encoder.encode(body) else { return }
            result.append((name, data))
        }
        /// The vendor event `name` with its header and `fields`.
        func add(_ name: String, fields: some Encodable) { add(name, VendorEvent(name, of: event, fields)) }
        switch event.kind {
        case .callStarted, .callAnswered, .callEnded:
            guard let call = event.call else { return [] }
            let base = CallEventFields(call: call)
            switch event.kind {
            case .callStarted:
                add("conversation.call.initiated", fields: base)
                add("conversation.call.participant.joined", fields: base.participantJoined(call.initiatorPersonId, at: call.initiationTimestamp))
            case .callAnswered:
                add("conversation.call.accepted", fields: base.accepted(call))
                add("conversation.call.established", fields: base.accepted(call).established(call))
                if let personId = event.detail["personId"] {
                    add("conversation.call.participant.joined", fields: base.participantJoined(personId, at: event.timestamp))
                }
            default:
                for participation in call.participations where participation.joinedTimestamp != nil {
                    add("conversation.call.participant.left", fields: base.participantLeft(participation, call: call))
                }
                add("conversation.call.ended", fields: base.accepted(call).established(call).ended(call))
            }
        case .participationCreated, .participationActivated, .participationLeft, .participationHidden, .participationUnhidden, .participationUpdated:
            guard let participation = event.participation, let conversation = event.conversation else { return [] }
            let person = state.persons[participation.personId].map { WebPerson($0, expand: Expansion()) }
            add(event.kind.rawValue, fields: ParticipationEventFields(participation: participation, conversation: conversation, person: person))
        case .messageState:
            // `EMessageState` has DELIVERED and READ only: an external messenger's send reports stay live events.
            guard let message = event.message, let value = event.detail["state"], AccountState.MessageState(rawValue: value) != nil else { return [] }
            add(event.kind.rawValue, fields: MessageStateEventFields(messageId: message.id, state: value, conversationId: message.conversationId))
        case .recordingStarted, .recordingAvailable:
            guard let conversation = event.conversation, let recording = conversation.recordings?.last else { return [] }
            add(event.kind.rawValue, fields: RecordingEventFields(event: event, conversationId: conversation.id, recording: recording))
        case .entityModified:
            guard let change = event.entity else { return [] }
            add(change.entity.eventName, fields: EntityModificationEventFields(change: change))
        case .agentPresenceChanged, .notificationControlsChanged:
            let person: Person? =
                if case .person(let changed)? = event.entity?.entity { changed } else { event.personIds.first.flatMap { state.persons[$0] } }
            guard let person else { return [] }
            var personState = WebAgentPersonState(person, now: event.timestamp)
            personState.onlineState = state.presence(of: person.id).rawValue
            add("agent_person_state.changed", fields: AgentPersonStateChangedFields(personState: personState))
        case .invitationChanged:
            guard let invitation = event.invitation else { return [] }
            let action = event.detail["action"] ?? ""
            guard let name = invitationEventName(invitation, action: action) else { return [] }
            let creator = invitation.creatorPersonId.flatMap { state.persons[$0] }.map { WebPerson($0, expand: Expansion()) }
            let redeemer = invitation.redeemingPersonId.flatMap { state.persons[$0] }.map { WebPerson($0, expand: Expansion()) }
            var body = InvitationEventFields(
                invitationId: invitation.id, conversation: event.conversation.map { state.webConversation($0) }, token: invitation.token,
                creationTimestamp: invitation.createdTimestamp, creatorPerson: creator,
                expirationTimestamp: invitation.kind == .pin || invitation.kind == .visitorLink ? invitation.expirationTimestamp : nil
            )
            if invitation.kind == .agentInvitation || invitation.kind == .agentForwarding {
                body.comment = invitation.comment
                body.target = invitation.targetId.flatMap { state.invitationTarget(type: invitation.targetType, id: $0) }
                if invitation.kind == .agentInvitation { body.joinHidden = invitation.joinHidden }
            }
            if invitation.kind == .visitorLink { body.nickname = invitation.nickname }
            if action == "redeemed" { body.redeemingPerson = redeemer }
            add(name, fields: body)
        default:
            for name in webhookEventNames(for: event) { add(name, WebhookPayloads.body(for: event, state: state)) }
        }
        return result
    }
}

/// The fields of `AgentPersonStateChangedEvent`: presence or notification controls of an agent changed.
struct AgentPersonStateChangedFields: Encodable {
    var personState: WebAgentPersonState
}

/// `pin.created`, `visitor_invitation.redeemed`, …
/// The vendor's webhook event of an invitation change, if it has one: it has none for deputy
/// delegations (their deputies get `push_notification.deputy_delegation`) nor for secondary targets.
private func invitationEventName(_ invitation: Invitation, action: String) -> String? {
    guard ["created", "redeemed", "renewed", "revoked"].contains(action) else { return nil }
    return switch invitation.kind {
    case .pin: "pin." + action
    case .visitorLink: "visitor_invitation." + action
    case .assignmentRequest: "assignment_request." + action
    case .agentInvitation: "agent_invitation." + action
    case .agentForwarding: "agent_forwarding." + action
    case .deputyInvitation: nil
    }
}

/// The vendor's call event schemas (`CallInitiatedEvent`, `CallAcceptedEvent`, `CallEstablishedEvent`,
/// `CallEndedEvent`, `CallParticipantJoinedEvent`, `CallParticipantLeftEvent`): the fields after the
/// ``VendorEvent`` header; each event sets exactly the fields its schema has.
struct CallEventFields: Encodable {
    var conversationId: String
    /// The mock's call id (media is not simulated: no provider holds the call).
    var serviceProviderCallId: String
    /// The provider the server configures for calls (the vendor's `ECallServiceProvider`).
    var serviceProviderType: String?
    var initiatorPersonId: String
    var callType: String
    var initiationTimestamp: Int64?
    var acceptTimestamp: Int64?
    var establishedTimestamp: Int64?
    var endTimestamp: Int64?
    var endReason: String?
    var personId: String?
    var joinedTimestamp: Int64?
    var connectedTimestamp: Int64?
    var leftTimestamp: Int64?
    var leftReason: String?

    init(call: Call) {
        self.conversationId = call.conversationId
        self.serviceProviderCallId = call.id
        self.serviceProviderType = call.serviceProvider
        self.initiatorPersonId = call.initiatorPersonId
        self.callType = call.callType.rawValue
        self.initiationTimestamp = call.initiationTimestamp
    }

    func accepted(_ call: Call) -> Self {
        var body = self
        body.acceptTimestamp = call.acceptTimestamp
        return body
    }

    func established(_ call: Call) -> Self {
        var body = self
        body.establishedTimestamp = call.acceptTimestamp
        return body
    }

    func ended(_ call: Call) -> Self {
        var body = self
        body.endTimestamp = call.endTimestamp
        // The mock's reasons are the vendor's `ECallEndReason` values.
        body.endReason = call.endReason
        return body
    }

    func participantJoined(_ personId: String, at time: Int64) -> Self {
        var body = self
        body.initiationTimestamp = nil
        body.personId = personId
        body.joinedTimestamp = time
        return body
    }

    func participantLeft(_ participation: CallParticipation, call: Call) -> Self {
        var body = self
        body.initiationTimestamp = nil
        body.personId = participation.personId
        body.joinedTimestamp = participation.joinedTimestamp
        body.connectedTimestamp = participation.joinedTimestamp
        body.leftTimestamp = participation.leftTimestamp ?? call.endTimestamp
        body.leftReason = "CALL_ENDED"
        return body
    }
}

/// `ConversationParticipationData`, as the vendor's participation events carry it.
struct WebParticipationData: Encodable {
    var type = "ConversationParticipationData"
    var id: String
    var state: String
    var createdTimestamp: Int64
    var activationTimestamp: Int64?
    var leftTimestamp: Int64?
    var leftReason: String?
    var hidden: Bool
    var conversationId: String
    var person: WebPerson?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, state, createdTimestamp, activationTimestamp, leftTimestamp, leftReason, hidden, conversationId, person
    }
}

/// The fields of `ParticipationCreatedEvent`, `ParticipationActivatedEvent`, `ParticipationLeftEvent`,
/// `ParticipationHiddenEvent`, `ParticipationUnhiddenEvent`.
struct ParticipationEventFields: Encodable {
    var participation: WebParticipationData

    init(participation: Participation, conversation: Conversation, person: WebPerson?) {
        let left = participation.state == .ended
        let derivedReason: String? = switch (left, conversation.state) {
        case (false, _): nil
        case (true, .queued): "CONVERSATION_REQUEUED"
        case (true, .unassigned): "CONVERSATION_UNASSIGNED"
        case (true, _): "PARTICIPANT_LEFT"
        }
        let leftReason = left ? participation.leftReason ?? derivedReason : nil
        self.participation = WebParticipationData(
            // The mock keeps no participation ids: one person joins a conversation in one role at one time.
            id: "\(conversation.id)-\(participation.personId)-\(participation.joinedTimestamp)", state: participation.state.rawValue,
            createdTimestamp: participation.joinedTimestamp, activationTimestamp: participation.joinedTimestamp,
            leftTimestamp: left ? participation.leftTimestamp : nil, leftReason: leftReason, hidden: participation.hidden,
            conversationId: conversation.id, person: person
        )
    }
}

/// The fields of `AccountModificationEvent`, `ApiKeyModificationEvent`, `NamedAreaModificationEvent`,
/// `UserModificationEvent`, `PersonModificationEvent`. `editingUser` is not recorded by the mock.
struct EntityModificationEventFields: Encodable {
    var change: EntityChange

    enum CodingKeys: String, CodingKey {
        case action, entity
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(change.action.rawValue, forKey: .action)
        let plain = Expansion()
        switch change.entity {
        case .account(let account): try container.encode(WebAccount(account, expand: plain), forKey: .entity)
        case .user(let user): try container.encode(WebUser(user, expand: plain), forKey: .entity)
        case .person(let person): try container.encode(WebPerson(person, expand: plain), forKey: .entity)
        case .declared(_, let entity): try container.encode(entity, forKey: .entity)
        }
    }
}

/// The fields of `ConversationMessageStateEvent`: a message was delivered or read.
struct MessageStateEventFields: Encodable {
    var messageId: String
    var state: String
    var conversationId: String
}

/// `ConversationRecordingStartedEvent` and `ConversationRecordingAvailableEvent`: the fields each
/// schema has after the ``VendorEvent`` header, from the conversation's last recording.
struct RecordingEventFields: Encodable {
    var conversationId: String
    var recordingType: String?
    var recordingStartTimestamp: Int64
    var blobStoreId: String?
    var mimeType: String?
    var totalSize: Int64?
    var downloadLinks: [WebDownloadLink]?
    var recordingEndTimestamp: Int64?
    var endReason: String?

    init(event: DomainEvent, conversationId: String, recording: ConversationRecording) {
        self.conversationId = conversationId
        recordingStartTimestamp = recording.startTimestamp
        if event.kind == .recordingStarted {
            recordingType = recording.recordingType.rawValue
        } else {
            blobStoreId = recording.id
            mimeType = recording.mimeType
            totalSize = recording.totalSize(at: event.timestamp)
            // No media is captured: there is nothing to download.
            downloadLinks = []
            recordingEndTimestamp = recording.endTimestamp
            endReason = recording.endReason
        }
    }
}
