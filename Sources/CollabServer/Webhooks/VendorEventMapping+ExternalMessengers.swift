import CollabCore
import CollabWire
import Foundation

extension VendorEventMapping {
    /// A reply to an external messenger channel: `outbound.external_messenger.new_message`
    /// (`ExternalMessengerNewMessageRequest`) for V4 channels, `external_messenger.new_message`
    /// (`ExternalMessengerNewMessageEvent`) for channels registered with an older webhook API version.
    func externalMessengerBody(
        _ message: ConversationMessage, channel: ExternalMessenger, contacts: [ExternalMessengerContact], in state: borrowing AccountState
    ) -> (eventType: String, body: Data)? {
        let sender = state.persons[message.senderPersonId].map { WebPerson($0, expand: Expansion()) }
        let conversationMessage = WebTextMessage(message, sender: sender)
        if channel.webhookApiVersion ?? "V4" == "V4" {
            let request = ExternalMessengerNewMessageRequestBody(
                accountId: message.accountId, conversationMessage: conversationMessage, receivingContacts: contacts.map { EntityWire.json($0) }
            )
            return (try? JSONBody.encoder.encode(request)).map { (eventType: "outbound.external_messenger.new_message", body: $0) }
        }
        let event = ExternalMessengerNewMessageEventBody(
            timestamp: message.serverTimestamp, accountId: message.accountId, conversationMessage: conversationMessage
        )
        return (try? JSONBody.encoder.encode(event)).map { (eventType: "external_messenger.new_message", body: $0) }
    }
}

/// `ExternalMessengerNewMessageRequest`.
struct ExternalMessengerNewMessageRequestBody: Encodable {
    var type = "ExternalMessengerNewMessageRequest"
    var accountId: String
    var serviceName = "external messenger"
    var conversationMessage: WebTextMessage
    var receivingContacts: [JSONValue]

    enum CodingKeys: String, CodingKey { case type = "$_type", accountId, serviceName, conversationMessage, receivingContacts }
}

/// `ExternalMessengerNewMessageEvent`.
struct ExternalMessengerNewMessageEventBody: Encodable {
    var type = "ExternalMessengerNewMessageEvent"
    var timestamp: Int64
    var eventType = "external_messenger.new_message"
    var accountId: String
    var conversationMessage: WebTextMessage

    enum CodingKeys: String, CodingKey { case type = "$_type", timestamp, eventType, accountId, conversationMessage }
}
