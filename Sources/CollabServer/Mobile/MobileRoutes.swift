import CollabCore
import CollabWire
import Hummingbird

/// Clients and conversations on the mobile device API: what the SDK in an app does — start a client
/// with the API key (and optionally an access token), report app state, hold conversations.
struct MobileRoutes {
    let environment: CollabEnvironment

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
                let areaId = try body.namedArea.map { reference throws(CollabError) in
                    try state.namedAreaIds([reference], accountId: session.accountId).first!
                }
                return try state.updateClient(token: session.id, context: op, changes: &changes) { $0.namedAreaId = areaId }
            }
            return JSONBody.response(ClientView(updated))
        }
        group.get("availability") { _, context in
            let session = try env.client(context)
            let online = try env.read(context.principal) { $0.onlineAgents(accountId: session.accountId) }
            return JSONBody.response(AvailabilityView(state: online > 0 ? "AVAILABLE" : "UNAVAILABLE", onlineAgents: online))
        }
        group.get("conversations") { request, context in
            let session = try env.client(context)
            let list = try env.conversationList(request, context: context, personId: session.personId, accountId: session.accountId, for: .visitor)
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
                return state.view(changed, for: .visitor)
            }
            return JSONBody.response(conversation, status: .created)
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
    try EngagementType(parsing: text, field: "engagementType", absent: .chatRequest)
}

/// Parses an `EConversationEndReason`, `ENDED_BY_PARTICIPANT` when absent.
func parseEndReason(_ text: String?) throws(CollabError) -> EndReason {
    try EndReason(parsing: text, field: "reason", absent: .endedByParticipant)
}
