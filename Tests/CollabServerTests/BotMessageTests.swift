import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

extension BotDialogTests {
    @Test("the bot marks the counterpart's message delivered and read, cancels its questions, and limits the counterpart's input")
    func messageStatesQuestionsAndInputLimit() async throws {
        let bot = try await BotReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            _ = try await call(admin, "POST", "bots/create", botBody("Marker", endpoint: bot.url), schema: "DialogBotData")
            let app = visitor(server, device: "marker-phone")
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            let conversation = try await app.startConversation(topic: "marks")
            let opened = try checkDelivery(try await bot.wait(for: "outbound.bot.dialog.opened"), schema: "BotDialogOpenRequest")
            let token = try #require(opened["dialogToken"] as? String)

            _ = try await app.send("is anyone there?", in: conversation.id)
            let heard = try checkDelivery(try await bot.wait(for: "outbound.bot.dialog.message"), schema: "BotDialogMessageRequest")
            let messageId = try #require((heard["conversationMessage"] as? [String: Any])?["id"] as? String)
            for (path, state) in [("dialogMessageDelivered", "DELIVERED"), ("dialogMessageRead", "READ")] {
                _ = try await call(admin, "POST", "bots/\(path)", #"{"dialogToken":"\#(token)","messageId":"\#(messageId)"}"#, status: 204)
                _ = try await events.wait(for: "the message \(state)") {
                    if case .live(let event) = $0 {
                        return event.type == "conversation.message_state" && event.message?.id == messageId && event.detail?["state"] == state
                    }
                    return false
                }
            }

            let asked = try await call(
                admin, "POST", "bots/sendDialogMessage",
                #"{"$_type":"BotDialogPostMessage","dialogToken":"\#(token)","messageData":{"type":"TEXT_QUESTION","text":"Your name?"}}"#,
                schema: "SendMessageResult"
            )
            let questionId = try #require(asked["messageId"] as? String)
            let cancel = #"{"conversationId":"\#(conversation.id)","questionMessageId":"\#(questionId)"}"#
            _ = try await call(admin, "POST", "bots/cancelPendingQuestion", cancel, status: 204)
            _ = try await call(admin, "POST", "bots/cancelPendingQuestion", cancel, status: 409)
            let notQuestion = #"{"conversationId":"\#(conversation.id)","questionMessageId":"\#(messageId)"}"#
            _ = try await call(admin, "POST", "bots/cancelPendingQuestion", notQuestion, status: 400)
            _ = try await call(admin, "POST", "bots/cancelPendingDialogQuestions", #"{"dialogToken":"\#(token)"}"#, status: 204)

            _ = try await call(admin, "POST", "bots/restrictDialogCounterpart", #"{"dialogToken":"\#(token)","maxChatInputLength":5}"#, status: 204)
            _ = try await call(admin, "POST", "bots/restrictDialogCounterpart", #"{"dialogToken":"\#(token)","maxChatInputLength":0}"#, status: 400)
            do throws(CollabClientError) {
                _ = try await app.send("longer than five", in: conversation.id)
                Issue.record("the counterpart's message is longer than the dialog allows")
            } catch {
                #expect(error.code == .badRequest)
            }
            _ = try await app.send("ok", in: conversation.id)
        }
        try await bot.stop()
    }
}
