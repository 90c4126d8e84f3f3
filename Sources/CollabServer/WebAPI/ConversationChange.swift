import CollabCore
import Hummingbird

extension RouterGroup where Context == CollabRequestContext {
    /// `POST {id}/<name>` on `/conversations`, one change of a conversation: decode the body, read what the
    /// change needs from it (`prepare`, before the state is read), check the caller may see the
    /// conversation, change it and answer it as stored — with `expand` applied where the operation takes it.
    func conversationChange<Body: Decodable & Sendable, Input: Sendable>(
        _ name: String, role: AuthorizationRole, _ body: Body.Type, expands: Bool = true, environment env: CollabEnvironment,
        prepare: @escaping @Sendable (Body) throws(CollabError) -> Input,
        _ apply: @escaping @Sendable (inout AccountState, String, Input, Principal, OperationContext, inout ChangeSet) throws(CollabError)
            -> Conversation
    ) {
        operation(.post, RouterPath(":conversationId/\(name)"), role: role) { request, context in
            let expand = expands ? try Expansion(request) : Expansion()
            let id = try context.pathParameter("conversationId")
            let input = try prepare(try await env.decode(Body.self, from: request))
            let conversation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                return state.webConversation(try apply(&state, id, input, context.principal, op, &changes), expand: expand)
            }
            return JSONBody.response(conversation)
        }
    }

    /// ``conversationChange(_:role:_:expands:environment:prepare:_:)`` for a change that takes the body as it is.
    func conversationChange<Body: Decodable & Sendable>(
        _ name: String, role: AuthorizationRole, _ body: Body.Type, expands: Bool = true, environment env: CollabEnvironment,
        _ apply: @escaping @Sendable (inout AccountState, String, Body, Principal, OperationContext, inout ChangeSet) throws(CollabError)
            -> Conversation
    ) {
        conversationChange(name, role: role, body, expands: expands, environment: env, prepare: { body throws(CollabError) in body }, apply)
    }
}
