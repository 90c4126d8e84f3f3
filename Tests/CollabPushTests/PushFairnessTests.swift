
import CollabCore
@testable import CollabPush
import CollabTestSupport
import CollabWire
import Foundation
import Testing
import _CryptoExtras

/// Pushes are sent from a queue per account and push service (issue 25, item 4): one account whose
/// push service never answers holds its share of the pipeline's slots only. The pipeline runs in
/// process against real endpoints: a token endpoint that never answers, and ``FCMReceiver``.
@Suite("Push fairness")
struct PushFairnessTests {
    static func push(account: String, index: Int, fcm: PushSettings.FCM) throws -> ResolvedPush {
        var device = Device(
            id: "\(account)-device-\(index)", accountId: account, personId: "person", deviceId: "\(account)-\(index)",
            device: DeviceInfo(os: "Android", appId: "com.example.app"), version: .notEncrypted, apnsEnvironment: "sandbox", registeredAt: 0
        )
        device.fcmToken = "fcm:\(account)-\(index)"
        let intent = PushIntent(
            accountId: account, deviceRecordId: device.id, personId: "person", content: PushPipelineTests.message("to \(account) \(index)"),
            transports: [.fcm], createdAt: 1_700_000_000_000
        )
        return try #require(ResolvedPush(intent, to: device, over: .fcm, settings: PushSettings(id: account, fcm: fcm)))
    }

    /// FCM settings of a service account `project` whose token and send requests go to `tokenURL` and `endpoint`.
    static func fcm(_ project: String, tokenURL: String, endpoint: String) throws -> PushSettings.FCM {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        return PushSettings.FCM(projectId: project, clientEmail: "\(project)@example.com", privateKeyPEM: key, tokenURL: tokenURL, endpoint: endpoint)
    }

    @Test("an account whose push service never answers holds its share of slots; another account's pushes are delivered")
    func hangingServiceDelaysOnlyItsAccount() async throws {
        let silent = try await SilentEndpoint()
        let receiver = try await FCMReceiver()
        let hanging = try Self.fcm("noisy", tokenURL: silent.url, endpoint: silent.url)
        let answering = try Self.fcm("quiet", tokenURL: receiver.baseURL + "/token", endpoint: receiver.baseURL)
        let pipeline = PushPipeline(
            clock: PushPipelineTests.FixedClock(), settings: .init(maxAttempts: 1, maxConcurrentDeliveries: 4, maxConcurrentPerAccount: 2),
            logger: PushPipelineTests.logger()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            // Each of the noisy account's attempts hangs until the sink's 10 s timeout: a hundred keep its slots busy
            // for minutes, however many slots it got, far beyond ``fairnessPatience``.
            pipeline.enqueue(try (0..<100).map { try Self.push(account: "noisy", index: $0, fcm: hanging) })
            // Both of the noisy account's slots wait on its token endpoint before the quiet account pushes.
            var deadline = ContinuousClock.now + fairnessPatience
            while silent.connectionCount < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(silent.connectionCount == 2)
            pipeline.enqueue(try (0..<5).map { try Self.push(account: "quiet", index: $0, fcm: answering) })
            deadline = ContinuousClock.now + fairnessPatience
            while receiver.all.count < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(Set(receiver.all.map(\.token)) == Set((0..<5).map { "fcm:quiet-\($0)" }))
            // Each hanging attempt ends after the sink's 10 s timeout and the next of the noisy account's takes its slot:
            // never more than its share runs (at one instant the two that timed out together may have ended, the next not begun).
            let running = pipeline.sendingCounts(accountId: "noisy").running
            #expect(running <= 2, "\(running) of the noisy account's pushes running")
            group.cancelAll()
        }
        try await silent.stop()
        try await receiver.stop()
    }

    @Test("a token endpoint that names an endless lifetime is trusted for a day, and its pushes are delivered")
    func endlessTokenLifetime() async throws {
        let receiver = try await FCMReceiver(expiresIn: 10_000_000_000_000_000)
        let fcm = try Self.fcm("endless", tokenURL: receiver.baseURL + "/token", endpoint: receiver.baseURL)
        let pipeline = PushPipeline(clock: PushPipelineTests.FixedClock(), settings: .init(maxAttempts: 1), logger: PushPipelineTests.logger())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            pipeline.enqueue(try (0..<3).map { try Self.push(account: "endless", index: $0, fcm: fcm) })
            for index in 0..<3 {
                let delivered = OutboxFilter(accountId: "endless", deviceId: "endless-device-\(index)", state: .delivered)
                #expect(await pipeline.outbox.wait(for: delivered, timeout: fairnessPatience) != nil, "push \(index) delivered")
            }
            #expect(Set(receiver.all.map(\.token)) == Set((0..<3).map { "fcm:endless-\($0)" }))
            group.cancelAll()
        }
        try await receiver.stop()
    }

    @Test("beyond --push-queue-per-account an account's pushes fail in the outbox with the reason; another account's are queued")
    func fullAccountQueueFailsOnlyItsOwn() async throws {
        let silent = try await SilentEndpoint()
        let hanging = try Self.fcm("noisy", tokenURL: silent.url, endpoint: silent.url)
        let pipeline = PushPipeline(
            clock: PushPipelineTests.FixedClock(),
            settings: .init(maxAttempts: 1, maxConcurrentDeliveries: 4, queueCapacityPerAccount: 3, maxConcurrentPerAccount: 2),
            logger: PushPipelineTests.logger()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            pipeline.enqueue(try (0..<20).map { try Self.push(account: "noisy", index: $0, fcm: hanging) })
            pipeline.enqueue(try (0..<3).map { try Self.push(account: "quiet", index: $0, fcm: hanging) })
            #expect(await pipeline.settle(timeout: fairnessPatience))
            let failed = pipeline.outbox.entries(matching: OutboxFilter(state: .failed)).filter { $0.attempts.last?.sink == "queue" }
            // At most two of the noisy account's are sent and three wait: at least fifteen failed, none of the
            // quiet account's.
            #expect(failed.count >= 15)
            #expect(failed.count == pipeline.droppedCount)
            #expect(failed.allSatisfy { $0.accountId == "noisy" && $0.attempts.last?.error?.contains("--push-queue-per-account") == true })
            group.cancelAll()
        }
        try await silent.stop()
    }
}
