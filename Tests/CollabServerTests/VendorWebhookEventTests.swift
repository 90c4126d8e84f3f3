import CollabClient
import CollabCore
import CollabWire
import Crypto
import Foundation
import Testing

/// Webhooks under the vendor's names and in the vendor's schemas, received by a real HTTP endpoint.
@Suite("Vendor webhook events")
struct VendorWebhookEventTests {
    func hex(_ body: Data, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    @Test("registration accepts every event name of the vendor's callbacks and '*'; legacy names become the vendor's; mock-only names are refused")
    func registrationNames() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let all = VendorWebhookEvents.schemas.keys.sorted()
            #expect(all.count == 115, "the spec's callbacks name 115 events")
            for (index, chunk) in stride(from: 0, to: all.count, by: 60).map({ Array(all[$0..<min($0 + 60, all.count)]) }).enumerated() {
                let created: WebWebhookRegistration = try await admin.send(
                    "POST", "/app/rest/v4/webhookregistrations/create",
                    body: WebWebhookRegistration(name: "all-\(index)", endpoint: "http://127.0.0.1:9/x", events: chunk)
                )
                #expect(created.events == chunk)
            }
            let star: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "star", endpoint: "http://127.0.0.1:9/x", events: ["*"])
            )
            #expect(star.events == ["*"])
            let legacy: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(
                    name: "legacy", endpoint: "http://127.0.0.1:9/x",
                    events: ["webhook.ping", "conversation.call.started", "conversation.call.answered", "ping"])
            )
            #expect(legacy.events == ["ping", "conversation.call.initiated", "conversation.call.accepted"])
            for name in [
                "cobrowsing.started", "ui.visibility_request", "agent.presence_changed", "conversation.deleted", "entity.modified",
                "conversation.participation.exploded",
            ] {
                let body = Data(#"{"name":"x-\#(name)","endpoint":"http://a.b","events":["\#(name)"]}"#.utf8)
                let response = try await admin.raw("POST", "/app/rest/v4/webhookregistrations/create", body: body)
                #expect(response.status == 400, "\(name) → \(response.status)")
                let error = try JSONDecoder().decode(WebAPIError.self, from: response.body)
                #expect(error.errorMessage?.contains("unknown event") == true)
            }
        }
    }

    @Test("every event the mock models arrives under the vendor's name, signed, in the vendor's schema")
    func vendorNamesAndSchemas() async throws {
        let receiver = try await WebhookReceiver()
        let callsOnly = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let secret = "vendor-events-secret"
            let registration: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "everything", endpoint: receiver.url, events: ["*"], secret: secret)
            )
            try await admin.sendWithoutResult("POST", "/app/rest/v4/webhookregistrations/\(try #require(registration.id))/sendPing")
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "calls", endpoint: callsOnly.url, events: ["conversation.call.initiated", "conversation.ended"])
            )

            // Entity changes through the Web API.
            let area: WebNamedArea = try await admin.send(
                "POST", "/app/rest/v4/namedareas/create", body: WebNamedArea(name: "Hooks", siteId: "hooks"))
            var renamed = area
            renamed.name = "Hooks 2"
            let _: WebNamedArea = try await admin.send("POST", "/app/rest/v4/namedareas/update", body: renamed)
            try await admin.sendWithoutResult("DELETE", "/app/rest/v4/namedareas/\(try #require(area.id))/delete")
            let key: WebApiKey = try await admin.send("POST", "/app/rest/v4/apikeys/create", body: WebApiKey(name: "hooks-key"))
            try await admin.sendWithoutResult("DELETE", "/app/rest/v4/apikeys/\(try #require(key.id))/delete")
            let user: WebUser = try await admin.send(
                "POST", "/app/rest/v4/users/create", body: WebUser(username: "hooked", authorizationRole: "REGISTERED_USER"))
            try await admin.sendWithoutResult("DELETE", "/app/rest/v4/users/\(try #require(user.id))/delete")
            let account: WebAccount = try await admin.send("GET", "/app/rest/v4/accounts/getCurrentAccount")
            var changedAccount = account
            changedAccount.name = "desk"
            let _: WebAccount = try await admin.send("POST", "/app/rest/v4/accounts/update", body: changedAccount)

            // A conversation with a call, a message and an end.
            let app = visitor(server, device: "vendor-hooks-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "vendor hooks")
            _ = try await agentA.accept(conversation.id)
            let call = try await agentA.startCall(in: conversation.id)
            _ = try await NotificationAPI(client: app).answer(callId: call.id)
            _ = try await agentA.endCall(call.id)
            _ = try await app.send("hello vendor", in: conversation.id)
            _ = try await agentA.end(conversation.id)

            let expected: Set<String> = [
                "ping", "named_area", "api_key", "user", "person", "account",
                "conversation.created", "conversation.onboarding", "conversation.offboarding", "conversation.queued", "conversation.active",
                "conversation.new_message", "conversation.ended",
                "conversation.participation.created", "conversation.participation.activated", "conversation.participation.left",
                "conversation.call.initiated", "conversation.call.accepted", "conversation.call.established", "conversation.call.ended",
                "conversation.call.participant.joined", "conversation.call.participant.left",
            ]
            try await arrival(of: expected, at: receiver)
            try await arrival(of: ["conversation.call.initiated", "conversation.ended"], at: callsOnly)
            #expect(Set(callsOnly.all.compactMap { $0.headers["x-unblu-event"] }).isSubset(of: ["conversation.call.initiated", "conversation.ended"]))
            for delivery in receiver.all {
                let name = try #require(delivery.headers["x-unblu-event"])
                let schema = try #require(VendorWebhookEvents.schemas[name], "\(name) is not a vendor event name")
                #expect(delivery.headers["x-unblu-signature-256"] == hex(delivery.body, secret: secret), "\(name): signature")
                let object = try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
                #expect(object["$_type"] as? String == schema, "\(name): $_type")
                #expect(object["eventType"] as? String == name, "\(name): eventType")
                #expect(object["accountId"] as? String != nil, "\(name): accountId")
                let problems = VendorSchemaCheck.problems(delivery.body, schema: schema)
                #expect(problems.isEmpty, "\(name) does not fit \(schema): \(problems)")
            }

            func bodies(_ name: String) -> [[String: Any]] {
                receiver.all.filter { $0.headers["x-unblu-event"] == name }
                    .compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
            }
            for (name, count) in ["named_area": 3, "user": 2, "conversation.call.participant.joined": 2, "conversation.participation.left": 2] {
                _ = try await receiver.wait(count: count) { $0.headers["x-unblu-event"] == name }
            }
            #expect(bodies("ping").first?["webhookConfiguration"] != nil)
            let areaActions = bodies("named_area").compactMap { $0["action"] as? String }
            #expect(areaActions.sorted() == ["CREATE", "DELETE", "UPDATE"])
            #expect(bodies("user").compactMap { $0["action"] as? String }.sorted() == ["CREATE", "DELETE"])
            let initiated = try #require(bodies("conversation.call.initiated").first)
            #expect(initiated["serviceProviderCallId"] as? String == call.id)
            #expect(initiated["conversationId"] as? String == conversation.id)
            #expect(bodies("conversation.call.participant.joined").count == 2, "the caller and the person who answered")
            let ended = try #require(bodies("conversation.call.ended").first)
            #expect(ended["endReason"] as? String == "LAST_MANDATORY_PARTICIPANT_LEFT")
            let left = bodies("conversation.participation.left").compactMap { ($0["participation"] as? [String: Any])?["leftReason"] as? String }
            #expect(left.count == 2 && left.allSatisfy { $0 == "PARTICIPANT_LEFT" }, "\(left)")
        }
        try await receiver.stop()
        try await callsOnly.stop()
    }

    @Test("push_notification events for new messages, incoming, missed and revoked calls fit the vendor's schemas")
    func pushNotificationEvents() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let names: Set<String> = [
                "push_notification.new_message", "push_notification.incoming_call", "push_notification.missed_call", "push_notification.revoke_call",
            ]
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "pushes", endpoint: receiver.url, events: names.sorted())
            )
            let scenario = try await PushScenario.make(server, device: "vendor-push-phone", version: .notEncrypted)
            _ = try await scenario.agent.send("a message", in: scenario.conversationId)
            _ = try await scenario.agent.startCall(in: scenario.conversationId)
            try await server.control.changeClock(ClockChange(advanceMillis: 31_000))
            try await arrival(of: names, at: receiver)
            func body(_ name: String) throws -> [String: Any] {
                let delivery = try #require(receiver.all.first { $0.headers["x-unblu-event"] == name })
                return try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
            }
            let incoming = try body("push_notification.incoming_call")
            let missed = try body("push_notification.missed_call")
            #expect(missed["callStartTimestamp"] as? Int64 == incoming["callStartTimestamp"] as? Int64, "the call's start, not its end")
            #expect((missed["timestamp"] as? Int64 ?? 0) > (missed["callStartTimestamp"] as? Int64 ?? .max))
            for delivery in receiver.all {
                let name = try #require(delivery.headers["x-unblu-event"])
                let schema = try #require(VendorWebhookEvents.schemas[name])
                let problems = VendorSchemaCheck.problems(delivery.body, schema: schema)
                #expect(problems.isEmpty, "\(name) does not fit \(schema): \(problems)")
            }
        }
        try await receiver.stop()
    }

    @Test("the schema check finds unknown properties, wrong types and wrong $_type")
    func schemaCheckBites() {
        #expect(
            VendorSchemaCheck.problems(
                Data(#"{"$_type":"WebhookPingEvent","timestamp":1,"eventType":"ping"}"#.utf8), schema: "WebhookPingEvent"
            ).isEmpty)
        #expect(!VendorSchemaCheck.problems(Data(#"{"$_type":"WebhookPingEvent","bogus":1}"#.utf8), schema: "WebhookPingEvent").isEmpty)
        #expect(!VendorSchemaCheck.problems(Data(#"{"$_type":"WebhookPing","timestamp":1}"#.utf8), schema: "WebhookPingEvent").isEmpty)
        #expect(!VendorSchemaCheck.problems(Data(#"{"timestamp":"soon"}"#.utf8), schema: "WebhookPingEvent").isEmpty)
        #expect(
            !VendorSchemaCheck.problems(
                Data(#"{"conversation":{"$_type":"ConversationData","state":"DANCING"}}"#.utf8), schema: "ConversationCreatedEvent"
            ).isEmpty)
    }

    /// Waits until deliveries of every name in `names` arrived at `receiver`.
    func arrival(of names: Set<String>, at receiver: WebhookReceiver) async throws {
        _ = try await receiver.wait(count: names.count) { names.contains($0.headers["x-unblu-event"] ?? "") }
        for _ in 0..<1000 where !names.isSubset(of: Set(receiver.all.compactMap { $0.headers["x-unblu-event"] })) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let arrived = Set(receiver.all.compactMap { $0.headers["x-unblu-event"] })
        #expect(names.isSubset(of: arrived), "missing: \(names.subtracting(arrived).sorted())")
    }
}
