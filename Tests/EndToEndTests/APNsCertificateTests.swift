import APNsSimulator
import CollabClient
import CollabServer
import CollabStore
import CollabTLS
import CollabWire
import Foundation
import Testing

/// APNs certificate-based authentication (a VoIP Services `.p12`) besides provider tokens, against the
/// APNs simulator, which accepts either and refuses a topic the certificate does not name, as Apple does.
@Suite("APNs certificates", .serialized)
struct APNsCertificateTests {
    /// A certificate the simulator issued, as the `.p12` push settings take (base64) and its password.
    static func pkcs12(
        _ sim: APNsSimHarness, kind: APNsCertificateKind, password: String = "p12-password"
    ) throws -> (base64: String, password: String) {
        let identity = try sim.simulator.issueCertificate(bundleId: "com.example.app", kind: kind, teamId: APNsSimHarness.teamId)
        let directory = try temporaryDirectory()
        let files = [
            "cert.pem": identity.certificatePEM, "key.pem": identity.privateKeyPEM, "ca.pem": sim.simulator.certificateAuthority.certificatePEM,
        ]
        for (name, text) in files { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let output = directory.appendingPathComponent("voip.p12").path
        try PKCS12Exporter.export(
            certificatePath: directory.appendingPathComponent("cert.pem").path, keyPath: directory.appendingPathComponent("key.pem").path,
            authorityPath: directory.appendingPathComponent("ca.pem").path, password: password, friendlyName: identity.subject, outputPath: output
        )
        return (try Data(contentsOf: URL(fileURLWithPath: output)).base64EncodedString(), password)
    }

    /// Push settings with the simulator's provider key (or none) and a certificate.
    static func settings(_ sim: APNsSimHarness, certificate: (base64: String, password: String), withToken: Bool) throws -> Data {
        var apns: [String: Any] = [
            "certificate": ["pkcs12": certificate.base64, "password": certificate.password], "topic": "com.example.app", "environment": "custom",
            "customURL": sim.url, "insecureTLS": true,
        ]
        if withToken {
            apns["teamId"] = APNsSimHarness.teamId
            apns["keyId"] = APNsSimHarness.keyId
            apns["privateKeyPEM"] = sim.providerKeyPEM
        }
        return try JSONSerialization.data(withJSONObject: ["apns": apns])
    }

    @Test("a VoIP Services certificate carries the VoIP pushes, the provider token the others; the settings never show the certificate")
    func certificateBesidesToken() async throws {
        let sim = try await APNsSimHarness(topics: ["com.example.app"])
        try await TestServer.with(seed: queueSeed) { server in
            try await server.configurePush(
                account: "desk", try Self.settings(sim, certificate: try Self.pkcs12(sim, kind: .voipServices), withToken: true))
            let shown = try await server.control.transport.raw("GET", "/_mock/v1/accounts/desk/push-settings")
            let text = String(decoding: shown.body, as: UTF8.self)
            #expect(text.contains("REDACTED") && !text.contains("p12-password"))

            let scenario = try await PushScenario.make(server, device: "cert-phone")
            _ = try await scenario.agent.send("by token", in: scenario.conversationId)
            _ = try await scenario.agent.startCall(in: scenario.conversationId)
            let voip = try await sim.wait(count: 1) { $0.pushType == "voip" }
            #expect(voip.first?.authentication == "certificate")
            #expect(voip.first?.topic == "com.example.app.voip")
            let alert = try await sim.wait(count: 1) { $0.pushType != "voip" }
            #expect(alert.first?.authentication == "token")
            _ = try await server.waitForPush([("kind", "INCOMING_CALL"), ("state", "DELIVERED")])
        }
        try await sim.stop()
    }

    @Test(
        "a certificate alone: a topic it does not name is refused (TopicDisallowed) and fails the push; a wrong password is refused when given"
    )
    func certificateAlone() async throws {
        let sim = try await APNsSimHarness(topics: ["com.example.app"])
        try await TestServer.with(seed: queueSeed) { server in
            let voipOnly = try Self.pkcs12(sim, kind: .voipServices)
            try await server.configurePush(account: "desk", try Self.settings(sim, certificate: voipOnly, withToken: false))
            let scenario = try await PushScenario.make(server, device: "cert-only-phone")
            _ = try await scenario.agent.startCall(in: scenario.conversationId)
            let delivered = try await server.waitForPush([("kind", "INCOMING_CALL"), ("state", "DELIVERED")])
            #expect(delivered.transport == .apnsVoIP)
            // A VoIP Services certificate may not push alerts to the bundle.
            _ = try await scenario.agent.send("refused", in: scenario.conversationId)
            let refused = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "FAILED")])
            #expect(refused.attempts.last?.status == 400)
            #expect(refused.attempts.last?.reason == "TopicDisallowed")

            // An Apple Push Services certificate names the bundle too: the alert goes.
            try await server.configurePush(
                account: "desk", try Self.settings(sim, certificate: try Self.pkcs12(sim, kind: .pushServices), withToken: false))
            _ = try await scenario.agent.send("accepted", in: scenario.conversationId)
            let accepted = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED")])

            // A password that does not open the file is refused when given, and the settings stay as they were.
            let wrong = try Self.settings(sim, certificate: (voipOnly.base64, "wrong"), withToken: false)
            let refusedSettings = try await server.control.transport.raw("PUT", "/_mock/v1/accounts/desk/push-settings", body: wrong)
            #expect(refusedSettings.status == 400)
            #expect(String(decoding: refusedSettings.body, as: UTF8.self).contains("apns.certificate does not open"))
            _ = try await scenario.agent.send("still accepted", in: scenario.conversationId)
            _ = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("state", "DELIVERED"), ("after", String(accepted.id))])
        }
        try await sim.stop()
    }

    @Test("the simulator refuses a certificate it did not issue, and a partial provider key is a 400 that changes nothing")
    func refusals() async throws {
        let sim = try await APNsSimHarness(topics: ["com.example.app"])
        // One attempt per push: the refused handshake is final, and the test need not wait for retries.
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, seed: queueSeed, controlToken: "test-control-token", maxBodySize: 64 * 1024,
            passwordHashCost: 4,
            pushMaxAttempts: 1
        )
        configuration.clientIdleTimeout = 24 * 3600 * 1000
        let server = try await TestServer.start(configuration: configuration)
        do {
            let before = try await server.control.transport.raw("GET", "/_mock/v1/accounts/desk/push-settings")
            let partial = try JSONSerialization.data(withJSONObject: ["apns": ["teamId": APNsSimHarness.teamId, "environment": "sandbox"]])
            let answer = try await server.control.transport.raw("PUT", "/_mock/v1/accounts/desk/push-settings", body: partial)
            #expect(answer.status == 400)
            let notBase64 = try JSONSerialization.data(withJSONObject: [
                "apns": ["certificate": ["pkcs12": "%%%", "password": "x"], "environment": "sandbox"]
            ])
            #expect(try await server.control.transport.raw("PUT", "/_mock/v1/accounts/desk/push-settings", body: notBase64).status == 400)
            #expect(try await server.control.transport.raw("GET", "/_mock/v1/accounts/desk/push-settings").body == before.body)

            // Another authority's certificate (another simulator's) is not Apple's: the TLS handshake fails.
            let stranger = try await APNsSimHarness(topics: ["com.example.app"])
            try await server.configurePush(
                account: "desk", try Self.settings(sim, certificate: try Self.pkcs12(stranger, kind: .voipServices), withToken: false))
            let scenario = try await PushScenario.make(server, device: "stranger-phone")
            _ = try await scenario.agent.startCall(in: scenario.conversationId)
            // The handshake fails: the attempt has an error and no status, and the push failed, unseen.
            let push = try await server.waitForPush([("kind", "INCOMING_CALL"), ("state", "FAILED")], timeoutMs: 25_000)
            #expect(push.attempts.count == 1)
            #expect(push.attempts.allSatisfy { $0.status == nil && $0.error != nil })
            #expect(sim.simulator.pushes.isEmpty)
            try await stranger.stop()
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
        try await sim.stop()
    }
}
