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
        try await call(try bot.outboundTarget(), eventType: eventType, body: body)
    }

    /// Posts an outbound request to `target`, signed like webhooks, and returns its answer's body.
    /// - Throws: `UNAVAILABLE` when its host is not allowed or it does not answer 2xx in time.
    func call(_ target: OutboundTarget, eventType: String, body: Data) async throws(CollabError) -> Data {
        if let host = SignedOutboundRequest.refusedHost(target.endpoint, allowedHosts: settings.allowedHosts) {
            throw CollabError(.unavailable, "host '\(host)' is not in the allowed webhook hosts")
        }
        let request = SignedOutboundRequest.post(
            body, to: target.endpoint, event: eventType, signature: Self.signature(of: body, secret: target.secret), userAgent: "mock-collab-webhooks"
        )
        let client = botClient
        do {
            let (status, answer) = try await DeliveryShutdown.attempt {
                let response = try await client.execute(request, timeout: .milliseconds(target.timeoutMillis))
                return (response.status.code, try await response.body.collect(upTo: 64 * 1024))
            }
            guard (200..<300).contains(Int(status)) else {
                throw CollabError(.unavailable, "\(target.name) answered \(eventType) with HTTP \(status)")
            }
            return Data(answer.readableBytesView)
        } catch let error as CollabError {
            throw error
        } catch {
            let endpoint = RedactedURL.string(target.endpoint)
            throw CollabError(.unavailable, "the endpoint \(endpoint) of \(target.name) did not answer \(eventType): \(error)")
        }
    }
}

/// Where an outbound request goes: a dialog bot, a suggestion source, a custom action's webhook.
struct OutboundTarget: Sendable {
    /// How messages name it ("the dialog bot").
    var name: String
    var endpoint: String
    var secret: String
    var timeoutMillis: Int64
}

extension DialogBot {
    /// Where the bot's requests go, signed with its secret.
    /// - Throws: `UNAVAILABLE` when the bot is not active.
    func outboundTarget() throws(CollabError) -> OutboundTarget {
        guard webhookStatus == .active else { throw CollabError(.unavailable, "the dialog bot is \(webhookStatus?.rawValue ?? "INACTIVE")") }
        return OutboundTarget(
            name: "the dialog bot", endpoint: webhookEndpoint ?? "", secret: webhookSecret ?? "", timeoutMillis: outboundTimeoutMillis ?? 5000
        )
    }
}
