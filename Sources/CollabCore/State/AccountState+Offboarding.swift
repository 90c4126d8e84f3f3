extension AccountState {
    /// Offboards a participant (the vendor's `offboardParticipant`): the participation ends with `reason`.
    /// The assigned agent leaving an active conversation leaves it UNASSIGNED; the context person
    /// (the visitor) leaving ends it, since it is a mandatory participant.
    public mutating func offboardParticipant(
        _ id: String, personId: String, reason: String?, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        guard conversation.state != .ended, conversation.state != .offboarding else {
            throw .conflict("conversation \(id) is \(conversation.state.rawValue)")
        }
        guard let index = conversation.participants.lastIndex(where: { $0.personId == personId && $0.state != .ended }) else {
            throw .badRequest("person \(personId) does not take part in conversation \(id)")
        }
        let type = conversation.participants[index].type
        conversation.participants[index].state = .ended
        conversation.participants[index].leftTimestamp = context.now
        conversation.participants[index].leftReason = reason ?? "PARTICIPANT_LEFT"
        if type == .contextPerson {
            save(conversation, context: context, changes: &changes)
            return try endConversation(
                id, by: nil, reason: .mandatoryParticipantGone, comment: nil, accountId: accountId, context: context, changes: &changes)
        }
        if type == .assignedAgent, conversation.state == .active {
            try conversation.move(to: .unassigned, at: context.now)
            conversation.assigneeJoinTimestamp = nil
            save(conversation, context: context, changes: &changes)
            emit(.conversationUnassigned, conversation, extraPersons: [personId], context: context, changes: &changes)
        } else {
            save(conversation, context: context, changes: &changes)
            // A hidden participant's departure changes nothing a visitor sees: agents alone are told.
            emit(
                .conversationUpdated, conversation, extraPersons: [personId], agentsOnly: conversation.participants[index].hidden,
                context: context, changes: &changes
            )
        }
        return conversation
    }

    /// The visitor wrote in an UNASSIGNED conversation: it reboards and, with no reboarding bot in the
    /// mock, goes straight back into its recipient's queue (the caller saves it).
    mutating func reboard(_ conversation: inout Conversation, context: OperationContext, changes: inout ChangeSet) throws(CollabError) {
        try conversation.move(to: .reboarding, at: context.now)
        emit(.conversationReboarding, conversation, context: context, changes: &changes)
        try conversation.move(to: .queued, at: context.now)
        conversation.declinedBy = []
        emit(.conversationQueued, conversation, queue: [conversation.recipient], context: context, changes: &changes)
    }
}
