import CollabCore
import CollabWire
import Foundation
import Hummingbird

/// `/bots/sendDialogMessage`, `finishDialog`, `startDialogBotTypingIndicator` and
/// `cancelDialogBotTypingIndicator`: what a dialog bot does in its dialog.
struct BotDialogRoutes {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "sendDialogMessage", role: .admin) { request, context in
            let body = try await env.decode(BotDialogPostMessageBody.self, from: request)
            if let type = body.type, type != "BotDialogPostMessage" {
                throw CollabError.badRequest("$_type must be 'BotDialogPostMessage', not '\(type)'")
            }
            guard let token = body.dialogToken, !token.isEmpty else { throw CollabError.badRequest("dialogToken is required") }
            guard let data = body.messageData else { throw CollabError.badRequest("messageData is required") }
            let question = data.type.flatMap { BotQuestion.types.contains($0) ? $0 : nil }
            guard data.type == nil || data.type == "TEXT" || question != nil else {
                throw CollabError.badRequest("messageData.type: the mock's bots send TEXT and question messages only, not '\(data.type ?? "")'")
            }
            guard let text = data.text else { throw CollabError.badRequest("messageData.text is required") }
            let message = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.sendDialogMessage(token: token, text: text, question: question, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(SendMessageResultBody(messageId: message.id))
        }
        for (path, typing) in [("startDialogBotTypingIndicator", true), ("cancelDialogBotTypingIndicator", false)] {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                let body = try await env.decode(BotsFinishDialogBody.self, from: request)
                guard let token = body.dialogToken, !token.isEmpty else { throw CollabError.badRequest("dialogToken is required") }
                try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.setDialogBotTyping(token: token, typing: typing, for: context.principal, context: op, changes: &changes)
                }
                return noContent
            }
        }
        group.operation(.post, "finishDialog", role: .admin) { request, context in
            let body = try await env.decode(BotsFinishDialogBody.self, from: request)
            guard let token = body.dialogToken, !token.isEmpty else { throw CollabError.badRequest("dialogToken is required") }
            guard let reasonText = body.reason, let reason = AccountState.BotDialogFinishReason(rawValue: reasonText) else {
                throw CollabError.badRequest("reason must be HAND_OFF, SOLVED or ABORTED")
            }
            // The bot is told (`bot.dialog.closed`) by the write's resolved effects.
            _ = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.finishDialog(token: token, reason: reason, for: context.principal, context: op, changes: &changes)
            }
            return noContent
        }
    }
}

/// `BotDialogPostMessage`, with the `TextPostMessageData` the mock's bots send.
struct BotDialogPostMessageBody: Codable, Sendable {
    struct MessageData: Codable, Sendable {
        var type: String?
        var text: String?
        var fallbackText: String?
    }

    var type: String?
    var dialogToken: String?
    var messageData: MessageData?

    enum CodingKeys: String, CodingKey { case type = "$_type", dialogToken, messageData }
}

/// `BotsFinishDialogBody` (and the typing indicator bodies, which carry only the `dialogToken`).
struct BotsFinishDialogBody: Codable, Sendable {
    var dialogToken: String?
    var reason: String?
}

/// `SendMessageResult`.
struct SendMessageResultBody: Codable, Sendable {
    var type = "SendMessageResult"
    var messageId: String

    enum CodingKeys: String, CodingKey { case type = "$_type", messageId }
}
