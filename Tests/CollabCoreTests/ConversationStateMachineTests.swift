import CollabCore
import Testing

@Suite("Conversation state machine")
struct ConversationStateMachineTests {
    static let allowed: Set<String> = [
        "CREATED→ONBOARDING", "CREATED→ENDED",
        "ONBOARDING→QUEUED", "ONBOARDING→ACTIVE", "ONBOARDING→UNASSIGNED", "ONBOARDING→ENDED",
        "QUEUED→ACTIVE", "QUEUED→ENDED",
        "ACTIVE→UNASSIGNED", "ACTIVE→REBOARDING", "ACTIVE→QUEUED", "ACTIVE→OFFBOARDING", "ACTIVE→ENDED",
        "UNASSIGNED→QUEUED", "UNASSIGNED→ACTIVE", "UNASSIGNED→REBOARDING", "UNASSIGNED→OFFBOARDING", "UNASSIGNED→ENDED",
        "REBOARDING→QUEUED", "REBOARDING→ACTIVE", "REBOARDING→OFFBOARDING", "REBOARDING→ENDED",
        "OFFBOARDING→ENDED",
    ]

    @Test("exactly the documented transitions are allowed; every other one is a conflict", arguments: ConversationState.allCases)
    func transitions(from: ConversationState) throws {
        for to in ConversationState.allCases {
            var conversation = Conversation(
                id: "c", accountId: "a", topic: nil, recipient: .init(type: .account, id: "a"), initialEngagementType: .chatRequest,
                creationTimestamp: 0)
            conversation.state = from
            let key = "\(from.rawValue)→\(to.rawValue)"
            if Self.allowed.contains(key) {
                try conversation.move(to: to, at: 5)
                #expect(conversation.state == to)
                #expect(conversation.stateChanges.last == ConversationStateChange(state: to, timestamp: 5))
            } else {
                #expect(throws: CollabError.self, "\(key) must be refused") { try conversation.move(to: to, at: 5) }
                #expect(conversation.state == from, "a refused transition changes nothing")
            }
        }
    }

    @Test("operations refuse what the state does not allow")
    func operations() throws {
        var changes = ChangeSet()
        let context = OperationContext(now: 10, ids: .system)
        let desk = try TwoAgentDesk(context: context, changes: &changes)
        var state = desk.state
        let (account, agent, other, visitor) = (desk.account, desk.agent, desk.other, desk.visitor)
        var conversation = try state.createConversation(
            ConversationInput(contextPersonId: visitor.id), accountId: account.id, context: context, changes: &changes)
        #expect(conversation.state == .queued)
        #expect(changes.events.filter { !$0.isWebhookOnly }.map(\.kind) == [.conversationCreated, .conversationQueued])

        // A queued conversation cannot be requeued; an accepted one cannot be accepted again.
        #expect(throws: CollabError.self) {
            try state.requeueConversation(conversation.id, accountId: account.id, context: context, changes: &changes)
        }
        conversation = try state.acceptConversation(
            conversation.id, agentPersonId: agent.id, accountId: account.id, context: context, changes: &changes)
        #expect(throws: CollabError.conflict("the conversation was accepted by another agent")) {
            try state.acceptConversation(conversation.id, agentPersonId: other.id, accountId: account.id, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            try state.declineConversation(conversation.id, agentPersonId: other.id, accountId: account.id, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            try state.setRecipient(
                conversation.id, recipient: .init(type: .account, id: account.id), accountId: account.id, context: context, changes: &changes)
        }
        // A visitor cannot accept.
        #expect(throws: CollabError.self) {
            try state.acceptConversation(conversation.id, agentPersonId: visitor.id, accountId: account.id, context: context, changes: &changes)
        }

        conversation = try state.endConversation(
            conversation.id, by: agent.id, reason: .endedByParticipant, comment: nil, accountId: account.id, context: context, changes: &changes)
        #expect(conversation.stateChanges.map(\.state) == [.created, .onboarding, .queued, .active, .offboarding, .ended])
        #expect(throws: CollabError.self) {
            try state.endConversation(
                conversation.id, by: nil, reason: .other, comment: nil, accountId: account.id, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            try state.setTopic(conversation.id, topic: "x", accountId: account.id, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            try state.addParticipant(conversation.id, personId: other.id, hidden: false, accountId: account.id, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            try state.postMessage(
                conversation.id, senderPersonId: visitor.id, text: "late", clientMessageId: nil, isInternal: false, accountId: account.id,
                context: context, changes: &changes)
        }
        try state.deleteConversation(conversation.id, accountId: account.id, context: context, changes: &changes)
        #expect(state.conversations.isEmpty)
    }

    @Test("queue visibility: area filters, account-wide requests, addressed requests, decliners")
    func queueVisibility() {
        let area = ConversationRecipient(type: .namedArea, id: "A")
        #expect(AccountState.queueShows(area, declinedBy: [], to: "x", filter: nil))
        #expect(AccountState.queueShows(area, declinedBy: [], to: "x", filter: ["A"]))
        #expect(!AccountState.queueShows(area, declinedBy: [], to: "x", filter: ["B"]))
        #expect(!AccountState.queueShows(area, declinedBy: ["x"], to: "x", filter: nil))
        let account = ConversationRecipient(type: .account, id: "acc")
        #expect(AccountState.queueShows(account, declinedBy: [], to: "x", filter: []))
        #expect(!AccountState.queueShows(account, declinedBy: [], to: "x", filter: ["A"]))
        let addressed = ConversationRecipient(type: .agent, id: "y")
        #expect(AccountState.queueShows(addressed, declinedBy: [], to: "y", filter: ["A"]))
        #expect(!AccountState.queueShows(addressed, declinedBy: [], to: "x", filter: nil))
    }

    @Test("messages: order, idempotent retries, internal messages hidden from visitors, bounded text")
    func messages() throws {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        let context = OperationContext(now: 10, ids: .system)
        _ = try shards.apply(
            seed: Seed(accounts: [.init(name: "a", users: [.init(username: "ag", role: .registeredUser)], persons: [.init(sourceId: "v")])]),
            passwordHashes: [:], context: context, changes: &changes)
        var state = try #require(shards.state(named: "a"))
        let account = state.account
        let agentUser = try #require(state.user(loginName: "ag"))
        let agent = try #require(state.person(ofUser: agentUser))
        let visitor = try #require(state.persons.values.first { $0.sourceId == "v" })
        let conversation = try state.createConversation(
            ConversationInput(contextPersonId: visitor.id, participants: [(agent.id, .assignedAgent)]), accountId: account.id, context: context,
            changes: &changes
        )
        #expect(conversation.state == .active)
        let first = try state.postMessage(
            conversation.id, senderPersonId: visitor.id, text: "one", clientMessageId: "m1", isInternal: false, accountId: account.id,
            context: context, changes: &changes)
        let retry = try state.postMessage(
            conversation.id, senderPersonId: visitor.id, text: "one", clientMessageId: "m1", isInternal: false, accountId: account.id,
            context: context, changes: &changes)
        #expect(first == retry)
        _ = try state.postMessage(
            conversation.id, senderPersonId: agent.id, text: "note", clientMessageId: nil, isInternal: true, accountId: account.id, context: context,
            changes: &changes)
        _ = try state.postMessage(
            conversation.id, senderPersonId: agent.id, text: "two", clientMessageId: nil, isInternal: false, accountId: account.id, context: context,
            changes: &changes)
        #expect(state.messages(of: conversation.id, after: 0, limit: 10, includeInternal: true).messages.map(\.sequence) == [1, 2, 3])
        #expect(state.messages(of: conversation.id, after: 0, limit: 10, includeInternal: false).messages.map(\.text) == ["one", "two"])
        #expect(throws: CollabError.self) {
            try state.postMessage(
                conversation.id, senderPersonId: visitor.id, text: "secret", clientMessageId: nil, isInternal: true, accountId: account.id,
                context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            try state.postMessage(
                conversation.id, senderPersonId: visitor.id, text: String(repeating: "x", count: ConversationMessage.maximumLength + 1),
                clientMessageId: nil, isInternal: false, accountId: account.id, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            try state.postMessage(
                conversation.id, senderPersonId: visitor.id, text: "   ", clientMessageId: nil, isInternal: false, accountId: account.id,
                context: context, changes: &changes)
        }
    }
}
