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
        case .dialogOpened(let dialog, let conversation, _):
            return try? JSONBody.encoder.encode(
                BotDialogOpenRequestBody(
                    accountId: dialog.accountId, dialogToken: dialog.id, counterpartPerson: person(dialog.counterpartPersonId),
                    conversation: state.webConversation(conversation)
                )
            )
        case .dialogMessage(let dialog, let message):
            return try? JSONBody.encoder.encode(
                BotDialogMessageRequestBody(
                    accountId: dialog.accountId, dialogToken: dialog.id,
                    conversationMessage: WebTextMessage(message, sender: person(message.senderPersonId))
                )
            )
        case .dialogClosed(let dialog, _):
            return try? JSONBody.encoder.encode(
                BotDialogClosedRequestBody(
                    accountId: dialog.accountId, dialogToken: dialog.id, conversationId: dialog.conversationId,
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

/// `BotDialogOpenRequest`: `outbound.bot.dialog.opened`.
struct BotDialogOpenRequestBody: Encodable {
    var type = "BotDialogOpenRequest"
    var accountId: String
    var serviceName = "dialog bot"
    var dialogToken: String
    var dialogType = "ONBOARDING"
    var counterpartPerson: WebPerson?
    var conversation: WebConversation

    enum CodingKeys: String, CodingKey { case type = "$_type", accountId, serviceName, dialogToken, dialogType, counterpartPerson, conversation }
}

/// `BotDialogMessageRequest`: `outbound.bot.dialog.message`.
struct BotDialogMessageRequestBody: Encodable {
    var type = "BotDialogMessageRequest"
    var accountId: String
    var serviceName = "dialog bot"
    var dialogToken: String
    var conversationMessage: WebTextMessage

    enum CodingKeys: String, CodingKey { case type = "$_type", accountId, serviceName, dialogToken, conversationMessage }
}

/// `BotDialogClosedRequest`: `outbound.bot.dialog.closed`.
struct BotDialogClosedRequestBody: Encodable {
    var type = "BotDialogClosedRequest"
    var accountId: String
    var serviceName = "dialog bot"
    var dialogToken: String
    var conversationId: String
    var counterpartPersonId: String

    enum CodingKeys: String, CodingKey { case type = "$_type", accountId, serviceName, dialogToken, conversationId, counterpartPersonId }
}
