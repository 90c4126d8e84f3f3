import CollabCore
import CollabWire
import Hummingbird

/// `/bots/dialogMessageDelivered`, `dialogMessageRead`, `cancelPendingQuestion`,
/// `cancelPendingDialogQuestions` and `restrictDialogCounterpart`: what a dialog bot does with the
/// messages of its dialog besides writing them.
struct BotMessageRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        for (path, mark) in [("dialogMessageDelivered", AccountState.MessageState.delivered), ("dialogMessageRead", .read)] {
            command(path, on: group) { state, body, principal, op, changes throws(CollabError) in
                let token = try requireField(body.dialogToken, "dialogToken")
                let messageId = try requireField(body.messageId, "messageId")
                try state.markDialogMessage(token: token, messageId: messageId, state: mark, for: principal, context: op, changes: &changes)
            }
        }
        command("cancelPendingQuestion", on: group) { state, body, principal, op, changes throws(CollabError) in
            let conversationId = try requireField(body.conversationId, "conversationId")
            let messageId = try requireField(body.questionMessageId, "questionMessageId")
            try state.cancelPendingQuestion(conversationId: conversationId, messageId: messageId, for: principal, context: op, changes: &changes)
        }
        command("cancelPendingDialogQuestions", on: group) { state, body, principal, op, changes throws(CollabError) in
            try state.cancelPendingDialogQuestions(
                token: try requireField(body.dialogToken, "dialogToken"), for: principal, context: op, changes: &changes)
        }
        command("restrictDialogCounterpart", on: group) { state, body, principal, _, changes throws(CollabError) in
            let token = try requireField(body.dialogToken, "dialogToken")
            let length = try requireField(body.maxChatInputLength, "maxChatInputLength")
            try state.restrictDialogCounterpart(token: token, maxChatInputLength: length, for: principal, changes: &changes)
        }
    }

    /// One of them (ADMIN, as the spec says for each): decode the body, change the state, answer 204.
    private func command(
        _ path: String, on group: RouterGroup<CollabRequestContext>,
        _ apply: @escaping @Sendable (inout AccountState, WebBotMessageBody, Principal, OperationContext, inout ChangeSet) throws(CollabError) -> Void
    ) {
        let env = environment
        group.operation(.post, RouterPath(path), role: .admin) { request, context in
            let body = try await env.decode(WebBotMessageBody.self, from: request)
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try apply(&state, body, context.principal, op, &changes)
            }
            return noContent
        }
    }
}

/// `BotsDialogMessageDeliveredBody`, `BotsDialogMessageReadBody`, `BotsCancelPendingQuestionBody`,
/// `BotsCancelPendingDialogQuestionsBody`, `BotsRestrictDialogCounterpartBody`.
struct WebBotMessageBody: Codable, Sendable {
    var dialogToken: String?
    var messageId: String?
    var conversationId: String?
    var questionMessageId: String?
    var maxChatInputLength: Int?
}
