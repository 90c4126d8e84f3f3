import CollabCore
import CollabWire
import Foundation

extension WebhookDispatcher {
    /// Pings an outbound endpoint the vendor's way: posts a `PingRequest` and checks the answer is the
    /// `PingResponse` carrying the same `pingId`.
    /// - Parameter serviceName: What the request says is pinging ("dialog bot", "message interceptor").
    /// - Throws: `UNAVAILABLE` when the endpoint does not answer, or not with its ping's `PingResponse`.
    func ping(_ target: OutboundTarget, accountId: String, serviceName: String) async throws(CollabError) -> BotPingResponse {
        let pingId = UUID().uuidString.lowercased()
        let request = BotPingRequest(accountId: accountId, serviceName: serviceName, pingId: pingId)
        let body: Data
        do { body = try JSONBody.encoder.encode(request) } catch { throw CollabError(.internalError, "the PingRequest could not be encoded") }
        let answer = try await call(target, eventType: "outbound.ping", body: body)
        guard let response = try? JSONDecoder().decode(BotPingResponse.self, from: answer), response.pingId == pingId else {
            throw CollabError(.unavailable, "\(target.name) did not answer the ping with a PingResponse carrying its pingId")
        }
        return response
    }

    /// Queues the vendor's `ping` (`WebhookPingEvent`) to a file-upload interceptor's endpoint, signed
    /// with its secret and delivered (with retries) like any webhook. A global interceptor's ping names
    /// no account (its deliveries are queued under the account id "").
    func ping(_ interceptor: FileUploadInterceptor, now: Timestamp) {
        let accountId = interceptor.accountId.isEmpty ? nil : interceptor.accountId
        let body = WebhookEventBody("ping", timestamp: now, accountId: accountId, WebhookEventFields())
        guard let data = try? JSONBody.encoder.encode(body) else { return }
        enqueue([
            ResolvedWebhook(
                registrationId: interceptor.id, accountId: interceptor.accountId, name: "file upload interceptor \(interceptor.name)",
                endpoint: interceptor.endpoint, secret: interceptor.secret, eventType: "ping", body: data, createdAt: now
            )
        ])
    }
}
