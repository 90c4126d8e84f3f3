import AsyncHTTPClient
import CollabCore
import CollabWire
import Foundation
import NIOCore
import NIOHTTP1

extension WebhookDispatcher {
    /// Queues an event (`bot.dialog.message`, …) to a bot's endpoint, signed with the bot's secret and
    /// retried like any webhook delivery. Nothing is sent while the bot's status is not ACTIVE.
    func enqueue(toBot bot: DialogBot, eventType: String, body: Data, at timestamp: Timestamp) {
        guard bot.webhookStatus == .active else { return }
        submit(Job(registration: Self.registration(for: bot), eventType: eventType, body: body, createdAt: timestamp))
    }

    /// Posts an outbound request (`outbound.ping`, `outbound.bot.onboarding_offer`, …) to a bot and
    /// returns its answer's body, waiting at most the bot's `outboundTimeoutMillis`.
    /// - Throws: `UNAVAILABLE` when the bot is inactive, its host is not allowed, or it does not answer 2xx in time.
    func call(bot: DialogBot, eventType: String, body: Data) async throws(CollabError) -> Data {
        guard bot.webhookStatus == .active else { throw CollabError(.unavailable, "the dialog bot is \(bot.webhookStatus.rawValue)") }
        if let allowed = settings.allowedHosts {
            let host = URL(string: bot.webhookEndpoint)?.host?.lowercased() ?? ""
            guard allowed.contains(host) else { throw CollabError(.unavailable, "host '\(host)' is not in the allowed webhook hosts") }
        }
        var request = HTTPClientRequest(url: bot.webhookEndpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "mock-collab-webhooks")
        request.headers.add(name: WebhookHeaders.event, value: eventType)
        request.headers.add(name: WebhookHeaders.signature, value: Self.signature(of: body, secret: bot.webhookSecret))
        request.headers.add(name: WebhookHeaders.delivery, value: UUID().uuidString.lowercased())
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await Self.outboundClient.execute(request, timeout: .milliseconds(bot.outboundTimeoutMillis))
            let answer = try await response.body.collect(upTo: 64 * 1024)
            guard (200..<300).contains(Int(response.status.code)) else {
                throw CollabError(.unavailable, "the dialog bot answered \(eventType) with HTTP \(response.status.code)")
            }
            return Data(answer.readableBytesView)
        } catch let error as CollabError {
            throw error
        } catch {
            throw CollabError(.unavailable, "the dialog bot's endpoint \(RedactedURL.string(bot.webhookEndpoint)) did not answer \(eventType): \(error)")
        }
    }

    /// The client for outbound requests: shared, never following redirects.
    static let outboundClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)

    /// A stand-in registration so bot deliveries share the dispatcher's queue, retries and log.
    private static func registration(for bot: DialogBot) -> WebhookRegistration {
        WebhookRegistration(
            id: bot.id, accountId: bot.accountId, name: "dialog bot \(bot.name)", description: nil, status: bot.webhookStatus, endpoint: bot.webhookEndpoint,
            secret: bot.webhookSecret, events: [], creationTimestamp: bot.creationTimestamp, modificationTimestamp: bot.modificationTimestamp
        )
    }
}
