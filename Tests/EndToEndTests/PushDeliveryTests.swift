import APNsSimulator
import CollabClient
import CollabCore
import CollabPush
import CollabStore
import CollabWire
import Crypto
import Foundation
import JWTKit
import Testing
import _CryptoExtras

@testable import CollabServer

@Suite("Push delivery: retries, token renewal, FCM, streams", .serialized)
struct PushDeliveryTests {
    static func configuration(seed: Seed = queueSeed) -> ServerConfiguration {
        ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, seed: seed, controlToken: "test-control-token", passwordHashCost: 4,
            pushMaxAttempts: 4, pushInitialBackoff: .milliseconds(20)
        )
    }

    @Test("APNs 503 and 429 are retried with backoff until delivered")
    func retries() async throws {
        let sim = try await APNsSimHarness()
        let server = try await TestServer.start(configuration: Self.configuration())
        do {
            try await server.configurePush(account: "desk", try sim.pushSettingsJSON())
            let scenario = try await PushScenario.make(server, device: "retry-phone", version: .notEncrypted, voip: nil)
            sim.simulator.failNext(1, status: 503, reason: "ServiceUnavailable")
            sim.simulator.failNext(1, status: 429, reason: "TooManyRequests")
            _ = try await scenario.agent.send("eventually", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED")])
            #expect(push.attempts.map(\.status) == [503, 429, 200])
            #expect(push.attempts.map(\.reason) == ["ServiceUnavailable", "TooManyRequests", nil])
            #expect(try await sim.wait(count: 1).count == 1, "delivered exactly once")
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await sim.stop()
    }

    @Test("ExpiredProviderToken renews the provider token and delivers")
    func providerTokenRenewal() async throws {
        let sim = try await APNsSimHarness()
        var configuration = Self.configuration()
        let wall = AdjustableClock()
        configuration.pushWallClock = wall
        let server = try await TestServer.start(configuration: configuration)
        do {
            try await server.configurePush(account: "desk", try sim.pushSettingsJSON())
            let scenario = try await PushScenario.make(server, device: "renew-phone", version: .notEncrypted, voip: nil)
            _ = try await scenario.agent.send("first", in: scenario.conversationId)
            let first = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED")])
            // 2,000 s later in real time, an hour and more for APNs: the server still reuses its cached
            // provider token (for 50 minutes), which APNs now finds too old; the renewed one is fresh.
            sim.advanceClock(by: 3_700)
            wall.advance(by: 2_000_000)
            _ = try await scenario.agent.send("second", in: scenario.conversationId)
            let second = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED"), ("after", String(first.id))])
            #expect(second.attempts.map(\.reason) == ["ExpiredProviderToken", nil])
            #expect(second.attempts.map(\.status) == [403, 200])
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await sim.stop()
    }

    @Test("an account reset, or clearing the outbox, stops pushes between two attempts: nothing reaches the sink afterwards",
        arguments: ["reset", "clear"])
    func resetStopsRetries(_ how: String) async throws {
        let sim = try await APNsSimHarness()
        var configuration = Self.configuration()
        configuration.pushInitialBackoff = .seconds(2)
        let clock = ManualClock()
        configuration.deliveryClock = clock
        let server = try await TestServer.start(configuration: configuration)
        do {
            try await server.configurePush(account: "desk", try sim.pushSettingsJSON())
            let scenario = try await PushScenario.make(server, device: "reset-retry-phone", version: .notEncrypted, voip: nil)
            sim.simulator.failNext(1, status: 503, reason: "ServiceUnavailable")
            _ = try await scenario.agent.send("before the reset", in: scenario.conversationId)
            let pushes = server.server.environment.pushes
            // The first attempt failed: the push waits two seconds of the delivery clock for its second.
            try await clock.waitForSleepers(1, what: "the push's backoff")
            let first = try #require(pushes.outbox.entries(matching: OutboxFilter(kind: .newMessage)).first)
            #expect(first.attempts.map(\.status) == [503])
            let account = first.accountId
            if how == "reset" { _ = try await server.control.reset(account: "desk") } else { try await server.control.clearPushes() }
            clock.advance(by: .seconds(2))
            // The barrier: the account's delivery has ended (woken from its backoff, it made no attempt).
            for _ in 0..<1_000 {
                let counts = pushes.sendingCounts(accountId: account)
                if counts.queued == 0, counts.running == 0 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(pushes.sendingCounts(accountId: account) == (0, 0))
            #expect(sim.simulator.pushes.isEmpty, "the retry after the reset reached the sink: \(sim.simulator.pushes.count)")
            #expect(pushes.outbox.entries(matching: OutboxFilter()).isEmpty)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await sim.stop()
    }

    @Test("moving the server's clock an hour leaves the provider token alone: it is stamped with real time")
    func virtualClockDoesNotAgeTheProviderToken() async throws {
        let sim = try await APNsSimHarness()
        let server = try await TestServer.start(configuration: Self.configuration())
        do {
            try await server.configurePush(account: "desk", try sim.pushSettingsJSON())
            let scenario = try await PushScenario.make(server, device: "clock-phone", version: .notEncrypted, voip: nil)
            try await server.control.changeClock(ClockChange(advanceMillis: 55 * 60 * 1000))
            _ = try await scenario.agent.send("an hour on", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED")])
            #expect(push.attempts.map(\.status) == [200])
            let sent = try #require(try await sim.wait(count: 1).first)
            #expect(sent.keyId == APNsSimHarness.keyId)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await sim.stop()
    }

    @Test("a provider token called expired again right after its renewal fails the push: one renewal per push")
    func oneRenewalPerPush() async throws {
        let sim = try await APNsSimHarness()
        let server = try await TestServer.start(configuration: Self.configuration())
        do {
            try await server.configurePush(account: "desk", try sim.pushSettingsJSON())
            let scenario = try await PushScenario.make(server, device: "skew-phone", version: .notEncrypted, voip: nil)
            sim.simulator.failNext(3, status: 403, reason: "ExpiredProviderToken")
            _ = try await scenario.agent.send("skewed", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "FAILED")])
            #expect(push.attempts.map(\.reason) == ["ExpiredProviderToken", "ExpiredProviderToken"])
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await sim.stop()
    }

    @Test("FCM HTTP v1: OAuth with the service account, data messages, UNREGISTERED removes the token")
    func fcm() async throws {
        let receiver = try await FCMReceiver()
        let serviceKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let server = try await TestServer.start(configuration: Self.configuration())
        do {
            let settings: [String: Any] = [
                "fcm": [
                    "projectId": "demo-project", "clientEmail": "pusher@demo-project.iam.gserviceaccount.com",
                    "privateKeyPEM": serviceKey.pemRepresentation, "tokenURL": receiver.baseURL + "/token", "endpoint": receiver.baseURL,
                ]
            ]
            try await server.configurePush(account: "desk", try JSONSerialization.data(withJSONObject: settings))
            let shown = try await server.control.transport.raw("GET", "/_mock/v1/accounts/desk/push-settings")
            #expect(!String(decoding: shown.body, as: UTF8.self).contains("BEGIN"), "the service account key is never shown")

            let app = visitor(server, device: "android-phone")
            try await app.start()
            let notifications = NotificationAPI(client: app)
            let registration = try await notifications.register(fcmToken: "fcm:token-1", version: .encrypted)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation()
            _ = try await agentA.accept(conversation.id)
            try await app.setAppState(.background)
            _ = try await agentA.send("hello Android", in: conversation.id)

            let push = try await server.waitForPush([("transport", "FCM"), ("state", "DELIVERED")])
            #expect(push.token == "fcm:token-1")
            let message = try #require(receiver.all.first)
            #expect(message.project == "demo-project")
            #expect(message.token == "fcm:token-1")
            let content = try NotificationAPI.content(of: message.message, keys: registration.keys)
            #expect(content.text == "hello Android")

            // The assertion is an RS256 JWT from the service account for the FCM scope.
            let assertion = try #require(receiver.assertionsSeen.first)
            let verifier = JWTKeyCollection()
            await verifier.add(rsa: try Insecure.RSA.PublicKey(pem: serviceKey.publicKey.pemRepresentation), digestAlgorithm: .sha256)
            struct Assertion: JWTPayload {
                var iss: IssuerClaim
                var scope: String
                var aud: AudienceClaim
                func verify(using algorithm: some JWTAlgorithm) throws {}
            }
            let claims = try await verifier.verify(assertion, as: Assertion.self)
            #expect(claims.iss.value == "pusher@demo-project.iam.gserviceaccount.com")
            #expect(claims.scope == "https://www.googleapis.com/auth/firebase.messaging")

            receiver.unregister("fcm:token-1")
            _ = try await agentA.send("gone?", in: conversation.id)
            let gone = try await server.waitForPush([("transport", "FCM"), ("state", "UNREGISTERED")])
            #expect(gone.attempts.last?.reason == "UNREGISTERED")
            var devices: [DeviceView] = []
            for _ in 0..<100 {
                devices = try await server.control.transport.send("GET", "/_mock/v1/devices", as: [DeviceView].self)
                if devices.first?.fcmToken == nil { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(devices.first?.fcmToken == nil)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await receiver.stop()
    }

    @Test("the outbox streams as server-sent events")
    func sse() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "sse-phone", version: .notEncrypted)
            var request = HTTPClientRequestFactory.get(server.baseURL + "/_mock/v1/pushes/stream?kind=NEW_MESSAGE")
            request.headers.add(name: "Authorization", value: "Bearer test-control-token")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(response.headers.first(name: "content-type") == "text/event-stream")
            var iterator = response.body.makeAsyncIterator()
            _ = try await scenario.agent.send("streamed", in: scenario.conversationId)
            var text = ""
            // Read until the whole event with the message has arrived (an event ends with a blank line).
            while !(text.contains("\"streamed\"") && text.hasSuffix("\n\n")), let chunk = try await iterator.next() {
                text += String(buffer: chunk)
            }
            #expect(text.contains("event: push"))
            #expect(text.contains("\"NEW_MESSAGE\""))
        }
    }

    @Test("push settings come from the seed; calls are searchable in the Web API")
    func seededSettingsAndCallSearch() async throws {
        let sim = try await APNsSimHarness()
        var seed = queueSeed
        seed.accounts[0].push = Seed.PushSeed(
            apns: PushSettings.APNs(
                teamId: APNsSimHarness.teamId, keyId: APNsSimHarness.keyId, privateKeyPEM: sim.providerKeyPEM, topic: "com.example.app",
                environment: "custom", customURL: sim.url, insecureTLS: true
            )
        )
        let server = try await TestServer.start(configuration: Self.configuration(seed: seed))
        do {
            let scenario = try await PushScenario.make(server, device: "seeded-phone", version: .notEncrypted)
            let call = try await scenario.agent.transport.send(
                "POST", "/agent/v1/conversations/\(scenario.conversationId)/calls", body: StartCallRequest(callType: "AUDIO"), as: CallView.self
            )
            #expect(try await sim.wait(count: 1) { $0.pushType == "voip" }.count == 1)
            let result: WebResult<WebCall> = try await server.admin("admin-d", "pw").transport.send(
                "POST", "/app/rest/v4/calls/search",
                body: WebQuery(
                    type: "CallQuery",
                    searchFilters: [
                        WebSearchFilter(
                            field: "CONVERSATION_ID", operator: WebSearchOperator(type: "EQUALS", value: .string(scenario.conversationId)))
                    ])
            )
            #expect(result.items?.map(\.id) == [call.id])
            let outsider = try await server.admin("agent-x", "pw").transport.raw("GET", "/app/rest/v4/calls/\(call.id)/read")
            #expect(outsider.status == 404, "another account's call is not found")
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        try await sim.stop()
    }
}

import AsyncHTTPClient
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

enum HTTPClientRequestFactory {
    static func get(_ url: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        return request
    }
}
