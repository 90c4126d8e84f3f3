import CollabCore

/// Who uses a conversation on the mobile or agent API: a started visitor's app, which sees only the
/// conversations its person takes part in and never an internal message, or an agent (at the desk or in
/// an agent's app), who sees every conversation of the account with its internal messages.
enum ConversationCaller: Sendable {
    case visitor(ClientSession)
    case agent(AgentIdentity)

    /// How a surface finds the caller of a request (its refusal when the request has none).
    typealias Resolver = @Sendable (CollabRequestContext) throws(CollabError) -> ConversationCaller

    var accountId: String {
        switch self {
        case .visitor(let session): session.accountId
        case .agent(let agent): agent.accountId
        }
    }

    var personId: String {
        switch self {
        case .visitor(let session): session.personId
        case .agent(let agent): agent.personId
        }
    }

    /// The visitor's started app; `nil` for an agent.
    var client: ClientSession? {
        guard case .visitor(let session) = self else { return nil }
        return session
    }

    /// Whether the caller reads and writes internal messages (and files): agents do, visitors never.
    var seesInternal: Bool {
        guard case .agent = self else { return false }
        return true
    }

    /// Whom the caller's conversation views are made for.
    var audience: ViewAudience {
        seesInternal ? .agent : .visitor
    }

    /// Conversation `id` if the caller may use it; any other is not found, as an unknown one.
    func conversation(_ id: String, in state: borrowing AccountState) throws(CollabError) -> Conversation {
        switch self {
        case .visitor(let session): try state.visitorConversation(id, session: session)
        case .agent(let agent): try state.ownConversation(id, accountId: agent.accountId)
        }
    }
}
