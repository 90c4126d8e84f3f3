
import CollabCore
@testable import CollabPush
import CollabWire
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The push pipeline on its own, without a server: composition per transport and version of pushes as
/// a commit resolves them, the outbox states without sinks, dropped pushes, and the settle barrier.
@Suite("Push pipeline")
struct PushPipelineTests {
    /// A fixed clock.
    struct FixedClock: CollabClock {
        func now() -> Timestamp { 1_800_000_000_000 }
    }

    static func device(_ id: String, version: PushVersion, apns: Bool = true, voip: Bool = false) -> Device {
        var device = Device(
            id: id, accountId: "acc", personId: "person", deviceId: id, device: DeviceInfo(os: "iOS", appId: "com.example.app"), version: version,
            apnsEnvironment: "sandbox", registeredAt: 0
        )
        if apns { device.apnsToken = String(repeating: "ab", count: 32) }
        if voip { device.pushKitToken = String(repeating: "cd", count: 32) }
        device.keys = NotificationKeyRing(current: NotificationKey(id: "key-1", material: PushEncryption.makeKeyMaterial(), createdAt: 0))
        return device
    }

    /// A push to `device` over `transport`, as the resolver makes it at commit.
    static func push(_ device: Device, _ transport: PushTransport = .apns, _ content: PushContent = message()) throws -> ResolvedPush {
        let intent = PushIntent(
            accountId: "acc", deviceRecordId: device.id, personId: "person", content: content, transports: [transport], createdAt: 1_700_000_000_000
        )
        return try #require(ResolvedPush(intent, to: device, over: transport, settings: nil))
    }

    static func message(_ text: String = "hello") -> PushContent {
        var content = PushContent(type: .newMessage, title: "Agent", text: text, conversationId: "conv", timestamp: 1)
        content.notificationCount = 3
        return content
    }

    static func logger() -> Logger {
        var logger = Logger(label: "push-pipeline-tests")
        logger.logLevel = .critical
        return logger
    }

    /// Runs the pipeline as a service for the body.
    static func running<T: Sendable>(_ pipeline: PushPipeline, _ body: () async throws -> T) async throws -> T {
        let group = ServiceGroup(configuration: .init(services: [pipeline], gracefulShutdownSignals: [], logger: logger()))
        let task = Task { try await group.run() }
        do {
            let result = try await body()
            await group.triggerGracefulShutdown()
            try await task.value
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await task.value
            throw error
        }
    }

    @Test("one entry per resolved push, composed per version, recorded without sinks")
    func composition() async throws {
        let plain = Self.device("plain", version: .notEncrypted, voip: true)
        let sealed = Self.device("sealed", version: .encrypted)
        let pipeline = PushPipeline(clock: FixedClock(), logger: Self.logger())
        try await Self.running(pipeline) {
            pipeline.enqueue([try Self.push(plain, .apns), try Self.push(plain, .apnsVoIP), try Self.push(sealed, .apns, Self.message("secret"))])
            #expect(await pipeline.settle(timeout: .seconds(60)))
        }
        let entries = pipeline.outbox.entries(matching: OutboxFilter())
        #expect(entries.map(\.deviceId) == ["plain", "plain", "sealed"])
        #expect(entries.allSatisfy { $0.state == .recorded }, "no sink configured: recorded, not pending")
        #expect(entries.map(\.transport) == [.apns, .apnsVoIP, .apns])
        #expect(entries[0].pushType == "alert" && entries[1].pushType == "voip")
        #expect(entries[0].topic == "com.example.app" && entries[1].topic == "com.example.app.voip", "the app's id, with .voip for VoIP")
        #expect(entries[0].payload.contains("hello"))
        #expect(entries[2].keyId == "key-1")
        #expect(!entries[2].payload.contains("secret"), "an encrypted push never carries the text in the clear")
        #expect(entries.allSatisfy { $0.createdAt == 1_700_000_000_000 }, "a push is dated by the commit that decided it")
    }

    @Test("the outbox shows an incoming call's device credential for NOT_ENCRYPTED devices only: an encrypted one's stays sealed")
    func credentialSealedForEncryptedVersions() async throws {
        let plain = Self.device("plain", version: .notEncrypted, voip: true)
        let sealed = Self.device("sealed", version: .encrypted, voip: true)
        var call = PushContent(type: .incomingCall, title: "Agent", text: "Incoming call", conversationId: "conv", timestamp: 1)
        call.callCredential = "vc1.secret-credential"
        let pipeline = PushPipeline(clock: FixedClock(), logger: Self.logger())
        try await Self.running(pipeline) {
            pipeline.enqueue([try Self.push(plain, .apnsVoIP, call), try Self.push(sealed, .apnsVoIP, call)])
            #expect(await pipeline.settle(timeout: .seconds(60)))
        }
        let entries = pipeline.outbox.entries(matching: OutboxFilter())
        #expect(entries.map(\.deviceId) == ["plain", "sealed"])
        #expect(entries[0].content.callCredential == "vc1.secret-credential")
        #expect(entries[1].content.callCredential == nil)
        #expect(!entries[1].payload.contains("vc1.secret-credential"), "in the sealed payload only")
    }

    @Test("an account's settle waits for its own pushes only, not for another account's backlog")
    func settlePerAccount() async throws {
        let device = Self.device("phone", version: .notEncrypted)
        let pipeline = PushPipeline(clock: FixedClock(), logger: Self.logger())
        // Not running yet: the account's pushes wait in the queue.
        pipeline.enqueue(Array(repeating: try Self.push(device), count: 3))
        #expect(await pipeline.settle(accountId: "other", timeout: .zero), "nothing of another account is queued")
        #expect(await pipeline.settle(accountId: "acc", timeout: .zero) == false, "the account's own pushes are still queued")
        #expect(await pipeline.settle(timeout: .zero) == false, "nor are all accounts' through")
        try await Self.running(pipeline) {
            #expect(await pipeline.settle(accountId: "acc", timeout: .seconds(60)))
            #expect(pipeline.outbox.count == 3)
            // Through, the account's counts start over; a new push is waited for again.
            pipeline.enqueue([try Self.push(device)])
            #expect(await pipeline.settle(accountId: "acc", timeout: .seconds(60)))
            #expect(pipeline.outbox.count == 4)
        }
    }

    @Test("settle waits for every push queued before it; dropped pushes count as settled")
    func settle() async throws {
        let device = Self.device("phone", version: .notEncrypted)
        let pipeline = PushPipeline(clock: FixedClock(), settings: .init(queueCapacity: 4), logger: Self.logger())
        // Not running yet: the queue holds 4 and drops the rest.
        pipeline.enqueue(Array(repeating: try Self.push(device), count: 10))
        #expect(pipeline.droppedCount == 6)
        #expect(pipeline.outbox.count == 6, "each dropped push is kept, failed, at once")
        #expect(await pipeline.settle(timeout: .zero) == false, "four pushes wait for a pipeline that is not running")
        try await Self.running(pipeline) {
            #expect(await pipeline.settle(timeout: .seconds(60)))
            #expect(pipeline.outbox.count == 10)
        }
        #expect(pipeline.outbox.entries(matching: OutboxFilter(state: .recorded)).count == 4)
        #expect(await pipeline.settle(timeout: .seconds(1)), "nothing pending after the pipeline stopped")
    }

    @Test("one account's burst beyond its share of the compose queue fails its own pushes only; another account's are composed")
    func composeQueuePerAccount() async throws {
        let device = Self.device("phone", version: .notEncrypted)
        let pipeline = PushPipeline(clock: FixedClock(), settings: .init(queueCapacity: 100, queueCapacityPerAccount: 3), logger: Self.logger())
        let noisy = try Self.push(device)
        var quiet = noisy
        quiet.accountId = "quiet"
        // Not running yet: nothing is composed, so the noisy account's fourth push on finds its share full.
        pipeline.enqueue(Array(repeating: noisy, count: 8))
        pipeline.enqueue(Array(repeating: quiet, count: 3))
        #expect(pipeline.droppedCount == 5)
        let failed = pipeline.outbox.entries(matching: OutboxFilter(state: .failed))
        #expect(failed.count == 5 && failed.allSatisfy { $0.accountId == "acc" && $0.payload.isEmpty })
        #expect(failed.allSatisfy {
            $0.attempts.map(\.sink) == ["queue"] && $0.attempts[0].error == "this account's push queue is full (3 waiting, --push-queue-per-account)"
        })
        #expect(await pipeline.settle(accountId: "acc", timeout: .zero) == false, "the three it took wait to be composed")
        try await Self.running(pipeline) {
            #expect(await pipeline.settle(timeout: .seconds(60)))
            let composed = pipeline.outbox.entries(matching: OutboxFilter(state: .recorded))
            #expect(composed.filter { $0.accountId == "acc" }.count == 3)
            #expect(composed.filter { $0.accountId == "quiet" }.count == 3)
            // Composed, the account's share is free again.
            pipeline.enqueue([noisy])
            #expect(await pipeline.settle(accountId: "acc", timeout: .seconds(60)))
            #expect(pipeline.droppedCount == 5)
        }
    }
}
