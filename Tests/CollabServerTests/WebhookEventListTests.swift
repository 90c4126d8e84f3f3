import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// A registration's `events` list is bounded by the names there are, not by a round number: every vendor
/// event in one registration is accepted (issue 25, item 13). Router mode.
@Suite("Webhook event lists")
struct WebhookEventListTests {
    static let admin = InProcessServer.basic("admin-d", "pw")

    @Test("every vendor event name in one registration is accepted, repeated and legacy names folded into one; unknown names are still refused")
    func everyEventInOneRegistration() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let all = VendorWebhookEvents.schemas.keys.sorted()
            #expect(all.count > 100, "the vendor names more events than a cap of 100 allowed")
            let repeated = all + all.prefix(20) + ["conversation.call.started", "webhook.ping"]
            let created = try await server.call(
                .post, "/app/rest/v4/webhookregistrations/create", authorization: Self.admin,
                body: WebWebhookRegistration(name: "everything", endpoint: "http://127.0.0.1:9/x", events: repeated)
            )
            #expect(created.status == .ok, "\(created.text)")
            let registration = try created.decode(WebWebhookRegistration.self)
            #expect(registration.events == all, "duplicates and legacy names fold into the vendor's names, in order")

            var change = registration
            change.events = all.reversed() + ["*"]
            let updated = try await server.call(.post, "/app/rest/v4/webhookregistrations/update", authorization: Self.admin, body: change)
            #expect(updated.status == .ok, "\(updated.text)")
            #expect(try updated.decode(WebWebhookRegistration.self).events == all.reversed() + ["*"])

            let unknown = try await server.call(
                .post, "/app/rest/v4/webhookregistrations/create", authorization: Self.admin,
                body: WebWebhookRegistration(name: "typo", endpoint: "http://127.0.0.1:9/x", events: all + ["conversation.nonsense"])
            )
            #expect(unknown.status == .badRequest)
            #expect(try unknown.decode(WebAPIError.self).errorMessage?.contains("unknown event 'conversation.nonsense'") == true)
        }
    }
}
