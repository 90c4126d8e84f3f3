import CollabCore
import CollabWire

extension ConversationView {
    init(_ conversation: Conversation, names: [String: String] = [:]) {
        self.init(
            id: conversation.id, topic: conversation.topic, state: conversation.state.rawValue,
            recipient: .init(type: conversation.recipient.type.rawValue, id: conversation.recipient.id),
            engagementType: conversation.initialEngagementType.rawValue,
            participants: conversation.participants.map {
                .init(personId: $0.personId, type: $0.type.rawValue, state: $0.state.rawValue, displayName: names[$0.personId])
            },
            assigneePersonId: conversation.assigneePersonId, contextPersonId: conversation.contextPersonId, createdAt: conversation.creationTimestamp,
            queuedAt: conversation.queuedTimestamp, endedAt: conversation.endTimestamp, endReason: conversation.endReason?.rawValue,
            // Internal notes are left out for everyone: one view serves a conversation's visitors and
            // agents alike (agents read notes in the messages).
            messageCount: conversation.shownMessageCount, lastMessageAt: conversation.shownLastMessageTimestamp,
            endedBy: conversation.endPersonId
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
    /// The wire form of a domain event with its id.
    init(id: Int64, event: DomainEvent) {
        self.init(
            id: id, type: event.kind.rawValue, timestamp: event.timestamp,
            conversation: event.conversation.map { ConversationView($0, names: event.participantNames ?? [:]) },
            message: event.message.map(MessageView.init), detail: event.detail.isEmpty ? nil : event.detail
        )
    }
}

extension AccountState {
    /// A conversation view with participant names.
    func view(_ conversation: Conversation) -> ConversationView {
        ConversationView(conversation, names: participantNames(conversation))
    }
}
