import CollabCore
import CollabWire
import Foundation

extension VendorEventMapping {
    func botBody(_ message: BotMessage, in state: borrowing AccountState) -> Data? {
        func person(_ id: String) -> WebPerson? { state.persons[id].map { WebPerson($0, expand: Expansion()) } }
        switch message {
        case .onboardingOffer(let dialog, let conversation):
            return try? JSONBody.encoder.encode(
                BotOnboardingOfferRequestBody(
                    accountId: dialog.accountId, dialogToken: dialog.id, onboardingPerson: person(dialog.counterpartPersonId),
                    conversation: state.webConversation(conversation)
                )
            )
        case .dialogOpened(let dialog, let conversation, let time):
            return try? JSONBody.encoder.encode(
                BotDialogOpenEventBody(
                    timestamp: time, accountId: dialog.accountId, dialogToken: dialog.id, counterpartPerson: person(dialog.counterpartPersonId),
                    conversation: state.webConversation(conversation)
                )
            )
        case .dialogMessage(let dialog, let message):
            return try? JSONBody.encoder.encode(
                BotDialogMessageEventBody(
                    timestamp: message.serverTimestamp, accountId: dialog.accountId, dialogToken: dialog.id,
                    conversationMessage: WebTextMessage(message, sender: person(message.senderPersonId))
                )
            )
        case .dialogClosed(let dialog, let time):
            return try? JSONBody.encoder.encode(
                BotDialogClosedEventBody(
                    timestamp: time, accountId: dialog.accountId, dialogToken: dialog.id, conversationId: dialog.conversationId,
                    counterpartPersonId: dialog.counterpartPersonId
                )
            )
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

    enum CodingKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId, dialogToken, dialogType, counterpartPerson, conversation
    }
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
