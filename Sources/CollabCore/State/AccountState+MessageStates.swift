/// What the recipients of a message report about it: delivered and read (a dialog bot, an external
/// messenger channel), and whether an external messenger channel could send it on.
extension AccountState {
    /// `EMessageState`.
    public enum MessageState: String, Sendable, CaseIterable {
        case delivered = "DELIVERED"
        case read = "READ"
    }

    /// Marks a message delivered or read (read implies delivered). Each new mark is stored on the message
    /// and announced (`conversation.message_state`, naming `personId` when one is given); marking again
    /// changes nothing.
    mutating func markMessage(
        _ message: ConversationMessage, state: MessageState, by personId: String?, context: OperationContext, changes: inout ChangeSet
    ) {
        var message = message
        var marked: [MessageState] = []
        if message.deliveredTimestamp == nil {
            message.deliveredTimestamp = context.now
            marked.append(.delivered)
        }
        if state == .read, message.readTimestamp == nil {
            message.readTimestamp = context.now
            marked.append(.read)
        }
        guard !marked.isEmpty else { return }
        storeMessage(message, changes: &changes)
        for value in marked {
            var detail = ["state": value.rawValue]
            detail["personId"] = personId
            announceState(of: message, detail: detail, context: context, changes: &changes)
        }
    }

    /// Records what an external messenger channel reports about sending a message on. A report equal to
    /// the stored one changes nothing; a new one is stored and announced (`conversation.message_state`
    /// with the state `SENT` or `SEND_FAILED`).
    mutating func recordExternalSendState(
        _ message: ConversationMessage, _ sendState: ExternalSendState, context: OperationContext, changes: inout ChangeSet
    ) {
        guard !(message.externalSendState?.reports(sameAs: sendState) ?? false) else { return }
        var message = message
        message.externalSendState = sendState
        storeMessage(message, changes: &changes)
        var detail = ["state": sendState.state.rawValue]
        detail["failState"] = sendState.failState?.rawValue
        announceState(of: message, detail: detail, context: context, changes: &changes)
    }

    private func announceState(of message: ConversationMessage, detail: [String: String], context: OperationContext, changes: inout ChangeSet) {
        let conversation = conversations[message.conversationId]
        changes.emit(
            DomainEvent(
                kind: .messageState, accountId: message.accountId, timestamp: context.now, conversation: conversation, message: message,
                personIds: Set(conversation?.activeParticipantIds ?? []), detail: detail
            )
        )
    }
}
