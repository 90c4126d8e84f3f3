import CollabCore
import Testing

/// An account `a` seeded with a named area `s`, two agents (`ag`, `ag2`) and a visitor (`v`): the
/// persons a conversation test moves between states.
struct TwoAgentDesk {
    var state: AccountState
    let account: Account
    let agent: Person
    let other: Person
    let visitor: Person

    init(context: OperationContext, changes: inout ChangeSet) throws {
        var shards = ShardSet(directory: Directory())
        _ = try shards.apply(
            seed: Seed(accounts: [
                .init(
                    name: "a", namedAreas: [.init(siteId: "s")],
                    users: [.init(username: "ag", role: .registeredUser), .init(username: "ag2", role: .registeredUser)],
                    persons: [.init(sourceId: "v")])
            ]),
            passwordHashes: [:], context: context, changes: &changes
        )
        let state = try #require(shards.state(named: "a"))
        let agentUser = try #require(state.user(loginName: "ag"))
        let otherUser = try #require(state.user(loginName: "ag2"))
        self.state = state
        account = state.account
        agent = try #require(state.person(ofUser: agentUser))
        other = try #require(state.person(ofUser: otherUser))
        visitor = try #require(state.persons.values.first { $0.sourceId == "v" })
    }
}

extension TwoAgentDesk {
    /// A desk with one conversation of its visitor, queued in the account's queue: the desk, the state
    /// that holds the conversation, and the conversation.
    static func withConversation(
        context: OperationContext, changes: inout ChangeSet
    ) throws -> (desk: TwoAgentDesk, state: AccountState, conversation: Conversation) {
        let desk = try TwoAgentDesk(context: context, changes: &changes)
        var state = desk.state
        let conversation = try state.createConversation(
            ConversationInput(contextPersonId: desk.visitor.id), accountId: desk.account.id, context: context, changes: &changes)
        return (desk, state, conversation)
    }
}
