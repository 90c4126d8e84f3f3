import CollabCore
import CollabWire
import Hummingbird

/// What a backend calls first: `conversations/{id}/updateMetadata`, `setVisitorData`,
/// `conversationhistory/search`, `conversationhistory/{id}/exportMessageLog`, `global/ping`,
/// `global/productVersion`, `persons/searchAgentsByState`, `personpresences/search`.
struct BackendBasicsRoutes {
    let environment: CollabEnvironment

    /// What `global/productVersion` reports.
    static let productVersion = "MockCollab (Web API v4 subset)"

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let conversations = group.group("conversations")
        conversations.operation(.post, ":conversationId/updateMetadata", role: .admin) { request, context in
            let id = try context.pathParameter("conversationId")
            let metadata = try await env.decode([String: String].self, from: request)
            let conversation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                let changed = try state.updateMetadata(id, metadata: metadata, accountId: try ownAccount(nil, context.principal), context: op, changes: &changes)
                return state.webConversation(changed)
            }
            return JSONBody.response(conversation)
        }
        conversations.operation(.post, ":conversationId/setVisitorData", role: .admin) { request, context in
            let id = try context.pathParameter("conversationId")
            let body = try await env.decode(WebVisitorDataBody.self, from: request)
            if let type = body.type, type != "ConversationsSetVisitorDataBody" { throw CollabError.badRequest("$_type must be 'ConversationsSetVisitorDataBody', not '\(type)'") }
            let conversation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                let changed = try state.setVisitorData(id, visitorData: body.visitorData, accountId: try ownAccount(nil, context.principal), context: op, changes: &changes)
                return state.webConversation(changed)
            }
            return JSONBody.response(conversation)
        }

        let history = group.group("conversationhistory")
        history.operation(.post, "search", role: .registeredUser) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "ConversationHistoryQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.searchConversationHistory(query, for: context.principal)
                    .webResult("ConversationHistoryDataResult", offset: query.offset) { state.webHistory($0) }
            }
            return JSONBody.response(page)
        }
        history.operation(.post, ":conversationId/exportMessageLog", role: .admin) { request, context in
            let id = try context.pathParameter("conversationId")
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "MessageExportQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.exportMessages(ofConversation: id, query, for: context.principal).webResult("MessageExportResult", offset: query.offset) {
                    WebHistoryMessage($0)
                }
            }
            return JSONBody.response(page)
        }

        let global = group.group("global")
        global.operation(.get, "ping", role: .anonymousUser) { _, _ in
            // Answered only once the server serves requests, which is what the vendor's ping tells.
            JSONBody.response(WebGlobalPing())
        }
        global.operation(.get, "productVersion", role: .registeredUser) { _, _ in
            JSONBody.response(WebProductVersion(productVersion: Self.productVersion))
        }

        group.group("persons").operation(.post, "searchAgentsByState", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "AgentStateQuery")
            let now = env.clock.now()
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.searchAgentStates(query, now: now, for: context.principal).webResult("AgentPersonStateResult", offset: query.offset) { row in
                    var web = WebAgentPersonState(row.person, now: now)
                    web.onlineState = row.onlineState
                    return web
                }
            }
            return JSONBody.response(page)
        }
        group.group("personpresences").operation(.post, "search", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "PersonPresenceQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.searchPersonPresences(query, for: context.principal).webResult("PersonPresenceResult", offset: query.offset) { WebPersonPresence($0) }
            }
            return JSONBody.response(page)
        }
    }
}

/// `ConversationsSetVisitorDataBody`.
struct WebVisitorDataBody: Codable, Sendable {
    var type: String?
    var visitorData: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", visitorData
    }
}

/// `GlobalPingResponse`.
struct WebGlobalPing: Encodable {
    var type = "GlobalPingResponse"
    var status = "OK"

    enum CodingKeys: String, CodingKey {
        case type = "$_type", status
    }
}

/// `ProductVersion`.
struct WebProductVersion: Encodable {
    var type = "ProductVersion"
    var productVersion: String

    enum CodingKeys: String, CodingKey {
        case type = "$_type", productVersion
    }
}

/// `ConversationHistoryMessageData` for a text message.
struct WebHistoryMessage: Codable, Sendable {
    var type = "ConversationHistoryMessageData"
    var id: String
    var conversationId: String
    var sendTimestamp: Int64
    var serverTimestamp: Int64
    var senderPersonId: String
    var messageType = "TEXT"
    var `internal`: Bool
    var text: String

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, conversationId, sendTimestamp, serverTimestamp, senderPersonId
        case messageType = "type"
        case `internal`, text
    }

    init(_ message: ConversationMessage) {
        id = message.id
        conversationId = message.conversationId
        sendTimestamp = message.serverTimestamp
        serverTimestamp = message.serverTimestamp
        senderPersonId = message.senderPersonId
        self.internal = message.isInternal
        text = message.text
    }
}

/// `PersonPresenceData` for a started mobile client: the person is present from the client's start
/// (a stopped client is gone, so `leftTimestamp` never shows).
struct WebPersonPresence: Codable, Sendable {
    var type = "PersonPresenceData"
    var id: String
    var creationTimestamp: Int64
    var modificationTimestamp: Int64
    var accountId: String
    var joinedTimestamp: Int64
    var personId: String

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, creationTimestamp, modificationTimestamp, accountId, joinedTimestamp, personId
    }

    init(_ session: ClientSession) {
        // The public client id, never the client's token.
        id = session.clientId
        creationTimestamp = session.createdAt
        modificationTimestamp = session.lastSeenAt
        accountId = session.accountId
        joinedTimestamp = session.createdAt
        personId = session.personId
    }
}
