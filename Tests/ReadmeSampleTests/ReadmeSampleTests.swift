import CollabServer
import CollabStore
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// Runs the README's Swift samples (extracted by scripts/readme-samples into ReadmeSamples.swift, which
/// imports only what the README shows) against a real server on a free port.
@Suite struct ReadmeSampleTests {
    @Test func clientSamplesRunAgainstARealServer() async throws {
        try await withServer { baseURL in
            #expect(!ReadmeSamples.all.isEmpty)
            for sample in ReadmeSamples.all {
                do {
                    try await sample.run(baseURL)
                } catch {
                    Issue.record("README \(sample.name) failed: \(error)")
                    throw error
                }
            }
        }
    }

    @Test func webhookVerificationSampleAcceptsTheServersSignatureOnly() {
        // HMAC-SHA256 of the body keyed with "secret-1", lower-case hex (computed with Python's hmac).
        let body = Data(#"{"$_type":"WebhookPingEvent"}"#.utf8)
        let signature = "e2e451721ffd21544baa30e2068b304af8bdb15e48fbf26a71294b7ef1838fe0"
        #expect(isGenuineDelivery(rawBody: body, signature: signature, secret: "secret-1"))
        #expect(!isGenuineDelivery(rawBody: body, signature: signature, secret: "secret-2"))
        #expect(!isGenuineDelivery(rawBody: body, signature: nil, secret: "secret-1"))
    }

    /// A server with the default tenant, in memory, on a free port, for the length of `body`.
    private func withServer(_ body: (String) async throws -> Void) async throws {
        var logger = Logger(label: "readme-samples")
        logger.logLevel = .critical
        let configuration = ServerConfiguration(port: 0, storage: .memory, passwordHashCost: 4)
        let server = try await MockCollabServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [], logger: logger))
        let run = Task { try await group.run() }
        let port = await server.waitUntilListening()
        do {
            try await body("http://127.0.0.1:\(port)")
        } catch {
            await group.triggerGracefulShutdown()
            try? await run.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await run.value
    }
}
