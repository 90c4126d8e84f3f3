import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Pausing a person's notifications and counting them, through the Web API, with the outbox as witness.
@Suite("Notification controls and counts", .serialized)
struct NotificationControlTests {
    @Test("a paused person's pushes are recorded as SUPPRESSED with the reason; pauses end on the server clock; counts match the badges")
    func pauseResumeAndCounts() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let scenario = try await PushScenario.make(server, device: "paused-phone", version: .notEncrypted)
            let conversation: WebConversation = try await admin.send("GET", "/app/rest/v4/conversations/\(scenario.conversationId)/read")
            let visitorId = try #require(conversation.participants?.first { $0.participationType == "CONTEXT_PERSON" }?.personId)
            let persons = "/app/rest/v4/persons/\(visitorId)"
            func count() async throws -> Int? {
                let data = try await admin.raw("GET", "\(persons)/getNotificationCount").body
                return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["totalNotificationCount"] as? Int
            }
            func countFor(_ ids: [String]) async throws -> Int? {
                let body = try JSONSerialization.data(withJSONObject: ["$_type": "NotificationCountForConversationsRequest", "conversationIds": ids])
                let data = try await admin.raw("POST", "\(persons)/getNotificationCountForConversations", body: body).body
                return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["notificationCount"] as? Int
            }
            func control(_ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
                let response = try await admin.raw(
                    "POST", "\(persons)/\(path)", body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
                #expect(response.status == 200, "\(path) → \(response.status)")
                let state = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
                #expect(VendorSchemaCheck.problems(response.body, schema: "AgentPersonStateData").isEmpty)
                return state
            }

            // Not paused: the push leaves, its badge is the person's count.
            _ = try await scenario.agent.send("one", in: scenario.conversationId)
            let first = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("personId", visitorId)])
            #expect(first.state != .suppressed)
            #expect(first.content.notificationCount == 1)
            #expect(try await count() == 1)
            #expect(try await countFor([scenario.conversationId, "no-such-conversation"]) == 1)

            // Paused for a minute: recorded, not sent, and the outbox says why. Still counted.
            let paused = try await control("pauseNotifications", ["timeoutSeconds": 60])
            #expect(paused["pauseNotificationsMode"] as? String == "ON" && paused["pauseNotificationsState"] as? String == "ON")
            #expect(paused["pauseNotificationsEndTimestamp"] as? Int64 != nil)
            _ = try await scenario.agent.send("two", in: scenario.conversationId)
            let suppressed = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "SUPPRESSED")])
            #expect(suppressed.attempts.first?.reason?.contains("NOTIFICATIONS_PAUSED") == true)
            #expect(suppressed.content.notificationCount == 2)
            #expect(try await count() == 2)

            // The pause ends on the server clock; without auto-pause reasons, notifications flow again.
            try await server.control.changeClock(ClockChange(advanceMillis: 61_000))
            _ = try await scenario.agent.send("three", in: scenario.conversationId)
            let third = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("after", String(suppressed.id))])
            #expect(third.state != .suppressed)
            #expect(third.content.notificationCount == 3)

            // Auto-pause: paused while a reason is in force.
            let auto = try await control(
                "addAutoPauseNotificationsReason", ["sourceId": "meeting", "displayName": "In a meeting", "timeoutSeconds": 600])
            #expect(auto["pauseNotificationsMode"] as? String == "AUTO" && auto["pauseNotificationsState"] as? String == "ON")
            #expect((auto["autoPauseNotificationsReasons"] as? [[String: Any]])?.first?["sourceId"] as? String == "meeting")
            _ = try await scenario.agent.send("four", in: scenario.conversationId)
            let autoPaused = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("after", String(third.id))])
            #expect(autoPaused.state == .suppressed)
            #expect(autoPaused.attempts.first?.reason?.contains("meeting") == true)
            let removed = try await control("removeAutoPauseNotificationsReason", ["sourceId": "meeting"])
            #expect(removed["pauseNotificationsState"] as? String == "OFF")
            _ = try await control("autoPauseNotifications")
            let resumed = try await control("resumeNotifications")
            #expect(resumed["pauseNotificationsMode"] as? String == "OFF")

            // Opening the collaboration UI reads everything: the count goes back to zero.
            #expect(try await count() == 4)
            try await scenario.app.setAppState(.foregroundUIOpen)
            #expect(try await count() == 0)
            #expect(try await countFor([scenario.conversationId]) == 0)
        }
    }

    @Test("pausing and presence changes arrive as agent_person_state.changed in the vendor's schema")
    func personStateWebhook() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "states", endpoint: receiver.url, events: ["agent_person_state.changed"])
            )
            let agentA = try await agent(server, "agent-a")
            try await agentA.setPresence("ONLINE")
            let user: WebUser = try await admin.send("GET", "/app/rest/v4/users/getByUsername", query: [("username", "agent-a")])
            let userId = try #require(user.id)
            let person: WebPerson = try await admin.send(
                "GET", "/app/rest/v4/persons/getBySource", query: [("personSource", "USER_DB"), ("sourceId", userId)])
            let personId = try #require(person.id)
            #expect(try await admin.raw("POST", "/app/rest/v4/persons/\(personId)/pauseNotifications", body: Data("{}".utf8)).status == 200)
            let deliveries = try await receiver.wait(count: 2)
            for delivery in deliveries {
                #expect(VendorSchemaCheck.problems(delivery.body, schema: "AgentPersonStateChangedEvent").isEmpty)
            }
            let states = deliveries.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
                .compactMap { $0["personState"] as? [String: Any] }
            #expect(states.allSatisfy { $0["personId"] as? String == personId && $0["onlineState"] as? String == "ONLINE" })
            #expect(states.contains { $0["pauseNotificationsState"] as? String == "ON" })
        }
        try await receiver.stop()
    }

    @Test("bad input and foreign callers change nothing")
    func badInput() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let person: WebPerson = try await admin.send(
                "POST", "/app/rest/v4/persons/createOrUpdateVirtual", body: WebPerson(sourceId: "quiet", personType: "VISITOR"))
            let path = "/app/rest/v4/persons/\(try #require(person.id))"
            for (route, body) in [
                ("pauseNotifications", #"{"timeoutSeconds":0}"#), ("pauseNotifications", #"{"timeoutSeconds":"soon"}"#),
                ("addAutoPauseNotificationsReason", #"{"sourceId":"\#(String(repeating: "x", count: 37))"}"#),
                ("addAutoPauseNotificationsReason", "{}"),
                ("removeAutoPauseNotificationsReason", "{}"),
            ] {
                #expect(try await admin.raw("POST", "\(path)/\(route)", body: Data(body.utf8)).status == 400, "\(route) \(body)")
            }
            #expect(try await admin.raw("POST", "\(path)/removeAutoPauseNotificationsReason", body: Data(#"{"sourceId":"none"}"#.utf8)).status == 404)
            #expect(try await admin.raw("POST", "/app/rest/v4/persons/unknown/pauseNotifications", body: Data("{}".utf8)).status == 404)
            let agent = server.admin("agent-a", "pw").transport
            #expect(try await agent.raw("POST", "\(path)/pauseNotifications", body: Data("{}".utf8)).status == 403)
            #expect(try await agent.raw("GET", "\(path)/getNotificationCount").status == 200)
            let outsider = server.admin("agent-x", "pw").transport
            #expect(try await outsider.raw("GET", "\(path)/getNotificationCount").status == 404)
            let state: WebPerson = try await admin.send("GET", "\(path)/read")
            #expect(state.id == person.id)
        }
    }
}
