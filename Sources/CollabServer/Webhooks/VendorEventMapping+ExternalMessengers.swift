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
        let name = "external_messenger.new_message"
        let fields = ExternalMessengerNewMessageEventFields(conversationMessage: conversationMessage)
        let event = VendorEvent(name, timestamp: message.serverTimestamp, accountId: message.accountId, fields)
        return event.data.map { (eventType: name, body: $0) }
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

/// The fields of `ExternalMessengerNewMessageEvent`, after the ``VendorEvent`` header.
struct ExternalMessengerNewMessageEventFields: Encodable {
    var conversationMessage: WebTextMessage
}
