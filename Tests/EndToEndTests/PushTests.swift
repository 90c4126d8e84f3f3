import APNsSimulator
import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

@Suite("Push and calls", .serialized)
struct PushTests {
    @Test("the whole loop: register, message and call, the exact encrypted pushes reach an HTTP/2 APNs endpoint and decrypt")
    func wholeLoop() async throws {
        let sim = try await APNsSimHarness(topics: ["com.example.app"])
        try await TestServer.with(seed: queueSeed) { server in
            try await server.configurePush(account: "desk", try sim.pushSettingsJSON())
            let scenario = try await PushScenario.make(server)
            #expect(scenario.registration.keys.count == 1, "an encrypted version receives its key")
            #expect(scenario.registration.device.apnsToken == apnsToken)

            _ = try await scenario.agent.send("Your card is unblocked", in: scenario.conversationId)
            let outbox = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED")])
            #expect(outbox.transport == .apns)
            #expect(outbox.pushType == "alert")
            #expect(outbox.keyId == scenario.registration.keys.first?.keyId)
            let delivered = try await sim.wait(count: 1) { $0.pushType == "alert" }
            let push = try #require(delivered.first)
            #expect(push.token == apnsToken)
            #expect(push.topic == "com.example.app")
            #expect(push.payload == outbox.payload, "the outbox holds exactly what was sent")
            let userInfo = try #require(try JSONSerialization.jsonObject(with: Data(push.payload.utf8)) as? [String: Any])
            #expect(((userInfo["aps"] as? [String: Any])?["mutable-content"] as? Int) == 1)
            let content = try await scenario.notifications.handleRemoteNotification(userInfo: userInfo)
            #expect(content.type == .newMessage)
            #expect(content.text == "Your card is unblocked")
            #expect(content.senderName == "Agent A")
            #expect(content.notificationCount == 1)
            #expect(content.conversationId == scenario.conversationId)

            // An incoming call: a VoIP push to the PushKit token, then the answer revokes nothing else.
            let call = try await scenario.agent.transport.send(
                "POST", "/agent/v1/conversations/\(scenario.conversationId)/calls", body: StartCallRequest(callType: "VIDEO"), as: CallView.self
            )
            #expect(call.state == "RINGING")
            let voip = try await sim.wait(count: 1) { $0.pushType == "voip" }
            #expect(voip.first?.topic == "com.example.app.voip")
            #expect(voip.first?.token == voipToken)
            let ring = try await scenario.notifications.handleRemoteNotification(
                userInfo: try #require(try JSONSerialization.jsonObject(with: Data(voip[0].payload.utf8)) as? [String: Any]))
            #expect(ring.type == .incomingCall)
            #expect(ring.callId == call.id)
            #expect(ring.callType == "VIDEO")
            #expect(ring.callerName == "Agent A")
            let answered = try await scenario.notifications.answer(callId: call.id)
            #expect(answered.state == "ACTIVE")
            let ended = try await scenario.agent.transport.send("POST", "/agent/v1/calls/\(call.id)/end", as: CallView.self)
            #expect(ended.state == "ENDED")

            // The Web API shows the call.
            let webCall: WebCall = try await server.admin("admin-d", "pw").transport.send("GET", "/app/rest/v4/calls/\(call.id)/read")
            #expect(webCall.callType == "VIDEO")
            #expect(webCall.acceptTimestamp != nil)
        }
        try await sim.stop()
    }

    @Test("the notification table: app state decides push, UI visibility request or nothing")
    func notificationTable() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            for (state, messagePush, callPush, visibility) in [
                (ClientAppState.background, true, true, false), (.foregroundUIClosed, true, false, true), (.foregroundUIOpen, false, false, false),
            ] {
                let scenario = try await PushScenario.make(server, device: "table-\(state.rawValue)", version: .notEncrypted, appState: state)
                let events = EventCollector(scenario.app.events)
                let before = try await server.pushes([("conversationId", scenario.conversationId)]).count
                _ = try await scenario.agent.send("ping", in: scenario.conversationId)
                let call = try await scenario.agent.transport.send(
                    "POST", "/agent/v1/conversations/\(scenario.conversationId)/calls", body: StartCallRequest(callType: "AUDIO"), as: CallView.self
                )
                try await events.wait(for: "call started") { $0.type == "conversation.call.started" }
                // Barriers, not sleeps: every event published so far reached the app, every push
                // queued so far is in the outbox.
                try await events.sync(scenario.app.liveConnection)
                try await server.settlePushes()
                let pushes = try await server.pushes([("conversationId", scenario.conversationId)]).dropFirst(before)
                #expect(pushes.contains { $0.kind == .newMessage } == messagePush, "\(state): message push")
                #expect(pushes.contains { $0.kind == .incomingCall && $0.transport == .apnsVoIP } == callPush, "\(state): call push")
                #expect(
                    events.events.contains { $0.type == "ui.visibility_request" && $0.detail?["callId"] == call.id } == visibility,
                    "\(state): visibility request")
                _ = try await scenario.agent.transport.send("POST", "/agent/v1/calls/\(call.id)/end", as: CallView.self)
            }
        }
    }

    @Test("an unanswered call becomes missed when the virtual clock passes the timeout: revoke and missed-call pushes")
    func missedCall() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "missed-phone", version: .notEncrypted)
            // Frozen: only the virtual clock moves time, so "29 s later, still ringing" holds however
            // long the machine takes between the requests.
            try await server.control.changeClock(ClockChange(frozen: true))
            let call = try await scenario.agent.transport.send(
                "POST", "/agent/v1/conversations/\(scenario.conversationId)/calls", body: StartCallRequest(callType: "AUDIO"), as: CallView.self
            )
            _ = try await server.waitForPush([("kind", "INCOMING_CALL")])
            #expect(try await scenario.notifications.call(call.id).state == "RINGING")
            try await server.control.changeClock(ClockChange(advanceMillis: 29_000))
            #expect(try await scenario.notifications.call(call.id).state == "RINGING", "not yet")
            try await server.control.changeClock(ClockChange(advanceMillis: 2_000))
            let missed = try await scenario.notifications.call(call.id)
            #expect(missed.state == "ENDED")
            #expect(missed.endReason == "NOT_ANSWERED")
            let missedPush = try await server.waitForPush([("kind", "MISSED_CALL")])
            #expect(missedPush.content.callEndReason == "MISSED_BECAUSE_TIMEOUT")
            #expect(missedPush.pushType == "alert")
            let revoke = try await server.waitForPush([("kind", "REVOKE_CALL")])
            #expect(revoke.transport == .apns, "a revoke never goes out as VoIP")
            #expect(revoke.pushType == "background")
            let webCall: WebCall = try await server.admin("admin-d", "pw").transport.send("GET", "/app/rest/v4/calls/\(call.id)/read")
            #expect(webCall.endReason == "NOT_ANSWERED")
        }
    }

    @Test("key rotation: new pushes name the new key; the previous key works during the overlap only")
    func rotation() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "rotating-phone", version: .encrypted)
            let oldKeys = try scenario.notifications.storage.load()
            let oldKey = try #require(oldKeys.first)
            _ = try await scenario.agent.send("before", in: scenario.conversationId)
            let first = try await server.waitForPush([("kind", "NEW_MESSAGE")])
            #expect(first.keyId == oldKey.keyId)

            let deviceId = scenario.registration.device.id
            let rotated = try await server.control.transport.send("POST", "/_mock/v1/devices/\(deviceId)/rotate-key", as: DeviceView.self)
            #expect(rotated.keyId != oldKey.keyId)
            _ = try await scenario.agent.send("after", in: scenario.conversationId)
            let second = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("after", String(first.id))])
            #expect(second.keyId == rotated.keyId)

            // A device that has not refreshed cannot read the new push, but still reads the old one.
            let userInfo1 = try #require(try JSONSerialization.jsonObject(with: Data(first.payload.utf8)) as? [String: Any])
            let userInfo2 = try #require(try JSONSerialization.jsonObject(with: Data(second.payload.utf8)) as? [String: Any])
            #expect(try NotificationAPI.content(of: userInfo1, keys: oldKeys).text == "before")
            #expect(throws: NotificationProcessingError.unknownKey(rotated.keyId!)) { try NotificationAPI.content(of: userInfo2, keys: oldKeys) }
            let refreshed = try await scenario.notifications.refreshKeys()
            #expect(refreshed.map(\.keyId) == [rotated.keyId!, oldKey.keyId], "during the overlap both keys are shared")
            #expect(try await scenario.notifications.handleRemoteNotification(userInfo: userInfo2).text == "after")
            #expect(try await scenario.notifications.handleRemoteNotification(userInfo: userInfo1).text == "before")

            // After the overlap (one day) only the new key remains.
            try await server.control.changeClock(ClockChange(advanceMillis: 24 * 3600 * 1000 + 1))
            #expect(try await scenario.notifications.refreshKeys().map(\.keyId) == [rotated.keyId!])
        }
    }

    @Test("keys rotate by themselves once they reach the rotation interval")
    func rotationInterval() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "aging-phone", version: .encrypted)
            let original = try #require(scenario.registration.keys.first?.keyId)
            try await server.control.changeClock(ClockChange(advanceMillis: 29 * 24 * 3600 * 1000))
            #expect(try await scenario.notifications.refreshKeys().map(\.keyId) == [original], "not due yet")
            try await server.control.changeClock(ClockChange(advanceMillis: 2 * 24 * 3600 * 1000))
            let keys = try await scenario.notifications.refreshKeys()
            #expect(keys.count == 2)
            #expect(keys.first?.keyId != original)
            #expect(keys.last?.keyId == original, "the previous key stays valid for the overlap")
        }
    }

    @Test("decryption interoperates: Python's cryptography opens the sealed payload")
    func pythonInterop() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "interop-phone", version: .encryptedService)
            _ = try await scenario.agent.send("Grüße aus Zürich – 🇨🇭", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE")])
            let userInfo = try #require(try JSONSerialization.jsonObject(with: Data(push.payload.utf8)) as? [String: Any])
            let unblu = try #require(userInfo["unblu"] as? [String: Any])
            let sealed = try #require(unblu["encryptedData"] as? String)
            let key = try #require(scenario.registration.keys.first?.key)
            let script = """
                import base64, json, sys
                from cryptography.hazmat.primitives.ciphers.aead import AESGCM
                key = base64.b64decode(sys.argv[1]); box = base64.b64decode(sys.argv[2])
                plain = AESGCM(key).decrypt(box[:12], box[12:], None)
                print(json.loads(plain)["text"])
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, key, sealed]
            let output = ChildPipes.make()
            process.standardOutput = output
            try await process.runUntilExit()
            #expect(process.terminationStatus == 0)
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(text == "Grüße aus Zürich – 🇨🇭")
        }
    }

    @Test("bad tokens are refused; an unregistered token is removed after APNs answers 410")
    func tokens() async throws {
        let sim = try await APNsSimHarness()
        try await TestServer.with(seed: queueSeed) { server in
            try await server.configurePush(account: "desk", try sim.pushSettingsJSON())
            let app = visitor(server, device: "token-phone")
            try await app.start()
            for (body, status) in [
                (#"{"apnsToken":"xyz","version":"NOT_ENCRYPTED"}"#, 400), (#"{"apnsToken":"abc","version":"NOT_ENCRYPTED"}"#, 400),
                (#"{"apnsToken":"\#(String(repeating: "ab", count: 201))","version":"NOT_ENCRYPTED"}"#, 400),
                (#"{"version":"NOT_ENCRYPTED"}"#, 400), (#"{"apnsToken":"\#(apnsToken)","version":"LOUD"}"#, 400),
                (#"{"fcmToken":"has spaces","version":"ENCRYPTED"}"#, 400),
            ] {
                let response = try await app.transport.raw("PUT", "/mobile/v1/clients/current/push", body: Data(body.utf8))
                #expect(response.status == status, "\(body) → \(response.status)")
                #expect(try JSONDecoder().decode(APIErrorBody.self, from: response.body).type == "BAD_REQUEST")
            }
            #expect(
                try await server.control.transport.send("GET", "/_mock/v1/devices", as: [DeviceView].self).isEmpty, "bad registrations store nothing")

            let scenario = try await PushScenario.make(server, device: "gone-phone", version: .notEncrypted, voip: nil)
            sim.simulator.markUnregistered(apnsToken)
            _ = try await scenario.agent.send("anyone there?", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "UNREGISTERED")])
            #expect(push.attempts.last?.status == 410)
            #expect(push.attempts.last?.reason == "Unregistered")
            var devices: [DeviceView] = []
            for _ in 0..<100 {
                devices = try await server.control.transport.send("GET", "/_mock/v1/devices", as: [DeviceView].self)
                if devices.first?.apnsToken == nil { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(devices.first?.apnsToken == nil, "the rejected token is deleted server-side")

            try await scenario.notifications.disable()
            #expect(
                try await server.control.transport.send("GET", "/_mock/v1/devices", as: [DeviceView].self).isEmpty,
                "disabling push deletes the tokens")
        }
        try await sim.stop()
    }

    @Test("simulator files for alert pushes, and push_notification webhooks")
    func simulatorFilesAndWebhooks() async throws {
        let directory = try temporaryDirectory()
        let receiver = try await WebhookReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let settings = try JSONSerialization.data(withJSONObject: ["simulatorDirectory": directory.path])
            try await server.configurePush(account: "desk", settings)
            let admin = server.admin("admin-d", "pw").transport
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "push-hooks", endpoint: receiver.url, events: ["push_notification.new_message"])
            )
            let scenario = try await PushScenario.make(server, device: "sim-phone", version: .notEncrypted)
            _ = try await scenario.agent.send("to the simulator", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED")])
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".apns") }
            #expect(files.count == 1)
            let file = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(files[0]))) as? [String: Any])
            #expect(file["Simulator Target Bundle"] as? String == push.topic)
            #expect(((file["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "to the simulator")

            let hooks = try await receiver.wait(count: 1)
            let body = try #require(try JSONSerialization.jsonObject(with: hooks[0].body) as? [String: Any])
            #expect(body["$_type"] as? String == "NewMessagePushNotificationEvent")
            #expect(body["messageText"] as? String == "to the simulator")
            #expect((body["deviceTokens"] as? [String]) == [apnsToken])
        }
        try await receiver.stop()
    }
}
