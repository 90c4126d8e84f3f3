import CollabCore
import CollabWire
import Hummingbird

/// The agent API under `/agent/v1`, for the agent client and the web console: log in (or start an
/// agent's app: `POST clients`), presence, the queue filtered by named area, the agent's conversations,
/// accept / decline / requeue (a conversation's messages and end: ``ChatRoutes``). Authenticate with the
/// token from `login` or of a started app (bearer), HTTP basic, or the Web API session cookie.
struct AgentRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment

        group.post("login") { request, context in
            let body = try await env.decode(AgentLoginRequest.self, from: request)
            let principal = try await Authenticator(environment: env).principal(username: body.username, password: body.password)
            if let accountId = principal.accountId { context.credentialNote.identified(accountId: accountId, userId: principal.userId) }
            guard principal.role >= .registeredUser else { throw CollabError.forbidden("only agents use the agent API") }
            let lifetime = env.configuration.sessionLifetime
            let (session, person, locale) = try await env.write(principal) { state, changes, op throws(CollabError) in
                guard let userId = principal.userId, let user = state.users[userId] else { throw .unauthorized("invalid username or password") }
                let session = try state.openSession(for: user, kind: .session, lifetime: lifetime, context: op, changes: &changes)
                guard let person = state.persons[session.personId] else { throw CollabError(.internalError, "the agent has no person") }
                return (session, person, user.locale)
            }
            let response = AgentLoginResponse(
                token: session.id, person: PersonView(person), accountId: session.accountId, expiresAt: session.expiresAt, locale: locale
            )
            return JSONBody.response(response)
        }
        group.post("clients") { request, context in
            let body = try await env.decode(AgentClientStartRequest.self, from: request)
            let response = try await env.startAgentClient(body, request: request, context: context)
            return JSONBody.response(response, status: .created)
        }
        group.post("logout") { _, context in
            let agent = try env.agent(context)
            if let client = context.client {
                // An agent's app logs out by stopping its client.
                try await env.write(account: agent.accountId) { state, changes, _ throws(CollabError) in
                    state.stopClient(token: client.id, changes: &changes)
                }
                env.events.disconnect(sessionKey: client.id)
            } else if let token = context.sessionToken {
                try await env.write(account: agent.accountId) { state, changes, _ throws(CollabError) in
                    state.closeSession(token: token, changes: &changes)
                }
                env.events.disconnect(sessionKey: token)
            }
            return noContent
        }
        group.get("me") { _, context in
            let agent = try env.agent(context)
            let person = try env.read(context.principal) { state throws(CollabError) in try state.person(agent.personId, for: context.principal) }
            return JSONBody.response(PersonView(person))
        }
        group.put("presence") { request, context in
            let agent = try env.agent(context)
            let body = try await env.decode(PresenceRequest.self, from: request)
            guard let presence = AgentPresence(rawValue: body.presence) else {
                throw CollabError.badRequest("presence must be ONLINE, AWAY or OFFLINE")
            }
            let effective = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.setPresence(presence, personId: agent.personId, accountId: agent.accountId, context: op, changes: &changes)
                return state.presence(of: agent.personId)
            }
            // What holds now: an agent set away who asks for ONLINE is AWAY.
            return JSONBody.response(PresenceRequest(presence: effective.rawValue))
        }
        group.get("presence") { _, context in
            let agent = try env.agent(context)
            let presence = try env.read(context.principal) { state in state.presence(of: agent.personId) }
            return JSONBody.response(PresenceRequest(presence: presence.rawValue))
        }
        group.get("queue") { request, context in
            let agent = try env.agent(context)
            let references = request.queryList("namedAreas")
            let limit = try request.query("limit").map { text throws(CollabError) in
                guard let value = Int(text), (1...1000).contains(value) else { throw .badRequest("limit must be between 1 and 1000") }
                return value
            } ?? 100
            let cursor = try request.query("cursor").map { text throws(CollabError) in
                guard let cursor = QueueCursor(token: text) else { throw .badRequest("cursor is not one this server handed out") }
                return cursor
            }
            // A page costs what it shows, however long the queue is (see QueueIndex).
            let view = try env.read(context.principal) { state throws(CollabError) in
                let filter = references.isEmpty ? nil : try state.namedAreaIds(references, accountId: agent.accountId)
                let entries = state.queue(
                    accountId: agent.accountId, agentPersonId: agent.personId, namedAreaIds: filter, after: cursor, limit: limit)
                return QueueView(
                    entries: entries.map { QueueView.Entry(position: $0.position, conversation: state.view($0.conversation, for: .agent)) },
                    nextCursor: entries.count == limit ? entries.last.map { QueueCursor(after: $0).token } : nil
                )
            }
            return JSONBody.response(view)
        }
        group.get("conversations") { request, context in
            let agent = try env.agent(context)
            let list = try env.conversationList(request, context: context, personId: agent.personId, accountId: agent.accountId, for: .agent)
            return JSONBody.response(list)
        }
        action("accept", on: group) { state, id, agent, op, changes throws(CollabError) in
            try state.acceptConversation(id, agentPersonId: agent.personId, accountId: agent.accountId, context: op, changes: &changes)
        }
        action("decline", on: group) { state, id, agent, op, changes throws(CollabError) in
            try state.declineConversation(id, agentPersonId: agent.personId, accountId: agent.accountId, context: op, changes: &changes)
        }
        action("requeue", on: group) { state, id, agent, op, changes throws(CollabError) in
            let conversation = try state.ownConversation(id, accountId: agent.accountId)
            guard conversation.isParticipant(agent.personId) else { throw .forbidden("only participants requeue a conversation") }
            return try state.requeueConversation(id, accountId: agent.accountId, context: op, changes: &changes)
        }
    }

    private func action(
        _ name: String, on group: RouterGroup<CollabRequestContext>,
        _ body: @escaping @Sendable (inout AccountState, String, AgentIdentity, OperationContext, inout ChangeSet) throws(CollabError) -> Conversation
    ) {
        let env = environment
        group.post(RouterPath("conversations/:id/\(name)")) { _, context in
            let agent = try env.agent(context)
            let id = try context.pathParameter("id")
            let view = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                // Change first, then read: `state.view(try body(&state, …))` would copy the whole state.
                let changed = try body(&state, id, agent, op, &changes)
                return state.view(changed, for: .agent)
            }
            return JSONBody.response(view)
        }
    }
}

/// The agent behind a request.
struct AgentIdentity: Sendable {
    var accountId: String
    var personId: String
}

extension CollabEnvironment {
    /// The calling agent; anyone below REGISTERED_USER is refused.
    func agent(_ context: CollabRequestContext) throws(CollabError) -> AgentIdentity {
        try context.principal.require(.registeredUser)
        guard let accountId = context.principal.accountId, let personId = context.principal.personId else {
            throw .forbidden("the agent API needs a user of an account")
        }
        return AgentIdentity(accountId: accountId, personId: personId)
    }
}
