import CollabCore
import Foundation
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
    /// `registration` as the Web API shows it, without its secret (the ping event's `webhookConfiguration`).
    init?(withoutSecret registration: WebhookRegistration) {
        var shown = registration
        shown.secret = nil
        guard let data = try? JSONBody.encoder.encode(EntityWire.json(shown)), let web = try? JSONDecoder().decode(Self.self, from: data) else {
            return nil
        }
        self = web
    }
}
