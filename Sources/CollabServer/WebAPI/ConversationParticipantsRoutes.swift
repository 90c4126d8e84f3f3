import CollabCore
import CollabWire
import Hummingbird

/// `/conversations/{id}/offboardParticipant`: a participant leaves with one of the vendor's
/// `EConversationLeftReason`s; the assignee leaving makes the conversation UNASSIGNED.
struct ConversationParticipantsRoutes {
    let environment: CollabEnvironment

    /// The vendor's `EConversationLeftReason` values.
    static let leftReasons: Set<String> = [
        "FORWARDED", "PARTICIPANT_LEFT", "REMOVED_AFTER_TIMEOUT", "ONBOARDING_DECLINED", "ONBOARDING_IDLE_TIMEOUT", "ONBOARDING_TIMEOUT",
        "USER_CHANGED", "KICKED", "CONVERSATION_UNASSIGNED", "CONVERSATION_REQUEUED", "PUBLIC_DIALIN_ENDED", "EXTERNAL_CONTACT_UNLINKED",
        "ASSISTANT_SYNCHRONIZATION", "OTHER",
    ]

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let conversations = group.group("conversations")
        conversations.conversationChange(
            "offboardParticipant", role: .admin, WebOffboardParticipantBody.self, expands: false, environment: env,
            prepare: { body throws(CollabError) in
                guard let personId = body.personId, !personId.isEmpty else { throw .badRequest("personId is required") }
                if let reason = body.reason, !Self.leftReasons.contains(reason) {
                    throw .badRequest("reason '\(reason)' is not an EConversationLeftReason")
                }
                try Limits.checkOptional(body.comment, field: "comment", max: Limits.textLength)
                return (personId: personId, reason: body.reason)
            }
        ) { state, id, offboarding, principal, op, changes throws(CollabError) in
            try state.offboardParticipant(
                id, personId: offboarding.personId, reason: offboarding.reason, accountId: try ownAccount(nil, principal), context: op,
                changes: &changes
            )
        }
    }
}

/// `ConversationsOffboardParticipantBody`.
struct WebOffboardParticipantBody: Codable, Sendable {
    var personId: String?
    var reason: String?
    var comment: String?
}
