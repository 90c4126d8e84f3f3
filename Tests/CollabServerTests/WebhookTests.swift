import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Crypto
import Foundation
import Testing

@Suite("Webhooks")
struct WebhookTests {
    func hex(_ body: Data, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    @Test("conversation events arrive signed, in the vendor's schema, with event and delivery headers")
    func conversationEvents() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let registration: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(
                    name: "ci", endpoint: receiver.url,
                    events: ["conversation.created", "conversation.queued", "conversation.active", "conversation.new_message", "conversation.ended"],
                    secret: "s3cr3t-for-signing"
                )
            )
            #expect(registration.status == "ACTIVE")
            #expect(registration.secret == "s3cr3t-for-signing")

            let app = visitor(server, device: "hook-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "hooks")
            _ = try await agentA.accept(conversation.id)
            _ = try await app.send("hello hooks", in: conversation.id)
            _ = try await agentA.end(conversation.id)

            let deliveries = try await receiver.wait(count: 5)
            #expect(Set(deliveries.compactMap { $0.headers["x-unblu-event"] }) == [
                "conversation.created", "conversation.queued", "conversation.active", "conversation.new_message", "conversation.ended",
            ])
            for delivery in deliveries {
                #expect(delivery.headers["x-unblu-signature-256"] == hex(delivery.body, secret: "s3cr3t-for-signing"), "signature does not verify")
                #expect(delivery.headers["x-unblu-delivery"]?.isEmpty == false)
                #expect(delivery.headers["content-type"] == "application/json")
                let body = try JSONDecoder().decode(WebhookEventBody.self, from: delivery.body)
                #expect(body.eventType == delivery.headers["x-unblu-event"])
                #expect(body.accountId != nil)
            }
            let message = try #require(deliveries.first { $0.headers["x-unblu-event"] == "conversation.new_message" })
            let messageBody = try JSONDecoder().decode(WebhookEventBody.self, from: message.body)
            #expect(messageBody.type == "ConversationNewMessageEvent")
            #expect(messageBody.conversationMessage?.text == "hello hooks")
            #expect(messageBody.conversationMessage?.type == "TextMessageData")
            let ended = try #require(deliveries.first { $0.headers["x-unblu-event"] == "conversation.ended" })
            let endedBody = try JSONDecoder().decode(WebhookEventBody.self, from: ended.body)
            #expect(endedBody.type == "ConversationEndedEvent")
            #expect(endedBody.conversation?.state == "ENDED")
            #expect(endedBody.endReason == "ENDED_BY_PARTICIPANT")
            #expect(endedBody.endPerson?.username == "agent-a")

            // The receiver records a request before it answers; the log settles right after.
            var log = try await server.control.transport.send("GET", "/_mock/v1/webhooks/deliveries", as: WebhookDeliveryPage.self)
            for _ in 0..<200 where !log.deliveries.allSatisfy({ $0.state == "DELIVERED" }) {
                try await Task.sleep(for: .milliseconds(10))
                log = try await server.control.transport.send("GET", "/_mock/v1/webhooks/deliveries", as: WebhookDeliveryPage.self)
            }
            #expect(log.deliveries.count == 5)
            #expect(log.deliveries.allSatisfy { $0.state == "DELIVERED" && $0.attempts.count == 1 && $0.attempts.first?.status == 204 })
        }
        try await receiver.stop()
    }

    @Test("failed deliveries are retried with backoff and the log shows every attempt; sendPing reaches the endpoint")
    func retriesAndPing() async throws {
        let receiver = try await WebhookReceiver(failFirst: 2)
        try await InProcessServer.with(
            seed: queueSeed, configure: { $0.webhookMaxAttempts = 4; $0.webhookInitialBackoff = .milliseconds(20) }
        ) { server in
            let admin = server.admin("admin-d", "pw").transport
            let registration: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "flaky", endpoint: receiver.url, events: ["webhook.ping"])
            )
            let id = try #require(registration.id)
            let secret = try #require(registration.secret)
            #expect(secret.count >= 32, "a secret is generated when none is given")
            try await admin.sendWithoutResult("POST", "/app/rest/v4/webhookregistrations/\(id)/sendPing")
            let arrived = try await receiver.wait(count: 3)
            #expect(arrived.map { $0.headers["x-mock-collab-attempt"] } == ["1", "2", "3"])
            #expect(Set(arrived.compactMap { $0.headers["x-unblu-delivery"] }).count == 1, "retries keep the delivery id")
            let ping = try JSONDecoder().decode(WebhookEventBody.self, from: arrived[2].body)
            #expect(ping.type == "WebhookPingEvent")
            #expect(ping.webhookConfiguration?.id == id)
            #expect(ping.webhookConfiguration?.secret == nil, "the ping does not echo the secret")
            #expect(arrived[2].headers["x-unblu-signature-256"] == hex(arrived[2].body, secret: secret))

            var log = try await server.control.transport.send(
                "GET", "/_mock/v1/webhooks/deliveries", query: [("registrationId", id)], as: WebhookDeliveryPage.self)
            for _ in 0..<200 where log.deliveries.first?.state != "DELIVERED" {
                try await Task.sleep(for: .milliseconds(10))
                log = try await server.control.transport.send(
                    "GET", "/_mock/v1/webhooks/deliveries", query: [("registrationId", id)], as: WebhookDeliveryPage.self)
            }
            let delivery = try #require(log.deliveries.first)
            #expect(delivery.state == "DELIVERED")
            #expect(delivery.attempts.map(\.status) == [500, 500, 204])
        }
        try await receiver.stop()
    }

    @Test("registrations: read, getByName, readMultiple, search, update, delete; bad input refused; other accounts cannot see them")
    func registrations() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let created: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "one", endpoint: "http://127.0.0.1:9/none", events: ["conversation.created"])
            )
            let id = try #require(created.id)
            let byName: WebWebhookRegistration = try await admin.send("GET", "/app/rest/v4/webhookregistrations/getByName", query: [("name", "one")])
            #expect(byName.id == id)
            let multiple: WebList<WebWebhookRegistration> = try await admin.send("POST", "/app/rest/v4/webhookregistrations/readMultiple", body: [id])
            #expect(multiple.items?.count == 1)
            let search: WebResult<WebWebhookRegistration> = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/search",
                body: WebQuery(
                    type: "WebhookRegistrationQuery",
                    searchFilters: [WebSearchFilter(field: "ENDPOINT", operator: WebSearchOperator(type: "CONTAINS", value: .string("127.0.0.1")))])
            )
            #expect(search.items?.map(\.id) == [id])
            var update = created
            update.status = "INACTIVE"
            update.events = ["conversation.ended"]
            update.secret = nil
            let updated: WebWebhookRegistration = try await admin.send("POST", "/app/rest/v4/webhookregistrations/update", body: update)
            #expect(updated.status == "INACTIVE")
            #expect(updated.secret == created.secret, "an absent secret is kept")

            for body in [
                #"{"name":"x","endpoint":"ftp://nope","events":["conversation.created"]}"#, #"{"name":"x","endpoint":"http://a.b","events":[]}"#,
                #"{"name":"x","endpoint":"http://a.b","events":["conversation.exploded"]}"#,
                #"{"name":"one","endpoint":"http://a.b","events":["conversation.created"]}"#,
            ] {
                let response = try await admin.raw("POST", "/app/rest/v4/webhookregistrations/create", body: Data(body.utf8))
                #expect((400...409).contains(response.status), "\(body) → \(response.status)")
            }
            let outsider = server.admin("agent-x", "pw").transport
            #expect(try await outsider.raw("GET", "/app/rest/v4/webhookregistrations/\(id)/read").status == 403, "agents do not manage webhooks")
            try await admin.sendWithoutResult("DELETE", "/app/rest/v4/webhookregistrations/\(id)/delete")
            #expect(try await admin.raw("GET", "/app/rest/v4/webhookregistrations/\(id)/read").status == 404)
        }
    }
}

@Suite("Webhook host allowlist")
struct WebhookAllowlistTests {
    @Test("deliveries to hosts outside the allowlist fail without a request")
    func allowlist() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed, configure: { $0.webhookAllowedHosts = ["localhost"] }) { server in
            let admin = server.admin("admin-d", "pw").transport
            let registration: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "elsewhere", endpoint: receiver.url, events: ["webhook.ping"])
            )
            try await admin.sendWithoutResult("POST", "/app/rest/v4/webhookregistrations/\(registration.id!)/sendPing")
            var delivery: WebhookDelivery?
            for _ in 0..<100 {
                delivery = try await server.control.transport.send("GET", "/_mock/v1/webhooks/deliveries", as: WebhookDeliveryPage.self)
                    .deliveries.first
                if delivery?.state == "FAILED" { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(delivery?.state == "FAILED")
            #expect(delivery?.attempts.first?.error?.contains("not in the allowed webhook hosts") == true)
            #expect(receiver.all.isEmpty)
        }
        try await receiver.stop()
    }
}
