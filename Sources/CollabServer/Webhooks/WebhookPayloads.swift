import CollabCore
import CollabWire

/// Builds the vendor-style bodies of webhook deliveries from domain events.
enum WebhookPayloads {
    /// The body for a domain event.
    static func body(for event: DomainEvent, state: borrowing AccountState) -> WebhookEventBody {
        var body = WebhookEventBody(event.kind.rawValue, of: event, WebhookEventFields())
        if let conversation = event.conversation {
            body.conversation = state.webConversation(conversation)
            if event.kind == .conversationEnded {
                body.endReason = conversation.endReason?.rawValue
                body.endComment = conversation.endComment
                body.endPerson = conversation.endPersonId.flatMap { state.persons[$0] }.map { WebPerson($0, expand: Expansion()) }
            }
        }
        if let callId = event.detail["callId"], let call = state.calls[callId] {
            body.call = state.webCall(call)
        }
        if let message = event.message {
            let sender = state.persons[message.senderPersonId].map { WebPerson($0, expand: Expansion()) }
            body.conversationMessage = WebTextMessage(message, sender: sender)
            body.conversation = nil
        }
        return body
    }
}

extension WebWebhookRegistration {
    init(_ registration: WebhookRegistration) {
        self.init(name: registration.name, endpoint: registration.endpoint, events: registration.events, secret: registration.secret)
        showRecordFields(of: registration)
        fields.status = registration.status.rawValue
        fields.description = registration.description
        fields.apiVersion = registration.apiVersion
    }

    func input() throws(CollabError) -> WebhookRegistrationInput {
        let fields = self.fields
        var parsedStatus: WebhookRegistration.Status?
        if let status = fields.status {
            guard let value = WebhookRegistration.Status(rawValue: status) else { throw .badRequest("status must be ACTIVE, INACTIVE or INACTIVE_UNAVAILABLE") }
            parsedStatus = value
        }
        return WebhookRegistrationInput(
            name: fields.name, description: fields.description, status: parsedStatus, endpoint: fields.endpoint, apiVersion: fields.apiVersion,
            secret: fields.secret, events: fields.events
        )
    }
}
