import AsyncHTTPClient
import CollabWire
import Foundation
import NIOCore
import NIOHTTP1

/// What every outbound call of the server shares — webhooks, dialog bots, message and file-upload
/// interceptors: the host check against `--webhook-hosts`, and a JSON POST signed like the vendor's
/// webhooks (`x-unblu-event`, `x-unblu-signature-256`, `x-unblu-delivery`).
enum SignedOutboundRequest {
    /// The host of `endpoint` when `allowedHosts` leaves it out (`nil` allows every host), else `nil`.
    static func refusedHost(_ endpoint: String, allowedHosts: Set<String>?) -> String? {
        guard let allowedHosts else { return nil }
        let host = URL(string: endpoint)?.host?.lowercased() ?? ""
        return allowedHosts.contains(host) ? nil : host
    }

    /// A POST of `body` to `endpoint`; `signature` is ``WebhookDispatcher/signature(of:secret:)`` of
    /// the body, computed once for every attempt of a delivery.
    static func post(
        _ body: Data, to endpoint: String, event: String, signature: String, deliveryId: String = UUID().uuidString.lowercased(),
        userAgent: String
    ) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: WebhookHeaders.event, value: event)
        request.headers.add(name: WebhookHeaders.signature, value: signature)
        request.headers.add(name: WebhookHeaders.delivery, value: deliveryId)
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }
}
