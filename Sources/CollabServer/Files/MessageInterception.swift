import AsyncHTTPClient
import CollabCore
import CollabPush
import CollabWire
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Asks external message interceptors, the vendor's way: a signed
/// `outbound.message_interceptor.new_message` POST whose response body approves or rejects the
/// message. No usable answer within the timeout follows the interceptor's `timeoutBehavior`.
final class MessageInterception: Sendable {
    enum Decision: Sendable, Equatable {
        case approved
        case rejected(reason: String, severity: String?)
    }

    private let call: InterceptorCall
    /// The clock an interceptor's time to answer runs on (``ServerConfiguration/uploadClock``).
    private let clock: any Clock<Duration>

    init(call: InterceptorCall, clock: any Clock<Duration>) {
        self.call = call
        self.clock = clock
    }

    /// How much longer than its timeout the HTTP exchange itself may take, on the system's clock: a
    /// safety net only, for a clock that a test does not move.
    static let transportGrace = Duration.seconds(30)

    /// The MockCollab property (ACCOUNT scope and above) bounding each interceptor's answer, in ms.
    static let timeoutKey = "com.unblu.messageinterceptor.timeoutMillis"

    func ask(_ interceptor: MessageInterceptor, about message: WebTextMessage, accountId: String, timeout: Duration) async -> Decision {
        var request = WebInterceptorNewMessageRequest()
        request.accountId = accountId
        request.serviceName = "mock-collab"
        request.conversationMessage = message
        let fallback: Decision = interceptor.timeoutBehavior == .continue
            ? .approved : .rejected(reason: "the message interceptor '\(interceptor.name)' did not answer in time", severity: nil)
        let call = self.call
        let clock = self.clock
        let (body, endpoint, secret) = (request, interceptor.endpoint, interceptor.secret)
        // The answer races the timeout on the injected clock; the one that ends first cancels the other.
        let outcome = await withTaskGroup(of: InterceptorCall.Outcome?.self) { race in
            race.addTask {
                await call.post(
                    body, event: "outbound.message_interceptor.new_message", endpoint: endpoint, secret: secret,
                    timeout: timeout + Self.transportGrace)
            }
            race.addTask {
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await race.next() ?? nil
            race.cancelAll()
            return first
        }
        guard case .answered(let status, let answer) = outcome, (200..<300).contains(status),
            let decision = try? JSONDecoder().decode(WebMessageInterceptorDecision.self, from: Data(buffer: answer))
        else { return fallback }
        switch decision.decision {
        case "APPROVE": return .approved
        case "REJECT":
            return .rejected(reason: decision.reason ?? "rejected by the message interceptor '\(interceptor.name)'", severity: decision.severity)
        default: return fallback
        }
    }
}

/// What reviews a message before it is stored: the account's message interceptors, and the webhook
/// dispatcher that announces a rejection (`message_interceptor.message_rejected`). The routes that
/// post messages call it with the body they decoded; uploads call it (through ``FileReview``) with the
/// FILE message. A rejection is the 403 `MESSAGE_REJECTED` refusal a FILE message gets too.
struct MessageReview: Sendable {
    let environment: CollabEnvironment
    let interception: MessageInterception
    let webhooks: WebhookDispatcher

    static let rejectedEvent = "message_interceptor.message_rejected"

    /// Asks the interceptors that review the sender's messages about a text message to `conversationId`.
    /// One read of the account finds them (only accounts with interceptors pay more than that read).
    func review(_ body: SendMessageRequest, conversationId: String, senderPersonId: String, principal: Principal) async throws(FileRefusal) {
        guard let accountId = principal.accountId else { return }
        let found = try? environment.read(account: accountId) { state -> ([MessageInterceptor], WebPerson?, Int)? in
            let interceptors = state.messageInterceptors(reviewing: senderPersonId)
            guard !interceptors.isEmpty, let conversation = state.conversations[conversationId], conversation.isParticipant(senderPersonId) else {
                return nil
            }
            return (interceptors, state.persons[senderPersonId].map { WebPerson($0, expand: Expansion()) }, Self.timeoutMillis(state))
        }
        // An unknown conversation, or one the sender is not in, is the route's to refuse.
        guard let (interceptors, sender, timeoutMillis) = found ?? nil else { return }
        let message = WebTextMessage(
            id: "", conversationId: conversationId, accountId: accountId, senderPerson: sender, timestamp: environment.clock.now(), text: body.text,
            internal: body.internal ?? false
        )
        try await ask(interceptors, about: message, accountId: accountId, timeoutMillis: timeoutMillis)
    }

    /// Asks `interceptors` in order; the first rejection fires the webhook event and refuses the message.
    func ask(_ interceptors: [MessageInterceptor], about message: WebTextMessage, accountId: String, timeoutMillis: Int) async throws(FileRefusal) {
        for interceptor in interceptors {
            let decision = await interception.ask(interceptor, about: message, accountId: accountId, timeout: .milliseconds(timeoutMillis))
            guard case .rejected(let reason, let severity) = decision else { continue }
            environment.announceRejected(message, reason: reason, severity: severity, accountId: accountId, to: webhooks)
            throw FileRefusal(.messageRejected, "the message was rejected: \(reason)")
        }
    }

    /// How long each interceptor may take to answer: `com.unblu.messageinterceptor.timeoutMillis`
    /// along the account's cascade (default 5000, 100 to 60000).
    static func timeoutMillis(_ state: borrowing AccountState) -> Int {
        let configured = (try? state.configuration(accountId: state.accountId))?.int(MessageInterception.timeoutKey, default: 5000) ?? 5000
        return min(max(configured, 100), 60_000)
    }
}

extension CollabEnvironment {
    /// Queues `message_interceptor.message_rejected` for the webhook registrations that want it.
    func announceRejected(_ message: WebTextMessage, reason: String, severity: String?, accountId: String, to webhooks: WebhookDispatcher) {
        let name = MessageReview.rejectedEvent
        var event = WebMessageRejectedEvent(name, timestamp: clock.now(), accountId: accountId, WebMessageRejectedFields())
        event.message = message
        event.reason = reason
        event.severity = severity
        guard let registrations = try? read(account: accountId, { $0.webhooks(accountId: accountId, wanting: name) }),
            !registrations.isEmpty, let body = try? JSONBody.encoder.encode(event)
        else { return }
        webhooks.enqueue(registrations.map { ResolvedWebhook($0, eventType: name, body: body, createdAt: event.timestamp) })
    }
}
