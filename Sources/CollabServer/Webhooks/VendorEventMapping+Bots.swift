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
            let fields = BotDialogOpenEventFields(
                dialogToken: dialog.id, counterpartPerson: person(dialog.counterpartPersonId), conversation: state.webConversation(conversation)
            )
            return VendorEvent("bot.dialog.opened", timestamp: time, accountId: dialog.accountId, fields).data
        case .dialogMessage(let dialog, let message):
            let fields = BotDialogMessageEventFields(
                dialogToken: dialog.id, conversationMessage: WebTextMessage(message, sender: person(message.senderPersonId))
            )
            return VendorEvent("bot.dialog.message", timestamp: message.serverTimestamp, accountId: dialog.accountId, fields).data
        case .dialogClosed(let dialog, let time):
            let fields = BotDialogClosedEventFields(
                dialogToken: dialog.id, conversationId: dialog.conversationId, counterpartPersonId: dialog.counterpartPersonId
            )
            return VendorEvent("bot.dialog.closed", timestamp: time, accountId: dialog.accountId, fields).data
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

/// The fields of `BotDialogOpenEvent`, after the ``VendorEvent`` header.
struct BotDialogOpenEventFields: Encodable {
    var dialogToken: String
    var dialogType = "ONBOARDING"
    var counterpartPerson: WebPerson?
    var conversation: WebConversation
}

/// The fields of `BotDialogMessageEvent`.
struct BotDialogMessageEventFields: Encodable {
    var dialogToken: String
    var conversationMessage: WebTextMessage
}

/// The fields of `BotDialogClosedEvent`.
struct BotDialogClosedEventFields: Encodable {
    var dialogToken: String
    var conversationId: String
    var counterpartPersonId: String
}
