/// What a dialog bot does with the messages of its dialog besides writing: it marks the counterpart's
/// messages delivered and read, cancels its own questions, and limits how long the counterpart's
/// messages may be.
extension AccountState {
    /// The bot of an open dialog marks a message of its counterpart delivered or read (see ``markMessage``).
    public mutating func markDialogMessage(
        token: String, messageId: String, state: MessageState, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        let dialog = try openDialog(token: token, for: principal)
        let message = try message(messageId, in: dialog.conversationId)
        guard message.senderPersonId == dialog.counterpartPersonId, !message.isInternal else {
            throw .badRequest("messageId: message \(messageId) was not sent to the bot by its dialog's counterpart")
        }
        markMessage(message, state: state, by: dialog.botPersonId, context: context, changes: &changes)
    }

    /// Cancels a pending question a bot asked in a conversation (the vendor's `cancelPendingQuestion`).
    public mutating func cancelPendingQuestion(
        conversationId: String, messageId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        let conversation = try self.conversation(conversationId, for: principal)
        var message = try message(messageId, in: conversation.id)
        guard persons[message.senderPersonId]?.personType == .bot else {
            throw .badRequest("questionMessageId: message \(messageId) is not from a bot")
        }
        guard let question = message.question else { throw .badRequest("questionMessageId: message \(messageId) is not a question") }
        guard question.state == .pending else { throw .conflict("the question \(messageId) is \(question.state.rawValue)") }
        message.question?.state = .canceled
        storeMessage(message, changes: &changes)
        announce(message, conversation: conversation, context: context, changes: &changes)
    }

    /// Cancels every pending question the bot of an open dialog asked in it; returns how many.
    @discardableResult
    public mutating func cancelPendingDialogQuestions(
        token: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Int {
        let dialog = try openDialog(token: token, for: principal)
        guard let conversation = conversations[dialog.conversationId] else { return 0 }
        var canceled = 0
        for var message in messages[dialog.conversationId] ?? []
        where message.senderPersonId == dialog.botPersonId && message.question?.state == .pending {
            message.question?.state = .canceled
            storeMessage(message, changes: &changes)
            announce(message, conversation: conversation, context: context, changes: &changes)
            canceled += 1
        }
        return canceled
    }

    /// Limits the length of the counterpart's messages while the dialog stays open (a hand-off ends the
    /// dialog, and with it the limit).
    public mutating func restrictDialogCounterpart(
        token: String, maxChatInputLength: Int, for principal: Principal, changes: inout ChangeSet
    ) throws(CollabError) {
        guard (1...ConversationMessage.maximumLength).contains(maxChatInputLength) else {
            throw .badRequest("maxChatInputLength must be between 1 and \(ConversationMessage.maximumLength)")
        }
        var dialog = try openDialog(token: token, for: principal)
        dialog.maxChatInputLength = maxChatInputLength
        botDialogs[dialog.id] = dialog
        changes.put(dialog)
    }

    /// Refuses a counterpart's message longer than its open dialog allows.
    func checkDialogInputLength(_ text: String, senderPersonId: String, conversationId: String) throws(CollabError) {
        guard let dialog = openBotDialog(conversationId: conversationId), dialog.state == .open, dialog.counterpartPersonId == senderPersonId,
            let limit = dialog.maxChatInputLength, !Limits.fits(text, limit)
        else { return }
        throw .badRequest("text is longer than the \(limit) characters the bot dialog allows")
    }

    // MARK: helpers

    private func openDialog(token: String, for principal: Principal) throws(CollabError) -> BotDialog {
        let dialog = try botDialog(token: token, for: principal)
        guard dialog.state == .open else { throw .conflict("the bot dialog is \(dialog.state.rawValue)") }
        return dialog
    }

    func message(_ id: String, in conversationId: String) throws(CollabError) -> ConversationMessage {
        guard id.utf8.count <= Limits.nameLength, let message = messages[conversationId]?[id: id] else {
            throw .notFound("ConversationMessage", id)
        }
        return message
    }

    /// Replaces a stored message (same id and sequence).
    mutating func storeMessage(_ message: ConversationMessage, changes: inout ChangeSet) {
        guard replaceStoredMessage(message) else { return }
        changes.put(message)
    }

    /// Tells the participants a message changed (a canceled question).
    private func announce(_ message: ConversationMessage, conversation: Conversation, context: OperationContext, changes: inout ChangeSet) {
        changes.emit(
            DomainEvent(
                kind: .messageUpdated, accountId: conversation.accountId, timestamp: context.now, conversation: conversation, message: message,
                personIds: Set(conversation.activeParticipantIds)
            )
        )
    }
}
