import AsyncHTTPClient
import CollabCore
import CollabPush
import CollabWire
import Foundation
import NIOCore
import NIOHTTP1

extension WebhookDispatcher {
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
            let response = try await botClient.execute(request, timeout: .milliseconds(bot.outboundTimeoutMillis))
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
}
