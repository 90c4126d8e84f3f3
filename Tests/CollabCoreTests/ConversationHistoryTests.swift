import CollabCore
import Testing

extension StateIndexTests {
    /// The list as it was computed before the history index: every conversation of the person, filtered
    /// and sorted on each page.
    static func expectedList(_ state: AccountState, personId: String, filter: ConversationState?) -> [String] {
        let key: (Conversation) -> (Timestamp, Timestamp, String) = { conversation in
            (filter == .ended ? conversation.endTimestamp ?? 0 : 0, conversation.creationTimestamp, conversation.id)
        }
        return state.conversations.values
            .filter { conversation in
                conversation.participants.contains { $0.personId == personId } && (filter == nil || conversation.state == filter)
            }
            .sorted { key($0) > key($1) }.map(\.id)
    }

    @Test("an agent's list pages in list order through a long history, ended ones last ended first, as the state changes")
    func conversationHistoryPages() throws {
        var (state, agents, _) = try shard(agents: 2)
        let agent = agents[0]
        var changes = ChangeSet()
        var created: [Conversation] = []
        // More than one run of the index; creation times repeat, so ids break ties.
        for index in 0..<700 {
            let at = OperationContext(now: 2_000 + Int64(index / 3), ids: .system)
            created.append(try state.createConversation(
                ConversationInput(participants: [(agent.id, .assignedAgent)]), accountId: state.accountId, context: at, changes: &changes
            ))
        }
        // End two in three, in an order unlike their creation, some at the same moment.
        for index in 0..<700 where !index.isMultiple(of: 3) {
            let at = OperationContext(now: 10_000 + Int64((index * 7) % 700 / 2), ids: .system)
            _ = try state.endConversation(
                created[index].id, by: agent.id, reason: .endedByParticipant, comment: nil, accountId: state.accountId, context: at,
                changes: &changes)
        }
        for index in [1, 2, 350, 698] {
            _ = try state.deleteConversation(created[index].id, accountId: state.accountId, context: context, changes: &changes)
        }
        #expect(state.conversations(ofPerson: agent.id, accountId: state.accountId).map(\.id)
            == Self.expectedList(state, personId: agent.id, filter: nil))
        for filter in [nil, ConversationState.active, .ended, .queued] {
            let expected = Self.expectedList(state, personId: agent.id, filter: filter)
            var seen: [String] = []
            var before: String?
            var more = true
            while more {
                let page = try state.conversationPage(ofPerson: agent.id, accountId: state.accountId, state: filter, before: before, limit: 37)
                seen += page.conversations.map(\.id)
                more = page.hasMore
                #expect(page.conversations.count == 37 || !more, "a short page is the last")
                before = page.conversations.last?.id
                if before == nil { break }
            }
            #expect(seen == expected, "filter \(filter?.rawValue ?? "none"): every conversation once, in list order")
        }
        #expect(state.conversations(ofPerson: agents[1].id, accountId: state.accountId).isEmpty)
        let active = try #require(created.first { state.conversations[$0.id]?.state == .active })
        #expect(throws: CollabError.self, "before names a conversation that is not in the ENDED list") {
            try state.conversationPage(ofPerson: agent.id, accountId: state.accountId, state: .ended, before: active.id, limit: 5)
        }
        #expect(throws: CollabError.self, "before names a conversation of another person's list") {
            try state.conversationPage(ofPerson: agents[1].id, accountId: state.accountId, state: nil, before: active.id, limit: 5)
        }
    }
}
