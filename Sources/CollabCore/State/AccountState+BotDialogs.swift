extension AccountState {
    /// `EBotDialogFinishReason`.
    public enum BotDialogFinishReason: String, Sendable, CaseIterable {
        case handOff = "HAND_OFF"
        case solved = "SOLVED"
        case aborted = "ABORTED"
    }

    /// An offered or open dialog of the caller's account by its token.
    public func botDialog(token: String, for principal: Principal) throws(CollabError) -> BotDialog {
        guard token.utf8.count <= Limits.nameLength, let dialog = botDialogs[token], principal.canAccess(accountId: dialog.accountId) else {
            throw CollabError(.notFound, "no bot dialog with this dialogToken")
        }
        return dialog
    }

    /// The offered or open dialog of a conversation, if any.
    public func openBotDialog(conversationId: String) -> BotDialog? {
        botDialogs.rows(Indexes.dialogByOpenConversation, conversationId).first
    }

    /// The bot that onboards a new conversation's visitor: the active onboarding bot with the lowest
    /// `onboardingOrder` (then the oldest id), when the conversation has a visitor.
    func onboardingBot(for conversation: Conversation) -> DialogBot? {
        guard let visitor = conversation.participants.first(where: { $0.type == .contextPerson }),
            persons[visitor.personId]?.personType != .agent
        else { return nil }
        let bots = bots
        return bots.ids("ONBOARDING", "true").compactMap { bots[$0] }
            .min { ($0.onboardingOrder ?? 0, $0.creationTimestamp, $0.id) < ($1.onboardingOrder ?? 0, $1.creationTimestamp, $1.id) }
    }

    /// Keeps a new conversation in ONBOARDING and offers it to `bot` (the server posts the offer to the
    /// bot once this change is committed).
    mutating func offerOnboarding(_ conversation: Conversation, to bot: DialogBot, context: OperationContext, changes: inout ChangeSet) {
        let visitor = conversation.participants.first { $0.type == .contextPerson }?.personId ?? ""
        let dialog = BotDialog(
            id: context.ids.makeSecret(), accountId: conversation.accountId, bot: bot, conversationId: conversation.id, counterpartPersonId: visitor,
            creationTimestamp: context.now
        )
        save(conversation, context: context, changes: &changes)
        botDialogs[dialog.id] = dialog
        changes.put(dialog)
        deadlines.schedule(.botOffer(dialog.id), at: dialog.offerExpiresAt ?? context.now)
    }

    /// An offer still unanswered at its expiry is given up: the conversation goes to its queue.
    mutating func expireBotOffer(_ token: String, context: OperationContext, changes: inout ChangeSet) {
        guard let dialog = botDialogs[token], dialog.state == .offered else { return }
        _ = try? finishDialog(dialog, reason: "DECLINED", handOver: .handOff, context: context, changes: &changes)
    }

    /// Closes the offered or open dialog of a conversation that ends (in the same write); the bot of an
    /// open one is told (`bot.dialog.closed`).
    mutating func closeDialog(ofEndingConversation conversationId: String, context: OperationContext, changes: inout ChangeSet) {
        guard var dialog = openBotDialog(conversationId: conversationId) else { return }
        let wasOpen = dialog.state == .open
        dialog.state = .finished
        dialog.finishReason = "CONVERSATION_ENDED"
        botDialogs[dialog.id] = dialog
        changes.put(dialog)
        if wasOpen { emitDialogEvent(.botDialogClosed, dialog, context: context, changes: &changes) }
    }

    /// Records that the bot of `dialog` must be told it opened or closed (the resolver finds its endpoint).
    private func emitDialogEvent(_ kind: DomainEvent.Kind, _ dialog: BotDialog, context: OperationContext, changes: inout ChangeSet) {
        changes.emit(
            DomainEvent(
                kind: kind, accountId: dialog.accountId, timestamp: context.now, conversation: conversations[dialog.conversationId],
                detail: ["dialogToken": dialog.id]
            )
        )
    }

    /// Records the bot's answer to an onboarding offer: accepted, the dialog opens; refused (or not
    /// answered), the conversation is handed over to its queue. Returns the dialog, or nil when it is
    /// no longer offered.
    public mutating func answerOnboardingOffer(
        token: String, accepted: Bool, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> BotDialog? {
        guard var dialog = botDialogs[token], dialog.state == .offered else { return nil }
        if accepted {
            dialog.state = .open
            botDialogs[dialog.id] = dialog
            changes.put(dialog)
            emitDialogEvent(.botDialogOpened, dialog, context: context, changes: &changes)
            return dialog
        }
        return try finishDialog(dialog, reason: "DECLINED", handOver: .handOff, context: context, changes: &changes)
    }

    /// Whether `personId` is the bot of the conversation's open dialog (it may write without being a participant).
    func isDialogBot(_ personId: String, conversationId: String) -> Bool {
        guard let dialog = openBotDialog(conversationId: conversationId) else { return false }
        return dialog.state == .open && dialog.botPersonId == personId
    }

    /// `bots/sendDialogMessage`: the bot writes a text message into its dialog's conversation.
    /// - Parameter question: The question's type (`TEXT_QUESTION`, …) when the message is a question.
    public mutating func sendDialogMessage(
        token: String, text: String, question: String? = nil, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> ConversationMessage {
        let dialog = try botDialog(token: token, for: principal)
        guard dialog.state == .open else { throw .conflict("the bot dialog is \(dialog.state.rawValue)") }
        return try postMessage(
            dialog.conversationId, senderPersonId: dialog.botPersonId, text: text, clientMessageId: nil, isInternal: false,
            accountId: dialog.accountId, question: question.map { BotQuestion(type: $0) }, context: context, changes: &changes
        )
    }

    /// `bots/startDialogBotTypingIndicator` / `cancelDialogBotTypingIndicator`: the conversation's
    /// participants see the bot typing (a live `conversation.typing` event; nothing is stored). A bot that
    /// takes part hidden types for the agents alone.
    public mutating func setDialogBotTyping(
        token: String, typing: Bool, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        let dialog = try botDialog(token: token, for: principal)
        guard dialog.state == .open else { throw .conflict("the bot dialog is \(dialog.state.rawValue)") }
        guard let conversation = conversations[dialog.conversationId], conversation.state.acceptsMessages else {
            throw .conflict("the dialog's conversation accepts no more messages")
        }
        changes.emit(
            DomainEvent(
                kind: .typingChanged, accountId: dialog.accountId, timestamp: context.now, conversation: conversation,
                personIds: Set(conversation.activeParticipantIds), agentsOnly: conversation.isHiddenParticipant(dialog.botPersonId),
                detail: ["personId": dialog.botPersonId, "typing": String(typing)]
            )
        )
    }

    /// `bots/finishDialog`: HAND_OFF puts the conversation into its queue, SOLVED leaves it unassigned
    /// (a new visitor message reboards it), ABORTED ends it.
    public mutating func finishDialog(
        token: String, reason: BotDialogFinishReason, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> BotDialog {
        let dialog = try botDialog(token: token, for: principal)
        guard dialog.state == .open else { throw .conflict("the bot dialog is \(dialog.state.rawValue)") }
        let finished = try finishDialog(dialog, reason: reason.rawValue, handOver: reason, context: context, changes: &changes)
        emitDialogEvent(.botDialogClosed, finished, context: context, changes: &changes)
        return finished
    }

    private mutating func finishDialog(
        _ dialog: BotDialog, reason: String, handOver: BotDialogFinishReason, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> BotDialog {
        var dialog = dialog
        dialog.state = .finished
        dialog.finishReason = reason
        botDialogs[dialog.id] = dialog
        changes.put(dialog)
        guard var conversation = conversations[dialog.conversationId], conversation.state == .onboarding else { return dialog }
        switch handOver {
        case .handOff:
            try conversation.move(to: .queued, at: context.now)
            save(conversation, context: context, changes: &changes)
            emit(.conversationQueued, conversation, queue: [conversation.recipient], context: context, changes: &changes)
        case .solved:
            try conversation.move(to: .unassigned, at: context.now)
            save(conversation, context: context, changes: &changes)
            emit(.conversationUnassigned, conversation, context: context, changes: &changes)
        case .aborted:
            _ = try endConversation(
                conversation.id, by: dialog.botPersonId, reason: .canceled, comment: nil, accountId: conversation.accountId, context: context,
                changes: &changes
            )
        }
        return dialog
    }
}
