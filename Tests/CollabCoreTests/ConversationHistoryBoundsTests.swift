@testable import CollabCore
import Testing

/// What a conversation keeps of its history stays bounded however often it is handed around, and a
/// deleted conversation leaves nothing behind in its bot dialogs or its participants' unread counts.
@Suite("Conversation history bounds")
struct ConversationHistoryBoundsTests {
    @Test("accept and requeue in a loop keep the first state change and the latest thousand")
    func stateChanges() throws {
        var changes = ChangeSet()
        let context = OperationContext(now: 10, ids: .system)
        var (desk, state, conversation) = try TwoAgentDesk.withConversation(context: context, changes: &changes)
        for round in 0..<600 {
            let at = OperationContext(now: 100 + Int64(round), ids: .system)
            let accountId = desk.account.id
            _ = try state.acceptConversation(conversation.id, agentPersonId: desk.agent.id, accountId: accountId, context: at, changes: &changes)
            _ = try state.requeueConversation(conversation.id, accountId: desk.account.id, context: at, changes: &changes)
        }
        let kept = try #require(state.conversations[conversation.id]).stateChanges
        #expect(kept.count == ConversationLimits.stateChanges)
        #expect(kept.first?.state == .created && kept.first?.timestamp == 10, "the creation stays")
        #expect(kept.last?.state == .queued && kept.last?.timestamp == 699)
        #expect(try #require(state.conversations[conversation.id]).participants.count == 2, "the visitor and the agent, once each")
    }

    @Test("assigning two agents in turn keeps one participation each; many agents taking it in turn drop the earliest ended ones")
    func assignments() throws {
        var changes = ChangeSet()
        let context = OperationContext(now: 10, ids: .system)
        var (desk, state, conversation) = try TwoAgentDesk.withConversation(context: context, changes: &changes)
        for round in 0..<100 {
            let agent = round.isMultiple(of: 2) ? desk.agent : desk.other
            _ = try state.setAssignee(conversation.id, personId: agent.id, accountId: desk.account.id, context: context, changes: &changes)
        }
        let participants = try #require(state.conversations[conversation.id]).participants
        #expect(participants.count == 3, "the visitor and each agent once: \(participants.map(\.personId))")
        #expect(participants.last?.personId == desk.other.id && participants.last?.state == .active)

        // More agents than a conversation holds participants take it in turn.
        var agents: [Person] = []
        for index in 0..<ConversationLimits.participants + 5 {
            let user = try state.createUser(
                UserInput(username: "turn-\(index)", authorizationRole: .registeredUser), passwordHash: nil, accountId: desk.account.id,
                grantor: .admin, context: context, changes: &changes)
            agents.append(try #require(state.person(ofUser: user)))
        }
        for agent in agents {
            _ = try state.setAssignee(conversation.id, personId: agent.id, accountId: desk.account.id, context: context, changes: &changes)
        }
        let crowded = try #require(state.conversations[conversation.id])
        #expect(crowded.participants.count == ConversationLimits.participants)
        #expect(crowded.participants.contains { $0.personId == desk.visitor.id }, "the context person stays")
        #expect(crowded.assigneePersonId == agents.last?.id && crowded.participants.last?.state == .active)
    }

    @Test("deleting a conversation removes its bot dialogs and its place in the participants' unread counts")
    func deletionLeavesNothing() throws {
        var changes = ChangeSet()
        let context = OperationContext(now: 10, ids: .system)
        var (desk, state, conversation) = try TwoAgentDesk.withConversation(context: context, changes: &changes)
        let kept = try state.createConversation(
            ConversationInput(contextPersonId: desk.visitor.id), accountId: desk.account.id, context: context, changes: &changes)
        _ = state.countNotification(personId: desk.visitor.id, conversationId: conversation.id, changes: &changes)
        _ = state.countNotification(personId: desk.visitor.id, conversationId: kept.id, changes: &changes)
        let bot = DialogBot(name: "greeter", webhookEndpoint: "https://bots.example/hook")
        let dialog = BotDialog(
            id: "dialog-1", accountId: desk.account.id, bot: bot, conversationId: conversation.id, counterpartPersonId: desk.visitor.id,
            creationTimestamp: 10)
        state.botDialogs[dialog.id] = dialog
        _ = try state.endConversation(
            conversation.id, by: desk.visitor.id, reason: .endedByParticipant, comment: nil, accountId: desk.account.id, context: context,
            changes: &changes)

        changes = ChangeSet()
        try state.deleteConversation(conversation.id, accountId: desk.account.id, context: context, changes: &changes)
        #expect(state.botDialogs[dialog.id] == nil)
        let deletesDialog = changes.changes.contains { change in
            if case .delete(.botDialog, let id) = change { return id == dialog.id }
            return false
        }
        #expect(deletesDialog, "the dialog's record is deleted too")
        #expect(state.persons[desk.visitor.id]?.notifications?.counts == [kept.id: 1])
    }
}
