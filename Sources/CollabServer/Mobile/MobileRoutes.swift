import CollabCore
import CollabWire
import Hummingbird

/// Clients and conversations on the mobile device API: what the SDK in an app does — start a client
/// with the API key (and optionally an access token), report app state, hold conversations.
struct MobileRoutes {
    let environment: CollabEnvironment
    /// The account's message interceptors, asked before a message is stored.
    let messages: MessageReview

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment

        group.post("clients") { request, context in
            let body = try await env.decode(ClientStartRequest.self, from: request)
            let response = try await env.startClient(body, request: request, context: context)
            return JSONBody.response(response, status: .created)
        }
        group.post("clients/current/collapse") { _, context in
            let session = try env.client(context)
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.collapseUI(clientToken: session.id, context: op, changes: &changes)
            }
            return noContent
        }
        group.put("clients/current/named-area") { request, context in
            let session = try env.client(context)
            let body = try await env.decode(NamedAreaRequest.self, from: request)
            let updated = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                let areaId = try body.namedArea.map { reference throws(CollabError) in try state.namedAreaIds([reference], accountId: session.accountId).first! }
                return try state.updateClient(token: session.id, context: op, changes: &changes) { $0.namedAreaId = areaId }
            }
            return JSONBody.response(ClientView(updated))
        }
        group.get("availability") { _, context in
            let session = try env.client(context)
            let online = try env.read(context.principal) { $0.onlineAgents(accountId: session.accountId) }
            return JSONBody.response(AvailabilityView(state: online > 0 ? "AVAILABLE" : "UNAVAILABLE", onlineAgents: online))
        }
        group.get("conversations") { _, context in
            let session = try env.client(context)
            let list = try env.read(context.principal) { state in
                ConversationList(conversations: state.conversations(ofPerson: session.personId, accountId: session.accountId).map { state.view($0) })
            }
            return JSONBody.response(list)
        }
        group.post("conversations") { request, context in
            let session = try env.client(context)
            let body = try await env.decode(StartConversationRequest.self, from: request)
            let engagement = try parseEngagement(body.engagementType)
            let conversation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                var recipient: ConversationRecipient?
                if let reference = body.namedArea {
                    recipient = ConversationRecipient(type: .namedArea, id: try state.namedAreaIds([reference], accountId: session.accountId).first!)
                } else if let areaId = session.namedAreaId {
                    recipient = ConversationRecipient(type: .namedArea, id: areaId)
                }
                let input = ConversationInput(topic: body.topic, recipient: recipient, engagementType: engagement, contextPersonId: session.personId)
                let changed = try state.createConversation(input, accountId: session.accountId, context: op, changes: &changes)
                return state.view(changed)
            }
            return JSONBody.response(conversation, status: .created)
        }
        group.get("conversations/:id") { _, context in
            let session = try env.client(context)
            let id = try context.pathParameter("id")
            let view = try env.read(context.principal) { state throws(CollabError) in state.view(try state.visitorConversation(id, session: session)) }
            return JSONBody.response(view)
        }
        group.post("conversations/:id/open") { _, context in
            let session = try env.client(context)
            let id = try context.pathParameter("id")
            let updated = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.visitorConversation(id, session: session)
                return try state.updateClient(token: session.id, context: op, changes: &changes) { $0.openConversationId = id }
            }
            return JSONBody.response(ClientView(updated))
        }
        group.post("conversations/:id/close") { _, context in
            let session = try env.client(context)
            let id = try context.pathParameter("id")
            let updated = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.visitorConversation(id, session: session)
                return try state.updateClient(token: session.id, context: op, changes: &changes) { client in
                    if client.openConversationId == id { client.openConversationId = nil }
                }
            }
            return JSONBody.response(ClientView(updated))
        }
        group.post("conversations/:id/end") { request, context in
            let session = try env.client(context)
            let id = try context.pathParameter("id")
            let body = try await env.decode(EndConversationRequest?.self, fromOptional: request)
            let reason = try parseEndReason(body?.reason)
            let view = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.visitorConversation(id, session: session)
                let ended = try state.endConversation(id, by: session.personId, reason: reason, comment: body?.comment, accountId: session.accountId, context: op, changes: &changes)
                return state.view(ended)
            }
            return JSONBody.response(view)
        }
        group.get("conversations/:id/messages") { request, context in
            let session = try env.client(context)
            let id = try context.pathParameter("id")
            let (after, limit) = try pageParameters(request)
            let page = try env.read(context.principal) { state throws(CollabError) in
                _ = try state.visitorConversation(id, session: session)
                let result = state.messages(of: id, after: after, limit: limit, includeInternal: false)
                return MessagePage(messages: result.messages.map(MessageView.init), hasMore: result.hasMore)
            }
            return JSONBody.response(page)
        }
        group.post("conversations/:id/messages") { request, context in
            let session = try env.client(context)
            let id = try context.pathParameter("id")
            let body = try await env.decode(SendMessageRequest.self, from: request)
            guard body.internal != true else { throw CollabError.forbidden("visitors cannot write internal messages") }
            try await messages.review(body, conversationId: id, senderPersonId: session.personId, principal: context.principal)
            let message = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.visitorConversation(id, session: session)
                return try state.postMessage(
                    id, senderPersonId: session.personId, text: body.text, clientMessageId: body.clientMessageId, isInternal: false,
                    accountId: session.accountId, context: op, changes: &changes
                )
            }
            return JSONBody.response(MessageView(message), status: .created)
        }
    }
}

extension CollabEnvironment {
    /// The started client behind the caller's token.
    func client(_ context: CollabRequestContext) throws(CollabError) -> ClientSession {
        // Resolved once by the authentication middleware.
        guard context.principal.method == .client, let session = context.client else {
            throw .unauthorized(
                "start a client first (POST /mobile/v1/clients, or /agent/v1/clients for an agent's app) and send its token as a bearer token")
        }
        return session
    }
}

extension AccountState {
    /// A conversation the visitor of `session` takes part in.
    func visitorConversation(_ id: String, session: ClientSession) throws(CollabError) -> Conversation {
        guard let conversation = conversations[id], conversation.accountId == session.accountId,
            conversation.participants.contains(where: { $0.personId == session.personId })
        else {
            throw .notFound("Conversation", id)
        }
        return conversation
    }
}

extension ClientView {
    init(_ session: ClientSession) {
        self.init(
            clientId: session.clientId, personId: session.personId, deviceId: session.deviceId, namedAreaId: session.namedAreaId,
            appState: session.appState.rawValue, openConversationId: session.openConversationId
        )
    }
}

/// Parses an `EInitialEngagementType`, `CHAT_REQUEST` when absent.
func parseEngagement(_ text: String?) throws(CollabError) -> EngagementType {
    guard let text else { return .chatRequest }
    guard let value = EngagementType(rawValue: text) else {
        throw .badRequest("engagementType must be one of \(EngagementType.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return value
}

/// Parses an `EConversationEndReason`, `ENDED_BY_PARTICIPANT` when absent.
func parseEndReason(_ text: String?) throws(CollabError) -> EndReason {
    guard let text else { return .endedByParticipant }
    guard let value = EndReason(rawValue: text) else {
        throw .badRequest("reason must be one of \(EndReason.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return value
}

/// `after` and `limit` query parameters of message reads.
func pageParameters(_ request: Request) throws(CollabError) -> (after: Int, limit: Int) {
    let after = try request.integerQuery("after", atLeast: 0) ?? 0
    let limit = try request.integerQuery("limit", atLeast: 1).map { min($0, ConversationLimits.messagesPerPage) } ?? 100
    return (after, limit)
}
