import CollabClient
import CollabCore
import CollabServer
import CollabStore
import Logging
import CollabWire
import Foundation
import Testing

/// The webhook host allowlist cannot be bypassed by a redirect: deliveries never follow one.
@Suite("Webhook redirects")
struct WebhookRedirectTests {
    @Test("an allowed endpoint answering 307 to a host outside --webhook-hosts fails the delivery; the other host gets nothing")
    func redirectNotFollowed() async throws {
        let outside = try await WebhookReceiver()
        let redirector = try await RedirectingEndpoint(location: outside.url)
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, seed: queueSeed, controlToken: "test-control-token", passwordHashCost: 4,
            webhookAllowedHosts: ["localhost"]
        )
        let logs = CapturedLogs()
        let server = try await TestServer.start(configuration: configuration, logger: logs.logger(level: .info))
        do {
            let admin = server.admin("admin-d", "pw").transport
            let registration: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(
                    name: "redirected", endpoint: redirector.url(host: "localhost") + "?token=s3cr3t-value&x=1", events: ["webhook.ping"])
            )
            try await admin.sendWithoutResult("POST", "/app/rest/v4/webhookregistrations/\(registration.id!)/sendPing")
            // The delivery log is the barrier: a followed redirect would have reached `outside` before
            // the attempt was recorded.
            var delivery: WebhookDelivery?
            for _ in 0..<500 {
                delivery = try await server.control.transport.send("GET", "/_mock/v1/webhooks/deliveries", as: WebhookDeliveryPage.self)
                    .deliveries.first
                if delivery?.state == "FAILED" || delivery?.state == "DELIVERED" { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(delivery?.state == "FAILED")
            #expect(delivery?.attempts.count == 1, "a redirect is final, not retried")
            #expect(delivery?.attempts.first?.status == 307)
            #expect(delivery?.attempts.first?.error?.contains("not followed") == true)
            #expect(redirector.count == 1)
            #expect(outside.all.isEmpty, "the redirect was followed to a host outside the allowlist")
            // The failure is logged, with the endpoint's secret query redacted.
            let logged = logs.all.filter { $0.contains("webhook delivery failed") }
            #expect(logged.count == 1)
            #expect(logged.first?.contains("token=REDACTED") == true)
            #expect(!logs.all.contains { $0.contains("s3cr3t-value") })
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await redirector.stop()
        try await outside.stop()
    }
}
