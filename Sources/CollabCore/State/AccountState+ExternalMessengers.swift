/// A message an external messenger posts for one of its contacts (`ExternalMessengerPostMessage`).
public struct ExternalPost: Sendable {
    public var contactId: String
    /// The conversation to post in; `nil`: the contact's open conversation on the channel, or a new one.
    public var conversationId: String?
    /// The new conversation's `sourceId` (else the contact's).
    public var sourceId: String?
    public var text: String
    /// The messenger's own id of the message, kept as the message's client id (a repeat posts nothing).
    public var externalMessageId: String?

    public init(contactId: String, conversationId: String?, sourceId: String?, text: String, externalMessageId: String?) {
        self.contactId = contactId
        self.conversationId = conversationId
        self.sourceId = sourceId
        self.text = text
        self.externalMessageId = externalMessageId
    }
}

extension AccountState {
    /// `externalmessengers/{channelId}/sendMessage`: posts a contact's message as the contact's person,
    /// in the conversation named, else the contact's open conversation on the channel, else a new
    /// CHAT_REQUEST conversation bound to the channel (queued like any other). A contact without a person
    /// gets a virtual visitor person first.
    /// - Throws: `notFound` for an unknown channel, contact or conversation; `badRequest` when the contact
    ///   or conversation belongs to another channel.
    public mutating func receiveExternalMessage(
        channelId: String, _ post: ExternalPost, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> ConversationMessage {
        let channel = try entity(ExternalMessenger.self, channelId, for: principal)
        var contact = try entity(ExternalMessengerContact.self, post.contactId, for: principal)
        guard contact.externalMessengerChannelId == channel.id else {
            throw .badRequest("senderExternalMessengerContactId names a contact of another channel")
        }
        try Limits.checkOptional(post.externalMessageId, field: "externalMessageId")
        try Limits.checkOptional(post.sourceId, field: "sourceId")
        // Everything the request itself gets wrong is refused before the contact's person is made.
        try ConversationMessage.check(text: post.text, clientMessageId: post.externalMessageId)
        if let id = post.conversationId {
            let conversation = try self.conversation(id, for: principal)
            guard conversation.externalMessengerChannelId == channel.id, let personId = contact.personId, conversation.isParticipant(personId) else {
                throw .badRequest("conversationId names no conversation of this contact on this channel")
            }
        }
        try checkRoomForContactMessage(post, contact: contact, channelId: channel.id, limits: context.limits)
        let personId = try contactPerson(&contact, by: principal, context: context, changes: &changes)
        let conversationId: String
        if let id = post.conversationId {
            conversationId = id
        } else if let open = openConversation(of: personId, on: channel.id) {
            conversationId = open.id
        } else {
            let input = ConversationInput(
                topic: channel.name, contextPersonId: personId, sourceId: post.sourceId ?? contact.sourceId, externalMessengerChannelId: channel.id
            )
            conversationId = try createConversation(input, accountId: accountId, context: context, changes: &changes).id
        }
        return try postMessage(
            conversationId, senderPersonId: personId, text: post.text, clientMessageId: post.externalMessageId, isInternal: false,
            accountId: accountId, context: context, changes: &changes
        )
    }

    /// Refuses, before the contact's person or conversation is made or linked, what would refuse the
    /// message once they are: a write that throws must leave the state as it found it. The person is
    /// new when the contact has none and none has its source id; the conversation is new when the post
    /// names none and the person has no open one on the channel.
    private func checkRoomForContactMessage(
        _ post: ExternalPost, contact: ExternalMessengerContact, channelId: String, limits: StoredRecordLimits
    ) throws(CollabError) {
        let linked = contact.personId.flatMap { persons[$0] == nil ? nil : $0 }
        let personId = linked ?? personIdBySource[PersonSourceKey(source: .virtual, sourceId: Self.contactSourceId(contact))]
        if personId == nil { try checkRoomForPerson(limits: limits) }
        let target = post.conversationId.flatMap { conversations[$0] } ?? personId.flatMap { openConversation(of: $0, on: channelId) }
        if let target, let personId {
            try checkDialogInputLength(post.text, senderPersonId: personId, conversationId: target.id)
        } else if post.conversationId == nil {
            try checkRoomForConversation(visitor: personId, limits: limits)
        }
        try checkRoomForMessage(text: post.text, messagesBefore: target?.messageCount ?? 0, limits: limits)
    }

    /// The source id of a contact's virtual person.
    private static func contactSourceId(_ contact: ExternalMessengerContact) -> String { "externalmessenger:\(contact.id)" }

    /// The contact's person, made (a virtual visitor) and linked on first use.
    private mutating func contactPerson(
        _ contact: inout ExternalMessengerContact, by principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> String {
        if let personId = contact.personId, persons[personId] != nil { return personId }
        var input = PersonInput()
        input.sourceId = Self.contactSourceId(contact)
        input.displayName = contact.name
        let person = try createOrUpdateVirtualPerson(input, accountId: accountId, context: context, changes: &changes)
        let previous = contact
        contact.personId = person.id
        contact.modificationTimestamp = context.now
        putEntity(contact, action: .update, previous: previous, by: principal, context: context, changes: &changes)
        return person.id
    }

    /// The newest conversation of `personId` on channel `channelId` that has not ended: among the person's
    /// open conversations (bounded for a visitor), not a sort of every conversation the person ever had.
    func openConversation(of personId: String, on channelId: String) -> Conversation? {
        conversations.rows(Indexes.conversationByOpenParticipant, personId)
            .filter { $0.externalMessengerChannelId == channelId && $0.state != .offboarding && $0.isParticipant(personId) }
            .max { ($0.creationTimestamp, $0.id) < ($1.creationTimestamp, $1.id) }
    }

    /// `conversations/getBySourceIdAndChannelId`: the conversation with `sourceId` on `channelId` (`nil`:
    /// none) that has not ended. An agent must take part in it; a supervisor's team (or a team below) must
    /// have an agent in it; admins see every one.
    public func conversation(sourceId: String, channelId: String?, for principal: Principal) throws(CollabError) -> Conversation {
        _ = try callerAccountId(principal)
        try Limits.checkOptional(sourceId, field: "sourceId")
        try Limits.checkOptional(channelId, field: "externalMessengerChannelId")
        let found = conversations.rows(Indexes.conversationByOpenSource, Indexes.openSourceKey(sourceId: sourceId, channelId: channelId))
            .min { ($0.creationTimestamp, $0.id) < ($1.creationTimestamp, $1.id) }
        guard let conversation = found, mayReadBySource(conversation, principal) else {
            throw CollabError(.notFound, "no open conversation with sourceId '\(sourceId)' on this channel")
        }
        return conversation
    }

    private func mayReadBySource(_ conversation: Conversation, _ principal: Principal) -> Bool {
        if principal.role >= .admin { return true }
        if principal.role >= .supervisor, let personId = principal.personId {
            let teams = queueTeams(ofAgent: personId)
            return conversation.activeParticipantIds.contains { id in persons[id]?.teamId.map { teams.contains($0) } ?? false }
        }
        return principal.personId.map(conversation.isParticipant) ?? false
    }

    /// `migrateContactPersonWith…Conversations`: the contact's person becomes `newPersonId`, in the
    /// contact and in its conversations on the contact's channel (`conversationIds`, or all of them).
    public mutating func migrateContactPerson(
        _ contactId: String, to newPersonId: String?, conversationIds: [String]?, for principal: Principal, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> ExternalMessengerContact {
        var contact = try entity(ExternalMessengerContact.self, contactId, for: principal)
        // Without a new person, the variant with listed conversations changes nothing (the vendor's "same person").
        let target = try conversationIds == nil || newPersonId != nil
            ? Limits.checkName(newPersonId, field: "newPersonId") : contact.personId ?? ""
        guard let person = persons[target], person.accountId == accountId else { throw .notFound("Person", target) }
        let oldPersonId = contact.personId
        var chosen: [Conversation] = []
        if let conversationIds {
            guard conversationIds.count <= Limits.readMultipleCount else {
                throw .badRequest("the body has more than \(Limits.readMultipleCount) conversation ids")
            }
            for id in conversationIds { chosen.append(try conversation(id, for: principal)) }
        } else if let oldPersonId {
            chosen = conversations(ofPerson: oldPersonId, accountId: accountId)
        }
        for var conversation in chosen where conversation.externalMessengerChannelId == contact.externalMessengerChannelId {
            guard let oldPersonId, let index = conversation.participants.firstIndex(where: { $0.personId == oldPersonId }) else { continue }
            guard !conversation.participants.contains(where: { $0.personId == person.id }) else { continue }
            conversation.participants[index].personId = person.id
            save(conversation, context: context, changes: &changes)
            emit(.conversationUpdated, conversation, extraPersons: [oldPersonId], context: context, changes: &changes)
        }
        let previous = contact
        contact.personId = person.id
        contact.modificationTimestamp = context.now
        putEntity(contact, action: .update, previous: previous, by: principal, context: context, changes: &changes)
        return contact
    }

    /// `messageDelivered` / `messageRead`: a channel marks a message it was sent delivered
    /// or read (see ``markMessage``) by its contact `contactId`, which must take part in the conversation,
    /// or, without one, by all its contacts (the message's marks are not per person).
    public mutating func markExternalMessage(
        channelId: String, conversationId: String?, messageId: String?, contactId: String?, state: MessageState, for principal: Principal,
        context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        let (conversation, message) = try channelMessage(channelId: channelId, conversationId: conversationId, messageId: messageId, for: principal)
        var personId: String?
        if let contactId {
            let id = try Limits.checkName(contactId, field: "externalMessengerContactId")
            let contact = declared.table(ExternalMessengerContact.self)[id]
            guard let contact, contact.accountId == accountId, contact.externalMessengerChannelId == channelId else {
                throw .notFound("ExternalMessengerContact", id)
            }
            guard let contactPerson = contact.personId, conversation.isParticipant(contactPerson) else {
                throw .badRequest("externalMessengerContactId: contact \(id) takes no part in conversation \(conversation.id)")
            }
            personId = contactPerson
        }
        markMessage(message, state: state, by: personId, context: context, changes: &changes)
    }

    /// `messageSentSuccessfully` / `messageSendFailed`: a channel reports whether it could send on a message
    /// of one of its conversations that went to it.
    public mutating func recordExternalSend(
        channelId: String, conversationId: String?, messageId: String?, state: ExternalSendState.State, failState: String?,
        failureText: String?, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        let (_, message) = try channelMessage(channelId: channelId, conversationId: conversationId, messageId: messageId, for: principal)
        let fail = try ExternalSendState.FailState.parseIfPresent(failState, field: "failState")
        try Limits.checkOptional(failureText, field: "failureText", max: Limits.textLength)
        let report = state == .sent
            ? ExternalSendState(state: .sent, timestamp: context.now)
            : ExternalSendState(state: .sendFailed, timestamp: context.now, failState: fail, failureText: failureText)
        recordExternalSendState(message, report, context: context, changes: &changes)
    }

    /// The message `messageId` of conversation `conversationId` of channel `channelId`, one that went to the
    /// channel (not internal, not from one of its contacts).
    private func channelMessage(
        channelId: String, conversationId: String?, messageId: String?, for principal: Principal
    ) throws(CollabError) -> (Conversation, ConversationMessage) {
        let channel = try entity(ExternalMessenger.self, channelId, for: principal)
        let conversationId = try Limits.checkName(conversationId, field: "conversationId")
        let messageId = try Limits.checkName(messageId, field: "messageId")
        let conversation = try self.conversation(conversationId, for: principal)
        guard conversation.externalMessengerChannelId == channel.id else {
            throw .badRequest("conversationId: conversation \(conversationId) is not one of channel \(channel.id)")
        }
        let message = try message(messageId, in: conversationId)
        let contacts = declared.table(ExternalMessengerContact.self)
        let fromContact = contacts.ids("PERSON_ID", message.senderPersonId).contains { contacts[$0]?.externalMessengerChannelId == channel.id }
        guard !message.isInternal, !fromContact else {
            throw .badRequest("messageId: message \(messageId) was not sent to the external messenger")
        }
        return (conversation, message)
    }

    /// The contacts of channel `channelId` that take part in `conversation` (who a reply goes to).
    public func receivingContacts(of conversation: Conversation, channelId: String) -> [ExternalMessengerContact] {
        let contacts = declared.table(ExternalMessengerContact.self)
        return conversation.activeParticipantIds.flatMap { contacts.ids("PERSON_ID", $0) }.sorted().compactMap { contacts[$0] }
            .filter { $0.externalMessengerChannelId == channelId }
    }
}
