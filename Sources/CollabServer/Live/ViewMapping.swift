import CollabCore
import CollabWire

/// Who a conversation view is made for. Hidden participants (secondary agents and bots) are the agents'
/// to see: a visitor's view leaves them out.
enum ViewAudience: Sendable {
    case visitor
    case agent
}

extension ConversationView {
    init(_ conversation: Conversation, names: [String: String] = [:], for audience: ViewAudience) {
        let shown = audience == .agent ? conversation.participants : conversation.participants.filter { !$0.hidden }
        self.init(
            id: conversation.id, topic: conversation.topic, state: conversation.state.rawValue,
            recipient: .init(type: conversation.recipient.type.rawValue, id: conversation.recipient.id),
            engagementType: conversation.initialEngagementType.rawValue,
            participants: shown.map {
                .init(
                    personId: $0.personId, type: $0.type.rawValue, state: $0.state.rawValue, displayName: names[$0.personId],
                    hidden: $0.hidden ? true : nil
                )
            },
            assigneePersonId: conversation.assigneePersonId, contextPersonId: conversation.contextPersonId, createdAt: conversation.creationTimestamp,
            queuedAt: conversation.queuedTimestamp, endedAt: conversation.endTimestamp, endReason: conversation.endReason?.rawValue,
            // Internal notes are left out for everyone: one view serves a conversation's visitors and
            // agents alike (agents read notes in the messages).
            messageCount: conversation.shownMessageCount, lastMessageAt: conversation.shownLastMessageTimestamp,
            endedBy: conversation.endPersonId.flatMap { audience == .agent || !conversation.isHiddenParticipant($0) ? $0 : nil }
        )
    }
}

extension MessageView {
    init(_ message: ConversationMessage) {
        self.init(
            id: message.id, conversationId: message.conversationId, sequence: message.sequence, senderPersonId: message.senderPersonId,
            text: message.text, timestamp: message.serverTimestamp, clientMessageId: message.clientMessageId, internal: message.isInternal,
            file: message.file, deliveredAt: message.deliveredTimestamp, readAt: message.readTimestamp,
            questionState: message.question?.state.rawValue
        )
        if let sent = message.externalSendState {
            externalSendState = sent.state.rawValue
            externalSendStateAt = sent.timestamp
            externalSendFailState = sent.failState?.rawValue
            externalSendFailureText = sent.failureText
        }
    }
}

extension PersonView {
    init(_ person: Person) {
        self.init(id: person.id, type: person.personType.rawValue, displayName: person.shownName, sourceId: person.sourceId)
    }
}

extension LiveEvent {
    /// The wire form of a domain event with its id, as `audience` sees it: a visitor's names no hidden
    /// participant, in its conversation or its detail.
    init(id: Int64, event: DomainEvent, for audience: ViewAudience) {
        var detail = event.detail
        if audience == .visitor, let personId = detail["personId"], event.conversation?.isHiddenParticipant(personId) == true {
            detail["personId"] = nil
        }
        self.init(
            id: id, type: event.kind.rawValue, timestamp: event.timestamp,
            conversation: event.conversation.map { ConversationView($0, names: event.participantNames ?? [:], for: audience) },
            message: event.message.map(MessageView.init), detail: detail.isEmpty ? nil : detail
        )
    }
}

extension AccountState {
    /// A conversation view with participant names, as `audience` sees it.
    func view(_ conversation: Conversation, for audience: ViewAudience) -> ConversationView {
        ConversationView(conversation, names: participantNames(conversation), for: audience)
    }
}
