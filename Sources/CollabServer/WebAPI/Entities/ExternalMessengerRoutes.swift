import CollabCore
import CollabWire
import Hummingbird

/// The external messenger operations beyond the entity layer's: a channel's `sendMessage` (a contact
/// writes), the message states it reports, `searchCustom`/`searchSms`, contacts' person migration, and
/// `conversations/getBySourceIdAndChannelId`. Replies reach the channel through the webhook dispatcher
/// (see `EffectResolver`); `sendPing` is with the other pings (``EntityBehaviourRoutes``).
struct ExternalMessengerRoutes {
    let environment: CollabEnvironment

    func register(on routes: RouterGroup<CollabRequestContext>) {
        registerChannels(on: routes.group("externalmessengers"))
        registerContacts(on: routes.group("externalmessengercontacts"))
        let env = environment
        routes.operation(.get, "conversations/getBySourceIdAndChannelId", role: .registeredUser) { request, context in
            let sourceId = try request.requireQuery("sourceId")
            let channelId = request.query("externalMessengerChannelId")
            let conversation = try env.read(context.principal) { state throws(CollabError) in
                state.webConversation(try state.conversation(sourceId: sourceId, channelId: channelId, for: context.principal))
            }
            return JSONBody.response(conversation)
        }
    }

    private func registerChannels(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, ":channelId/sendMessage", role: .admin) { request, context in
            let channelId = try context.pathParameter("channelId")
            let body = try await env.decode(ExternalMessengerPostBody.self, from: request)
            try checkType(body)
            let contactId = try Limits.checkName(body.senderExternalMessengerContactId, field: "senderExternalMessengerContactId")
            let post = ExternalPost(
                contactId: contactId, conversationId: body.conversationId, sourceId: body.sourceId, text: try body.messageData.requiredText(),
                externalMessageId: body.externalMessageId
            )
            let message = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.receiveExternalMessage(channelId: channelId, post, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebSendMessageResult(messageId: message.id))
        }
        for (path, mark) in [("messageDelivered", AccountState.MessageState.delivered), ("messageRead", .read)] {
            group.operation(.post, RouterPath(":channelId/\(path)"), role: .admin) { request, context in
                let channelId = try context.pathParameter("channelId")
                let body = try await env.decode(ExternalMessageStateBody.self, from: request)
                try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.markExternalMessage(
                        channelId: channelId, conversationId: body.conversationId, messageId: body.messageId,
                        contactId: body.externalMessengerContactId, state: mark, for: context.principal, context: op, changes: &changes
                    )
                }
                return noContent
            }
        }
        for (path, sendState) in [("messageSentSuccessfully", ExternalSendState.State.sent), ("messageSendFailed", .sendFailed)] {
            group.operation(.post, RouterPath(":channelId/\(path)"), role: .admin) { request, context in
                let channelId = try context.pathParameter("channelId")
                let body = try await env.decode(ExternalMessageStateBody.self, from: request)
                try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.recordExternalSend(
                        channelId: channelId, conversationId: body.conversationId, messageId: body.messageId, state: sendState,
                        failState: body.failState, failureText: body.failureText, for: context.principal, context: op, changes: &changes
                    )
                }
                return noContent
            }
        }
        let variants = [("searchCustom", "CUSTOM", "CustomExternalMessengerChannel"), ("searchSms", "SMS", "SmsExternalMessengerChannel")]
        for (path, type, variant) in variants {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                var query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: variant + "Query")
                let offset = query.offset
                query.filters.append(SearchFilter(field: "TYPE", op: .equals(.string(type))))
                let page = try env.read(context.principal) { state throws(CollabError) in
                    try state.searchEntities(ExternalMessenger.self, query, for: context.principal)
                }
                return JSONBody.response(page.webResult(variant + "Result", offset: offset) { EntityWire.json($0) })
            }
        }
    }

    private func registerContacts(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let all = ":externalMessengerContactId/migrateContactPersonWithAllConnectedConversations"
        group.operation(.post, RouterPath(all), role: .registeredUser) { request, context in
            let id = try context.pathParameter("externalMessengerContactId")
            let body = try await env.decode(MigrateContactBody.self, from: request)
            let contact = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.migrateContactPerson(id, to: body.newPersonId, conversationIds: nil, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(EntityWire.json(contact))
        }
        let given = ":externalMessengerContactId/migrateContactPersonWithGivenConversations"
        group.operation(.post, RouterPath(given), role: .registeredUser) { request, context in
            let id = try context.pathParameter("externalMessengerContactId")
            let newPersonId = request.query("newPersonId")
            let conversationIds = try await env.decode([String].self, from: request)
            let contact = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.migrateContactPerson(
                    id, to: newPersonId, conversationIds: conversationIds, for: context.principal, context: op, changes: &changes
                )
            }
            return JSONBody.response(EntityWire.json(contact))
        }
    }
}

/// `ExternalMessengerPostMessage`.
private struct ExternalMessengerPostBody: WebAPIObject {
    static let typeName = "ExternalMessengerPostMessage"
    var type: String? = Self.typeName
    var conversationId: String?
    var senderExternalMessengerContactId: String?
    var recipientPersonIds: [String]?
    var sourceId: String?
    var replyToMessageId: String?
    var externalMessageId: String?
    var replyToExternalMessageId: String?
    var messageData: WebBotPostMessage.MessageData?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", conversationId, senderExternalMessengerContactId, recipientPersonIds, sourceId, replyToMessageId, externalMessageId
        case replyToExternalMessageId, messageData
    }
}

/// `ExternalMessengersMessageDeliveredBody` and its siblings (read, send failed, sent successfully).
private struct ExternalMessageStateBody: Decodable {
    var conversationId: String?
    var messageId: String?
    /// Delivered and read: the contact who received the message.
    var externalMessengerContactId: String?
    /// Send failed: `ESendFailState` and the reason.
    var failState: String?
    var failureText: String?
}

/// `ExternalMessengerContactsMigrateContactPersonWithAllConnectedConversationsBody`.
private struct MigrateContactBody: Decodable { var newPersonId: String? }
