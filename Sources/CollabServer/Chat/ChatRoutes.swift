import CollabCore
import CollabWire
import Hummingbird

/// One conversation's chat on the mobile and agent APIs (`registerMobile`, `registerAgent`): the
/// conversation, its messages, a new message and its end. The routes are the same on both;
/// ``ConversationCaller`` says which conversations and messages each caller may see.
struct ChatRoutes: ConversationCallerRoutes {
    let environment: CollabEnvironment
    /// The account's message interceptors, asked before a message is stored.
    let messages: MessageReview

    func register(on group: RouterGroup<CollabRequestContext>, resolve: @escaping ConversationCaller.Resolver) {
        let env = environment
        group.get("conversations/:id") { _, context in
            let caller = try resolve(context)
            let id = try context.pathParameter("id")
            let view = try env.read(context.principal) { state throws(CollabError) in
                state.view(try caller.conversation(id, in: state), for: caller.audience)
            }
            return JSONBody.response(view)
        }
        group.post("conversations/:id/end") { request, context in
            let caller = try resolve(context)
            let id = try context.pathParameter("id")
            let body = try await env.decode(EndConversationRequest?.self, fromOptional: request)
            let reason = try parseEndReason(body?.reason)
            let view = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try caller.conversation(id, in: state)
                let ended = try state.endConversation(
                    id, by: caller.personId, reason: reason, comment: body?.comment, accountId: caller.accountId, context: op, changes: &changes
                )
                return state.view(ended, for: caller.audience)
            }
            return JSONBody.response(view)
        }
        group.get("conversations/:id/messages") { request, context in
            let caller = try resolve(context)
            let id = try context.pathParameter("id")
            let (after, limit) = try pageParameters(request)
            let page = try env.read(context.principal) { state throws(CollabError) in
                _ = try caller.conversation(id, in: state)
                let result = state.messages(of: id, after: after, limit: limit, includeInternal: caller.seesInternal)
                return MessagePage(messages: result.messages.map(MessageView.init), hasMore: result.hasMore)
            }
            return JSONBody.response(page)
        }
        group.post("conversations/:id/messages") { request, context in
            let caller = try resolve(context)
            let id = try context.pathParameter("id")
            let body = try await env.decode(SendMessageRequest.self, from: request)
            guard caller.seesInternal || body.internal != true else { throw CollabError.forbidden("visitors cannot write internal messages") }
            try await messages.review(body, conversationId: id, senderPersonId: caller.personId, principal: context.principal)
            let message = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try caller.conversation(id, in: state)
                return try state.postMessage(
                    id, senderPersonId: caller.personId, text: body.text, clientMessageId: body.clientMessageId, isInternal: body.internal ?? false,
                    accountId: caller.accountId, context: op, changes: &changes
                )
            }
            return JSONBody.response(MessageView(message), status: .created)
        }
    }
}

/// `after` and `limit` query parameters of message reads.
func pageParameters(_ request: Request) throws(CollabError) -> (after: Int, limit: Int) {
    let after = try request.integerQuery("after", atLeast: 0) ?? 0
    let limit = try request.integerQuery("limit", atLeast: 1).map { min($0, ConversationLimits.messagesPerPage) } ?? 100
    return (after, limit)
}
