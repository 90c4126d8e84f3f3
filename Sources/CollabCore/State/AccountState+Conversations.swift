public import CollabWire
import Foundation

/// What creating a conversation takes.
public struct ConversationInput: Sendable {
    public var topic: String?
    /// `nil` routes to the account-wide queue.
    public var recipient: ConversationRecipient?
    public var engagementType: EngagementType
    /// The visitor the conversation is about.
    public var contextPersonId: String?
    /// Further participants; an `ASSIGNED_AGENT` makes the conversation active at once.
    public var participants: [(personId: String, type: ParticipationType)]
    public var sourceId: String?
    public var sourceUrl: String?
    public var locale: String?
    public var metadata: [String: String]?
    /// The template to start from (`nil`: the engagement type's default template, if any).
    public var templateId: String?
    /// Whether the conversation follows its template's configuration and texts (`nil`: the template's flag).
    public var inheritConfigurationAndTexts: Bool?
    /// Configuration and texts of the conversation's own, over its template's.
    public var configuration: [String: String]?
    public var text: [String: [String: String]]?
    /// The external messenger channel the conversation runs over (``ExternalMessenger``).
    public var externalMessengerChannelId: String?

    public init(
        topic: String? = nil, recipient: ConversationRecipient? = nil, engagementType: EngagementType = .chatRequest, contextPersonId: String? = nil,
        participants: [(personId: String, type: ParticipationType)] = [], sourceId: String? = nil, sourceUrl: String? = nil, locale: String? = nil,
        metadata: [String: String]? = nil, templateId: String? = nil, configuration: [String: String]? = nil, text: [String: [String: String]]? = nil,
        externalMessengerChannelId: String? = nil, inheritConfigurationAndTexts: Bool? = nil
    ) {
        self.templateId = templateId
        self.inheritConfigurationAndTexts = inheritConfigurationAndTexts
        self.configuration = configuration
        self.text = text
        self.externalMessengerChannelId = externalMessengerChannelId
        self.topic = topic
        self.recipient = recipient
        self.engagementType = engagementType
        self.contextPersonId = contextPersonId
        self.participants = participants
        self.sourceId = sourceId
        self.sourceUrl = sourceUrl
        self.locale = locale
        self.metadata = metadata
    }
}

/// Bounds on conversations.
public enum ConversationLimits {
    /// Messages one conversation may hold.
    public static let messagesPerConversation = 10_000
    /// Participants one conversation may hold.
    public static let participants = 50
    /// Messages one read returns at most.
    public static let messagesPerPage = 500
    /// Calls one conversation may hold, ended ones included (each start stores one).
    public static let callsPerConversation = 1_000
    /// Co-browsing sessions one conversation may hold, ended ones included (each start stores one).
    public static let coBrowsingSessionsPerConversation = 1_000
    /// State changes one conversation keeps: its first (CREATED) and its latest (an accept and requeue
    /// in a loop add two each time).
    public static let stateChanges = 1_000
}

extension AccountState {
    // MARK: reading

    /// A conversation of the caller's account (agents and admins see every conversation of their account).
    public func conversation(_ id: String, for principal: Principal) throws(CollabError) -> Conversation {
        guard let conversation = conversations[id], principal.canAccess(accountId: conversation.accountId) else {
            throw .notFound("Conversation", id)
        }
        if principal.role < .registeredUser && principal.method != .controlToken {
            guard let personId = principal.personId,
                conversation.isParticipant(personId) || conversation.participants.contains(where: { $0.personId == personId })
            else {
                throw .notFound("Conversation", id)
            }
        }
        return conversation
    }

    /// Searches the caller's conversations.
    public func searchConversations(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<Conversation> {
        _ = try callerAccountId(principal)
        return try SearchSchemas.conversation.run(
            query, lookups: conversationLookups, row: { conversations[$0] }, all: conversations.values, id: \.id)
    }

    /// What a conversation search can look up: an id, a participant (`PARTICIPANT_PERSON_ID`, whose
    /// values are the keys of ``Indexes/conversationByParticipant``), the assigned agent or the context
    /// person (each a participant, so that index holds every conversation they name), or a state; and
    /// the orders it can page through: by id, by creation and by end.
    var conversationLookups: SearchLookups {
        let participants = conversations.lookup(Indexes.conversationByParticipant)
        return SearchLookups().adding("ID", conversations.idLookup).adding("PARTICIPANT_PERSON_ID", participants)
            .adding("ASSIGNEE_PERSON_ID", participants).adding("CONTEXT_PERSON_ID", participants)
            .adding("STATE", conversations.lookup(Indexes.conversationByState))
            .ordering("ID", count: conversations.count, walk: conversations.walk(Indexes.conversationById))
            .ordering("CREATION_TIMESTAMP", count: conversations.count, walk: conversations.walk(Indexes.conversationByCreation))
            .ordering("END_TIMESTAMP", count: conversations.count, walk: conversations.walk(Indexes.conversationByEnd))
    }

    /// The conversations a person takes or took part in, newest first.
    public func conversations(ofPerson personId: String, accountId: String) -> [Conversation] {
        guard accountId == self.accountId else { return [] }
        return conversationHistory.ids(ofPerson: personId, state: nil, after: nil).compactMap { conversations[$0] }
    }

    /// A page of the conversations a person takes or took part in, in `state` if given: newest first,
    /// or for ended ones the last ended first; after the conversation `before` names (the last of the
    /// page before). Returns the page and whether more follow.
    ///
    /// The person's conversations are kept in this order (``ConversationHistoryIndex``), so a page costs
    /// its length and a binary search for `before`, however long the person's history.
    public func conversationPage(
        ofPerson personId: String, accountId: String, state: ConversationState?, before: String?, limit: Int
    ) throws(CollabError) -> (conversations: [Conversation], hasMore: Bool) {
        guard accountId == self.accountId else { return ([], false) }
        var cursor: ConversationHistoryIndex.Position?
        if let before {
            guard let previous = conversations[before], previous.participants.contains(where: { $0.personId == personId }),
                state == nil || previous.state == state
            else {
                throw .badRequest("before must be the id of a conversation of this list (the last of the page before)")
            }
            cursor = ConversationHistoryIndex.position(of: previous, inListOf: state)
        }
        var listed = conversationHistory.ids(ofPerson: personId, state: state, after: cursor).lazy.compactMap { conversations[$0] }
            .makeIterator()
        var page: [Conversation] = []
        while page.count < limit, let conversation = listed.next() { page.append(conversation) }
        return (page, listed.next() != nil)
    }

    /// Messages of a conversation after `sequence`, oldest first; visitors do not see internal messages.
    public func messages(
        of conversationId: String, after sequence: Int, limit: Int, includeInternal: Bool
    ) -> (messages: [ConversationMessage], hasMore: Bool) {
        let all = messages[conversationId] ?? []
        // Sequence order: a binary search for the first message after `sequence`.
        let start = all.partitionIndex { $0.sequence > sequence }
        var page: [ConversationMessage] = []
        var index = start
        let bound = max(0, min(limit, ConversationLimits.messagesPerPage))
        while index < all.endIndex, page.count < bound {
            if includeInternal || !all[index].isInternal { page.append(all[index]) }
            index += 1
        }
        return (page, all[index...].contains { includeInternal || !$0.isInternal })  // stops at the first visible one
    }

    /// Whether a person is an agent of `accountId`.
    func isAgent(_ personId: String, accountId: String) -> Bool {
        guard let person = persons[personId], person.accountId == accountId else { return false }
        return person.personType == .agent
    }

    /// Whether `conversation` is hidden from `personId`: a visitor who never took part in it is told
    /// it does not exist (404), as for another account's, so an id tried is not confirmed; an agent of
    /// the account or a participant is told why not (403).
    func isHidden(_ conversation: Conversation, from personId: String) -> Bool {
        !isAgent(personId, accountId: conversation.accountId) && !conversation.participants.contains { $0.personId == personId }
    }

    // MARK: creating

    /// Creates a conversation and routes it: into the queue of its recipient, or straight to ACTIVE
    /// when it names an assigned agent.
    /// - Parameter mayChangePermissions: Whether `input.configuration` may set the conversation's
    ///   ``permissionKeys`` (an admin's call); otherwise they stay as the conversation would have them.
    public mutating func createConversation(
        _ input: ConversationInput, mayChangePermissions: Bool = false, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        try checkAccount(accountId)
        try Limits.checkOptional(input.topic, field: "topic", max: Limits.textLength)
        try Limits.checkOptional(input.sourceId, field: "sourceId")
        try Limits.checkOptional(input.sourceUrl, field: "sourceUrl", max: Limits.textLength)
        try Limits.checkOptional(input.locale, field: "locale")
        try Limits.checkProperties(input.metadata, field: "metadata")
        try Limits.checkProperties(input.configuration, field: "configuration")
        try Limits.checkTexts(input.text, field: "text")
        let template = try self.template(named: input.templateId, for: input.engagementType)
        let recipient = input.recipient ?? ConversationRecipient(type: .account, id: accountId)
        try checkRecipient(recipient, accountId: accountId)
        guard input.participants.count + 1 <= ConversationLimits.participants else { throw .badRequest("too many participants") }
        try checkRoomForConversation(visitor: input.contextPersonId, limits: context.limits)
        var participations: [Participation] = []
        if let visitor = input.contextPersonId {
            guard let person = persons[visitor], person.accountId == accountId else { throw .notFound("Person", visitor) }
            participations.append(Participation(personId: visitor, type: .contextPerson, joinedTimestamp: context.now))
        }
        for (personId, type) in input.participants {
            guard let person = persons[personId], person.accountId == accountId else { throw .notFound("Person", personId) }
            guard !participations.contains(where: { $0.personId == personId }) else { throw .badRequest("person \(personId) is listed twice") }
            switch type {
            case .assignedAgent, .secondaryAgent:
                guard person.personType == .agent else { throw .badRequest("person \(personId) is not an agent and cannot be \(type.rawValue)") }
            case .contextPerson:
                guard !participations.contains(where: { $0.type == .contextPerson }) else {
                    throw .badRequest("a conversation has one CONTEXT_PERSON")
                }
            case .secondaryVisitor:
                break
            }
            participations.append(Participation(personId: personId, type: type, joinedTimestamp: context.now))
        }
        guard participations.filter({ $0.type == .assignedAgent }).count <= 1 else { throw .badRequest("a conversation has one ASSIGNED_AGENT") }

        var conversation = Conversation(
            id: context.ids.make(), accountId: accountId, topic: input.topic, recipient: recipient, initialEngagementType: input.engagementType,
            creationTimestamp: context.now
        )
        conversation.participants = participations
        conversation.sourceId = input.sourceId
        conversation.sourceUrl = input.sourceUrl
        conversation.locale = input.locale
        conversation.metadata = input.metadata
        conversation.externalMessengerChannelId = input.externalMessengerChannelId
        if let template {
            conversation.conversationTemplateId = template.id
            conversation.inheritConfigurationAndTexts = input.inheritConfigurationAndTexts ?? template.inheritConfigurationAndTexts
        }
        // A conversation that inherits keeps only its own values: its template's are read through it
        // (``inheritedTemplate(of:)``), so the template's later changes reach it. Otherwise it gets a copy.
        let copied = conversation.inheritConfigurationAndTexts == true ? nil : template
        var sent = input.configuration ?? [:]
        if !mayChangePermissions, Self.permissionKeys.contains(where: { sent[$0] != nil }) {
            conversation.configuration = copied?.configuration
            sent = try keepingPermissions(sent, of: conversation)
        }
        let configuration = (copied?.configuration ?? [:]).merging(sent) { $1 }
        let text = (copied?.text ?? [:]).merging(input.text ?? [:]) { $0.merging($1) { $1 } }
        conversation.configuration = configuration.isEmpty ? nil : configuration
        conversation.text = text.isEmpty ? nil : text
        emit(.conversationCreated, conversation, context: context, changes: &changes)
        try conversation.move(to: .onboarding, at: context.now)
        emit(.conversationOnboarding, conversation, context: context, changes: &changes)
        if participations.contains(where: { $0.type == .assignedAgent }) {
            try conversation.move(to: .active, at: context.now)
            conversation.assigneeJoinTimestamp = context.now
            save(conversation, context: context, changes: &changes)
            emit(.conversationActive, conversation, context: context, changes: &changes)
        } else if let bot = onboardingBot(for: conversation) {
            offerOnboarding(conversation, to: bot, context: context, changes: &changes)
        } else {
            try conversation.move(to: .queued, at: context.now)
            save(conversation, context: context, changes: &changes)
            emit(.conversationQueued, conversation, queue: [recipient], context: context, changes: &changes)
        }
        return conversation
    }

    private func checkRecipient(_ recipient: ConversationRecipient, accountId: String) throws(CollabError) {
        switch recipient.type {
        case .account:
            guard recipient.id == accountId else { throw .notFound("Account", recipient.id) }
        case .namedArea:
            guard let area = namedAreas[recipient.id], area.accountId == accountId else { throw .notFound("NamedArea", recipient.id) }
        case .agent:
            guard isAgent(recipient.id, accountId: accountId) else { throw .notFound("Agent person", recipient.id) }
        case .team:
            guard declared.table(Team.self)[recipient.id] != nil else { throw .notFound("Team", recipient.id) }
        }
    }

    // MARK: queue actions

    /// An agent accepts a queued (or unassigned) conversation and becomes its assigned agent.
    ///
    /// Of two agents accepting the same conversation exactly one wins; the other gets a conflict.
    public mutating func acceptConversation(
        _ id: String, agentPersonId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        guard isAgent(agentPersonId, accountId: accountId) else { throw .forbidden("only agents accept conversations") }
        guard conversation.state == .queued || conversation.state == .unassigned else {
            if conversation.state == .active, let assignee = conversation.assigneePersonId {
                throw .conflict(
                    assignee == agentPersonId ? "you already accepted this conversation" : "the conversation was accepted by another agent")
            }
            throw .conflict("conversation \(id) is \(conversation.state.rawValue) and cannot be accepted")
        }
        if conversation.recipient.type == .agent, conversation.recipient.id != agentPersonId {
            throw .forbidden("this request is addressed to another agent")
        }
        if conversation.recipient.type == .team, !queueTeams(ofAgent: agentPersonId).contains(conversation.recipient.id) {
            throw .forbidden("this request is addressed to a team the agent does not belong to")
        }
        let wasQueued = conversation.state == .queued
        try conversation.move(to: .active, at: context.now)
        // A conversation forwarded to a team keeps its assigned agent in the queue until someone accepts.
        let replaced = endAssignees(of: &conversation, except: agentPersonId, reason: "CONVERSATION_FORWARDED", at: context.now)
        conversation.participants.removeAll { $0.personId == agentPersonId && $0.type != .contextPerson }
        makeRoomForParticipant(in: &conversation)
        conversation.participants.append(Participation(personId: agentPersonId, type: .assignedAgent, joinedTimestamp: context.now))
        conversation.assigneeJoinTimestamp = context.now
        save(conversation, context: context, changes: &changes)
        emit(
            .conversationActive, conversation, queue: wasQueued ? [conversation.recipient] : [], extraPersons: replaced, context: context,
            changes: &changes
        )
        redeemAssignmentRequests(conversationId: id, agentPersonId: agentPersonId, context: context, changes: &changes)
        return conversation
    }

    /// An agent declines a queued request: it leaves that agent's queue, or ends when it was addressed
    /// to that agent alone.
    public mutating func declineConversation(
        _ id: String, agentPersonId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        guard isAgent(agentPersonId, accountId: accountId) else { throw .forbidden("only agents decline conversations") }
        guard conversation.state == .queued else {
            throw .conflict("only queued conversations can be declined; this one is \(conversation.state.rawValue)")
        }
        if conversation.recipient.type == .agent {
            guard conversation.recipient.id == agentPersonId else { throw .forbidden("this request is addressed to another agent") }
            return try end(&conversation, by: agentPersonId, reason: .requestDeclined, comment: nil, context: context, changes: &changes)
        }
        guard !conversation.declinedBy.contains(agentPersonId) else { return conversation }
        conversation.declinedBy.append(agentPersonId)
        save(conversation, context: context, changes: &changes)
        emit(.conversationUpdated, conversation, queue: [conversation.recipient], context: context, changes: &changes)
        return conversation
    }

    /// Puts an active or unassigned conversation back into its recipient's queue; the assigned agent leaves.
    public mutating func requeueConversation(
        _ id: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        try conversation.move(to: .queued, at: context.now)
        for index in conversation.participants.indices where conversation.participants[index].type == .assignedAgent {
            conversation.participants[index].state = .ended
            conversation.participants[index].leftTimestamp = context.now
        }
        conversation.assigneeJoinTimestamp = nil
        save(conversation, context: context, changes: &changes)
        emit(
            .conversationRequeued, conversation, queue: [conversation.recipient], extraPersons: endedAssignees(conversation), context: context,
            changes: &changes)
        return conversation
    }

    /// Routes a conversation that is not yet active to another queue.
    public mutating func setRecipient(
        _ id: String, recipient: ConversationRecipient, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        try checkRecipient(recipient, accountId: accountId)
        guard [.created, .onboarding, .queued, .unassigned].contains(conversation.state) else {
            throw .conflict("the recipient of a \(conversation.state.rawValue) conversation cannot change")
        }
        let previous = conversation.recipient
        conversation.recipient = recipient
        conversation.declinedBy = []
        save(conversation, context: context, changes: &changes)
        emit(.conversationUpdated, conversation, queue: [previous, recipient], context: context, changes: &changes)
        return conversation
    }

    /// Makes `personId` (an agent) the assigned agent; a queued or unassigned conversation becomes active.
    public mutating func setAssignee(
        _ id: String, personId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        guard isAgent(personId, accountId: accountId) else { throw .badRequest("person \(personId) is not an agent of this account") }
        guard conversation.state != .ended, conversation.state != .offboarding else {
            throw .conflict("conversation \(id) is \(conversation.state.rawValue)")
        }
        if conversation.assigneePersonId == personId { return conversation }
        let previous = endedAssignees(conversation)
        let wasQueued = conversation.state == .queued
        for index in conversation.participants.indices
        where conversation.participants[index].type == .assignedAgent && conversation.participants[index].state != .ended {
            conversation.participants[index].state = .ended
            conversation.participants[index].leftTimestamp = context.now
        }
        // The new assignee's earlier participations (an ended assignment among them) give way to this one,
        // so assigning two agents in turn does not grow the list.
        conversation.participants.removeAll { $0.personId == personId && $0.type != .contextPerson }
        makeRoomForParticipant(in: &conversation)
        conversation.participants.append(Participation(personId: personId, type: .assignedAgent, joinedTimestamp: context.now))
        conversation.assigneeJoinTimestamp = context.now
        if conversation.state != .active {
            if conversation.state == .created { try conversation.move(to: .onboarding, at: context.now) }
            try conversation.move(to: .active, at: context.now)
            save(conversation, context: context, changes: &changes)
            emit(
                .conversationActive, conversation, queue: wasQueued ? [conversation.recipient] : [], extraPersons: previous, context: context,
                changes: &changes)
        } else {
            save(conversation, context: context, changes: &changes)
            emit(.conversationUpdated, conversation, extraPersons: previous, context: context, changes: &changes)
        }
        return conversation
    }

    /// Adds a participant: agents as SECONDARY_AGENT, everyone else as SECONDARY_VISITOR.
    public mutating func addParticipant(
        _ id: String, personId: String, hidden: Bool, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        guard let person = persons[personId], person.accountId == accountId else { throw .notFound("Person", personId) }
        guard conversation.state != .ended, conversation.state != .offboarding else {
            throw .conflict("conversation \(id) is \(conversation.state.rawValue)")
        }
        guard !conversation.isParticipant(personId) else { throw .conflict("person \(personId) already takes part") }
        let type: ParticipationType = person.personType == .agent ? .secondaryAgent : .secondaryVisitor
        if hidden { try Self.checkMayBeHidden(type, person: person) }
        let participation = Participation(personId: personId, type: type, hidden: hidden, joinedTimestamp: context.now)
        try add(participation, to: &conversation, context: context, changes: &changes)
        return conversation
    }

    /// Changes the topic.
    public mutating func setTopic(
        _ id: String, topic: String?, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        try Limits.checkOptional(topic, field: "topic", max: Limits.textLength)
        guard conversation.state != .ended else { throw .conflict("conversation \(id) has ended") }
        conversation.topic = topic
        return update(conversation, context: context, changes: &changes)
    }

    /// Ends a conversation. Active ones pass through OFFBOARDING; ending an ended one is a conflict.
    public mutating func endConversation(
        _ id: String, by personId: String?, reason: EndReason, comment: String?, accountId: String, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        try Limits.checkOptional(comment, field: "comment", max: Limits.textLength)
        return try end(&conversation, by: personId, reason: reason, comment: comment, context: context, changes: &changes)
    }

    private mutating func end(
        _ conversation: inout Conversation, by personId: String?, reason: EndReason, comment: String?, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        guard conversation.state != .ended else { throw .conflict("conversation \(conversation.id) has already ended") }
        let wasQueued = conversation.state == .queued
        endCalls(ofConversation: conversation.id, context: context, changes: &changes)
        endCoBrowsing(ofConversation: conversation.id, context: context, changes: &changes)
        if conversation.state.canMove(to: .offboarding) {
            try conversation.move(to: .offboarding, at: context.now)
            emit(.conversationOffboarding, conversation, context: context, changes: &changes)
        }
        try conversation.move(to: .ended, at: context.now)
        finishRecording(&conversation, context: context, changes: &changes)
        conversation.endTimestamp = context.now
        conversation.endReason = reason
        conversation.endComment = comment
        conversation.endPersonId = personId
        for index in conversation.participants.indices where conversation.participants[index].state != .ended {
            conversation.participants[index].state = .ended
            conversation.participants[index].leftTimestamp = context.now
        }
        save(conversation, context: context, changes: &changes)
        emit(
            .conversationEnded, conversation, queue: wasQueued ? [conversation.recipient] : [],
            extraPersons: Set(conversation.participants.map(\.personId)), context: context, changes: &changes
        )
        closeDialog(ofEndingConversation: conversation.id, context: context, changes: &changes)
        closeInvitations(ofEndingConversation: conversation.id, context: context, changes: &changes)
        return conversation
    }

    /// Deletes an ended conversation and its messages.
    public mutating func deleteConversation(
        _ id: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        let conversation = try ownConversation(id, accountId: accountId)
        guard conversation.state == .ended else { throw .conflict("only ended conversations can be deleted; end it first") }
        removeConversation(id, changes: &changes)
        changes.emit(
            DomainEvent(
                kind: .conversationDeleted, accountId: accountId, timestamp: context.now, conversation: conversation,
                personIds: Set(conversation.participants.map(\.personId)), agentsOnly: true
            )
        )
    }

    /// Refuses a new conversation beyond the account's ``StoredRecordLimits/conversationsPerAccount``, or
    /// beyond its visitor's ``StoredRecordLimits/openConversationsPerVisitor``.
    func checkRoomForConversation(visitor: String?, limits: StoredRecordLimits) throws(CollabError) {
        guard conversations.count < limits.conversationsPerAccount else {
            throw .conflict(
                "the account holds its maximum of \(limits.conversationsPerAccount) conversations (--max-conversations-per-account);"
                    + " deleting conversations frees their places")
        }
        guard let visitor, persons[visitor]?.personType == .visitor else { return }
        guard conversations.count(Indexes.conversationByOpenParticipant, visitor) < limits.openConversationsPerVisitor else {
            throw .conflict(
                "this visitor has \(limits.openConversationsPerVisitor) conversations open, the most a visitor may have"
                    + " (--max-open-conversations-per-visitor); end one first")
        }
    }

    /// Refuses a message beyond its conversation's ``ConversationLimits/messagesPerConversation`` (it
    /// holds `messagesBefore`), or beyond the account's ``StoredRecordLimits/messageBytesPerAccount``.
    func checkRoomForMessage(text: String, messagesBefore: Int, limits: StoredRecordLimits) throws(CollabError) {
        guard messagesBefore < ConversationLimits.messagesPerConversation else {
            throw .conflict("the conversation holds the maximum of \(ConversationLimits.messagesPerConversation) messages")
        }
        guard storedMessageBytes + StoredRecordLimits.storedBytes(text: text) <= limits.messageBytesPerAccount else {
            throw .conflict(
                "the account's messages hold their maximum of \(limits.messageBytesPerAccount) bytes"
                    + " (--max-message-bytes-per-account); deleting conversations frees their messages")
        }
    }

    mutating func removeConversation(_ id: String, changes: inout ChangeSet) {
        guard let removed = conversations.removeValue(forKey: id) else { return }
        indexConversation(old: removed, new: nil)
        changes.delete(.conversation, id)
        files.removeConversation(id)
        for message in removeMessages(ofConversation: id) {
            changes.delete(.message, message.id)
        }
        removeInvitations(ofConversation: id, changes: &changes)
        // Its calls and co-browsing sessions (all ended with it) go too.
        for callId in calls.ids(Indexes.callByConversation, id) {
            calls.removeValue(forKey: callId)
            changes.delete(.call, callId)
        }
        for sessionId in coBrowsingSessions.ids(Indexes.coBrowsingByConversation, id) {
            coBrowsingSessions.removeValue(forKey: sessionId)
            changes.delete(.coBrowsingSession, sessionId)
        }
        // Its bot dialogs, and its place in its participants' unread counts.
        for dialogId in botDialogs.ids(Indexes.dialogByConversation, id) {
            botDialogs.removeValue(forKey: dialogId)
            changes.delete(.botDialog, dialogId)
        }
        forgetUnreadCounts(of: removed, changes: &changes)
    }

    // MARK: messages

    /// Stores a text message from a participant. A repeated `clientMessageId` returns the stored
    /// message instead of a duplicate.
    public mutating func postMessage(
        _ conversationId: String, senderPersonId: String, text: String, clientMessageId: String?, isInternal: Bool, accountId: String,
        file: FileAttachment? = nil, question: BotQuestion? = nil, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> ConversationMessage {
        var conversation = try ownConversation(conversationId, accountId: accountId)
        try ConversationMessage.check(text: text, clientMessageId: clientMessageId)
        let isDialogBot = isDialogBot(senderPersonId, conversationId: conversationId)
        guard isDialogBot || conversation.participants.contains(where: { $0.personId == senderPersonId }) else {
            throw .forbidden("only participants may write in this conversation")
        }
        guard conversation.state.acceptsMessages else {
            throw .conflict("conversation \(conversationId) is \(conversation.state.rawValue); no more messages")
        }
        guard isDialogBot || conversation.isParticipant(senderPersonId) else { throw .forbidden("you have left this conversation") }
        if isInternal, !isAgent(senderPersonId, accountId: accountId) { throw .forbidden("only agents write internal messages") }
        try checkDialogInputLength(text, senderPersonId: senderPersonId, conversationId: conversationId)
        if let clientMessageId, let existing = messages[conversationId]?.message(clientMessageId: clientMessageId, senderPersonId: senderPersonId) {
            return existing
        }
        try checkRoomForMessage(text: text, messagesBefore: conversation.messageCount, limits: context.limits)
        var message = ConversationMessage(
            id: context.ids.make(), accountId: accountId, conversationId: conversationId, sequence: conversation.messageCount + 1,
            senderPersonId: senderPersonId, text: text, serverTimestamp: context.now, clientMessageId: clientMessageId, isInternal: isInternal
        )
        if conversation.state == .unassigned, !isAgent(senderPersonId, accountId: accountId) {
            try reboard(&conversation, context: context, changes: &changes)
        }
        message.file = file
        message.question = question
        files.add(message)
        if !isInternal {
            conversation.publicMessageCount = conversation.shownMessageCount + 1
            conversation.lastPublicMessageTimestamp = context.now
        }
        conversation.messageCount += 1
        conversation.lastMessageTimestamp = context.now
        storeNewMessage(message)
        changes.put(message)
        save(conversation, context: context, changes: &changes)
        var event = DomainEvent(
            kind: .newMessage, accountId: accountId, timestamp: context.now, conversation: conversation, message: message,
            personIds: Set(conversation.activeParticipantIds), agentsOnly: isInternal
        )
        if isInternal { event.personIds = event.personIds.filter { isAgent($0, accountId: accountId) } }
        changes.emit(event)
        // Visitors are told of messages meant for them; agents (whose apps register devices too) of
        // every message, internal ones included. An agent's unread count is kept only once an agent app
        // registered: the desk needs none.
        let senderName = displayName(of: senderPersonId)
        for participant in conversation.participants where participant.state != .ended && participant.personId != senderPersonId {
            let isVisitor = participant.type == .contextPerson || participant.type == .secondaryVisitor
            if isVisitor ? isInternal : devices.count(Indexes.deviceByPerson, participant.personId) == 0 { continue }
            var content = PushContent(
                type: .newMessage, title: senderName, text: file == nil ? text : "sent a file", conversationId: conversationId, timestamp: context.now
            )
            content.messageId = message.id
            content.senderName = senderName
            content.senderPersonId = senderPersonId
            notify(
                personId: participant.personId, accountId: accountId, content: content, context: context, changes: &changes, countsTowardBadge: true)
        }
        return message
    }

    // MARK: helpers

    public func ownConversation(_ id: String, accountId: String) throws(CollabError) -> Conversation {
        guard let conversation = conversations[id], conversation.accountId == accountId else { throw .notFound("Conversation", id) }
        return conversation
    }

    mutating func save(_ conversation: Conversation, context: OperationContext, changes: inout ChangeSet) {
        let old = conversations[conversation.id]
        emitParticipationChanges(from: old, to: conversation, changes: &changes)
        indexConversation(old: old, new: conversation)
        conversations[conversation.id] = conversation
        changes.put(conversation)
        notifyQueueChange(from: old, to: conversation, context: context, changes: &changes)
    }

    /// Stores a changed conversation and tells its participants and webhooks (`conversation.updated`).
    @discardableResult
    mutating func update(_ conversation: Conversation, context: OperationContext, changes: inout ChangeSet) -> Conversation {
        save(conversation, context: context, changes: &changes)
        emit(.conversationUpdated, conversation, context: context, changes: &changes)
        return conversation
    }

    /// Adds a participant to `conversation`, stores it and tells (`conversation.updated`): a hidden
    /// participant's arrival changes nothing a visitor sees, so only agents are told of it.
    /// - Throws: `conflict` when the conversation already has the most participants it may have.
    mutating func add(
        _ participation: Participation, to conversation: inout Conversation, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        guard conversation.participants.count < ConversationLimits.participants else {
            throw .conflict("the conversation has the maximum number of participants")
        }
        conversation.participants.append(participation)
        save(conversation, context: context, changes: &changes)
        emit(.conversationUpdated, conversation, agentsOnly: participation.hidden, context: context, changes: &changes)
    }

    /// Makes room for the assigned agent an accept or an assignment adds: at
    /// ``ConversationLimits/participants``, the earliest ended participations other than the context
    /// person's go (agents who took the conversation in turn). An assignment is never refused for the
    /// history it leaves behind.
    func makeRoomForParticipant(in conversation: inout Conversation) {
        var excess = conversation.participants.count - ConversationLimits.participants + 1
        guard excess > 0 else { return }
        conversation.participants.removeAll { participation in
            guard excess > 0, participation.state == .ended, participation.type != .contextPerson else { return false }
            excess -= 1
            return true
        }
    }

    /// Ends the active assigned agents of `conversation` but `agentPersonId`; who they were.
    func endAssignees(of conversation: inout Conversation, except agentPersonId: String, reason: String, at now: Timestamp) -> Set<String> {
        var ended: Set<String> = []
        for index in conversation.participants.indices {
            let participation = conversation.participants[index]
            guard participation.type == .assignedAgent, participation.state != .ended, participation.personId != agentPersonId else { continue }
            conversation.participants[index].state = .ended
            conversation.participants[index].leftTimestamp = now
            conversation.participants[index].leftReason = reason
            ended.insert(participation.personId)
        }
        return ended
    }

    private func endedAssignees(_ conversation: Conversation) -> Set<String> {
        Set(conversation.participants.filter { $0.type == .assignedAgent }.map(\.personId))
    }

    func emit(
        _ kind: DomainEvent.Kind, _ conversation: Conversation, queue: Set<ConversationRecipient> = [], extraPersons: Set<String> = [],
        agentsOnly: Bool = false, context: OperationContext, changes: inout ChangeSet
    ) {
        changes.emit(
            DomainEvent(
                kind: kind, accountId: conversation.accountId, timestamp: context.now, conversation: conversation,
                personIds: Set(conversation.activeParticipantIds).union(extraPersons), queueRecipients: queue, agentsOnly: agentsOnly
            )
        )
    }
}
