import CollabCore
import CollabWire
import Foundation
import Logging
import Synchronization

/// Drives dialog bots from the event stream: offers a new conversation to its onboarding bot (the
/// vendor's `outbound.bot.onboarding_offer` request, answered with `BotBoardingOfferResponse`), tells
/// the bot its dialog opened (`bot.dialog.opened`) and forwards the visitor's messages
/// (`bot.dialog.message`). Events go through the webhook dispatcher, signed with the bot's secret.
struct BotDialogService: Sendable {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher
    let logger: Logger
    /// Offers waiting for a bot's answer; past `maxPendingOffers` a new conversation goes straight to its queue.
    private let pending = PendingOffers()
    static let maxPendingOffers = 256

    private final class PendingOffers: Sendable {
        let count = Mutex(0)
        /// Takes a slot, unless all are taken.
        func take() -> Bool {
            count.withLock { count in
                guard count < BotDialogService.maxPendingOffers else { return false }
                count += 1
                return true
            }
        }
        func release() { count.withLock { $0 -= 1 } }
    }

    /// Looks at one published event; never blocks (an offer is posted from a task of its own).
    func observe(_ event: DomainEvent) {
        switch event.kind {
        case .conversationOnboarding:
            guard let conversationId = event.conversation?.id else { return }
            guard let offer = try? environment.read(account: event.accountId, { state -> (String, DialogBot, Data)? in
                guard let dialog = state.openBotDialog(conversationId: conversationId), dialog.state == .offered, let bot = state.bots[dialog.botId],
                    let conversation = state.conversations[conversationId]
                else { return nil }
                let body = BotOnboardingOfferRequestBody(
                    accountId: dialog.accountId, dialogToken: dialog.id,
                    onboardingPerson: state.persons[dialog.counterpartPersonId].map { WebPerson($0, expand: Expansion()) },
                    conversation: state.webConversation(conversation)
                )
                guard let data = try? JSONBody.encoder.encode(body) else { return nil }
                return (dialog.id, bot, data)
            }) else { return }
            let accountId = event.accountId
            Task { await self.offer(token: offer.0, accountId: accountId, bot: offer.1, body: offer.2) }
        case .newMessage:
            guard let message = event.message else { return }
            guard let delivery = try? environment.read(account: event.accountId, { state -> (DialogBot, Data)? in
                guard let dialog = state.openBotDialog(conversationId: message.conversationId), dialog.state == .open,
                    message.senderPersonId == dialog.counterpartPersonId, !message.isInternal, let bot = state.bots[dialog.botId]
                else { return nil }
                let body = BotDialogMessageEventBody(
                    timestamp: message.serverTimestamp, accountId: dialog.accountId, dialogToken: dialog.id,
                    conversationMessage: WebTextMessage(
                        id: message.id, conversationId: message.conversationId, accountId: message.accountId,
                        senderPerson: state.persons[message.senderPersonId].map { WebPerson($0, expand: Expansion()) }, timestamp: message.serverTimestamp,
                        text: message.text, internal: false
                    )
                )
                guard let data = try? JSONBody.encoder.encode(body) else { return nil }
                return (bot, data)
            }) else { return }
            dispatcher.enqueue(toBot: delivery.0, eventType: "bot.dialog.message", body: delivery.1, at: message.serverTimestamp)
        case .conversationEnded:
            guard let conversationId = event.conversation?.id,
                (try? environment.read(account: event.accountId, { state in state.openBotDialog(conversationId: conversationId) != nil })) == true
            else { return }
            let accountId = event.accountId
            Task { await self.close(conversationId: conversationId, accountId: accountId) }
        default:
            return
        }
    }

    /// Closes the dialog of an ended conversation and tells its bot (`bot.dialog.closed`).
    private func close(conversationId: String, accountId: String) async {
        do {
            let closed = try await environment.write(account: accountId) { state, changes, op throws(CollabError) -> (DialogBot, Data)? in
                guard let dialog = state.closeDialogOfEndedConversation(conversationId, context: op, changes: &changes), let bot = state.bots[dialog.botId] else { return nil }
                let event = BotDialogClosedEventBody(
                    timestamp: op.now, accountId: accountId, dialogToken: dialog.id, conversationId: conversationId, counterpartPersonId: dialog.counterpartPersonId
                )
                return (try? JSONBody.encoder.encode(event)).map { (bot, $0) }
            }
            if let (bot, data) = closed { dispatcher.enqueue(toBot: bot, eventType: "bot.dialog.closed", body: data, at: environment.clock.now()) }
        } catch {
            logger.warning("closing a dialog bot's dialog failed", metadata: ["conversation": "\(conversationId)", "error": "\(error)"])
        }
    }

    /// Posts the offer and records the answer; a bot that refuses, fails or times out hands the
    /// conversation over to its queue.
    private func offer(token: String, accountId: String, bot: DialogBot, body: Data) async {
        var accepted = false
        if pending.take() {
            do {
                let answer = try await dispatcher.call(bot: bot, eventType: "outbound.bot.onboarding_offer", body: body)
                accepted = (try? JSONDecoder().decode(BotBoardingOfferResponseBody.self, from: answer))?.offerAccepted ?? false
            } catch {
                logger.notice("dialog bot did not take the onboarding offer", metadata: ["bot": "\(bot.id)", "error": "\(error.message)"])
            }
            pending.release()
        } else {
            logger.warning("too many onboarding offers waiting for dialog bots; the conversation goes to its queue", metadata: ["bot": "\(bot.id)"])
        }
        do {
            let opened = try await environment.write(account: accountId) { state, changes, op throws(CollabError) -> (BotDialog, Data)? in
                guard let dialog = try state.answerOnboardingOffer(token: token, accepted: accepted, context: op, changes: &changes), dialog.state == .open,
                    let conversation = state.conversations[dialog.conversationId]
                else { return nil }
                let event = BotDialogOpenEventBody(
                    timestamp: op.now, accountId: accountId, dialogToken: dialog.id,
                    counterpartPerson: state.persons[dialog.counterpartPersonId].map { WebPerson($0, expand: Expansion()) },
                    conversation: state.webConversation(conversation)
                )
                return (try? JSONBody.encoder.encode(event)).map { (dialog, $0) }
            }
            if let (dialog, data) = opened { dispatcher.enqueue(toBot: bot, eventType: "bot.dialog.opened", body: data, at: dialog.creationTimestamp) }
        } catch {
            logger.warning("recording a dialog bot's answer failed", metadata: ["bot": "\(bot.id)", "error": "\(error)"])
        }
    }
}

/// `BotOnboardingOfferRequest`.
struct BotOnboardingOfferRequestBody: Encodable {
    var type = "BotOnboardingOfferRequest"
    var accountId: String
    var serviceName = "dialog bot"
    var dialogToken: String
    var onboardingPerson: WebPerson?
    var conversation: WebConversation

    enum CodingKeys: String, CodingKey { case type = "$_type", accountId, serviceName, dialogToken, onboardingPerson, conversation }
}

/// `BotBoardingOfferResponse`.
struct BotBoardingOfferResponseBody: Codable {
    var type: String?
    var offerAccepted: Bool?

    enum CodingKeys: String, CodingKey { case type = "$_type", offerAccepted }
}

/// `BotDialogOpenEvent`.
struct BotDialogOpenEventBody: Encodable {
    var type = "BotDialogOpenEvent"
    var timestamp: Int64
    var eventType = "bot.dialog.opened"
    var accountId: String
    var dialogToken: String
    var dialogType = "ONBOARDING"
    var counterpartPerson: WebPerson?
    var conversation: WebConversation

    enum CodingKeys: String, CodingKey { case type = "$_type", timestamp, eventType, accountId, dialogToken, dialogType, counterpartPerson, conversation }
}

/// `BotDialogMessageEvent`.
struct BotDialogMessageEventBody: Encodable {
    var type = "BotDialogMessageEvent"
    var timestamp: Int64
    var eventType = "bot.dialog.message"
    var accountId: String
    var dialogToken: String
    var conversationMessage: WebTextMessage

    enum CodingKeys: String, CodingKey { case type = "$_type", timestamp, eventType, accountId, dialogToken, conversationMessage }
}

/// `BotDialogClosedEvent`.
struct BotDialogClosedEventBody: Encodable {
    var type = "BotDialogClosedEvent"
    var timestamp: Int64
    var eventType = "bot.dialog.closed"
    var accountId: String
    var dialogToken: String
    var conversationId: String
    var counterpartPersonId: String

    enum CodingKeys: String, CodingKey { case type = "$_type", timestamp, eventType, accountId, dialogToken, conversationId, counterpartPersonId }
}
