import CollabCore
import CollabWire
import Hummingbird

/// `/conversations/{id}/offboardParticipant`: a participant leaves with one of the vendor's
/// `EConversationLeftReason`s; the assignee leaving makes the conversation UNASSIGNED.
struct ConversationParticipantsRoutes {
    let environment: CollabEnvironment

    /// The vendor's `EConversationLeftReason` values.
    static let leftReasons: Set<String> = [
        "FORWARDED", "PARTICIPANT_LEFT", "REMOVED_AFTER_TIMEOUT", "ONBOARDING_DECLINED", "ONBOARDING_IDLE_TIMEOUT", "ONBOARDING_TIMEOUT", "USER_CHANGED",
        "KICKED", "CONVERSATION_UNASSIGNED", "CONVERSATION_REQUEUED", "PUBLIC_DIALIN_ENDED", "EXTERNAL_CONTACT_UNLINKED", "ASSISTANT_SYNCHRONIZATION", "OTHER",
    ]

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let conversations = group.group("conversations")
        conversations.operation(.post, ":conversationId/offboardParticipant", role: .admin) { request, context in
            let id = try context.pathParameter("conversationId")
            let body = try await env.decode(WebOffboardParticipantBody.self, from: request)
            guard let personId = body.personId, !personId.isEmpty else { throw CollabError.badRequest("personId is required") }
            if let reason = body.reason, !Self.leftReasons.contains(reason) { throw CollabError.badRequest("reason '\(reason)' is not an EConversationLeftReason") }
            try Limits.checkOptional(body.comment, field: "comment", max: Limits.textLength)
            let conversation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                let changed = try state.offboardParticipant(
                    id, personId: personId, reason: body.reason, accountId: try ownAccount(nil, context.principal), context: op, changes: &changes
                )
                return state.webConversation(changed)
            }
            return JSONBody.response(conversation)
        }
    }
}

/// `ConversationsOffboardParticipantBody`.
struct WebOffboardParticipantBody: Codable, Sendable {
    var personId: String?
    var reason: String?
    var comment: String?
}
