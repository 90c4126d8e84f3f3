import CollabCore
import CollabWire
import Hummingbird

/// `/bots/dialogMessageDelivered`, `dialogMessageRead`, `cancelPendingQuestion`,
/// `cancelPendingDialogQuestions` and `restrictDialogCounterpart`: what a dialog bot does with the
/// messages of its dialog besides writing them.
struct BotMessageRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        for (path, mark) in [("dialogMessageDelivered", AccountState.MessageState.delivered), ("dialogMessageRead", .read)] {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                let body = try await env.decode(WebBotMessageBody.self, from: request)
                let token = try requireField(body.dialogToken, "dialogToken")
                let messageId = try requireField(body.messageId, "messageId")
                try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.markDialogMessage(token: token, messageId: messageId, state: mark, for: context.principal, context: op, changes: &changes)
                }
                return noContent
            }
        }
        group.operation(.post, "cancelPendingQuestion", role: .admin) { request, context in
            let body = try await env.decode(WebBotMessageBody.self, from: request)
            let conversationId = try requireField(body.conversationId, "conversationId")
            let messageId = try requireField(body.questionMessageId, "questionMessageId")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.cancelPendingQuestion(conversationId: conversationId, messageId: messageId, for: context.principal, context: op, changes: &changes)
            }
            return noContent
        }
        group.operation(.post, "cancelPendingDialogQuestions", role: .admin) { request, context in
            let body = try await env.decode(WebBotMessageBody.self, from: request)
            let token = try requireField(body.dialogToken, "dialogToken")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.cancelPendingDialogQuestions(token: token, for: context.principal, context: op, changes: &changes)
            }
            return noContent
        }
        group.operation(.post, "restrictDialogCounterpart", role: .admin) { request, context in
            let body = try await env.decode(WebBotMessageBody.self, from: request)
            let token = try requireField(body.dialogToken, "dialogToken")
            let length = try requireField(body.maxChatInputLength, "maxChatInputLength")
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in
                try state.restrictDialogCounterpart(token: token, maxChatInputLength: length, for: context.principal, changes: &changes)
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
