import CollabCore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import CollabPush

/// The push pipeline on its own, without a server: composition per transport and version, the
/// outbox states without sinks, dropped intents, and the settle barrier.
@Suite("Push pipeline")
struct PushPipelineTests {
    /// Devices the pipeline composes for, without sinks (every push is recorded, none delivered).
    final class Devices: PushStateAccess {
        private let devices: Mutex<[String: Device]>

        init(_ devices: [Device]) {
            self.devices = Mutex(Dictionary(uniqueKeysWithValues: devices.map { ($0.id, $0) }))
        }

        func target(for intent: PushIntent) -> (device: Device, settings: PushSettings?)? {
            devices.withLock { $0[intent.deviceRecordId] }.map { ($0, nil) }
        }

        func removeToken(accountId: String, deviceRecordId: String, transport: PushTransport, token: String) async {}
    }

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

    @Test("one entry per transport the device has a token for, composed per version, recorded without sinks")
    func composition() async throws {
        let plain = Self.device("plain", version: .notEncrypted, voip: true)
        let sealed = Self.device("sealed", version: .encrypted)
        let noToken = Self.device("none", version: .notEncrypted, apns: false)
        let pipeline = PushPipeline(state: Devices([plain, sealed, noToken]), clock: FixedClock(), logger: Self.logger())
        try await Self.running(pipeline) {
            pipeline.enqueue([
                PushIntent(accountId: "acc", deviceRecordId: "plain", personId: "person", content: Self.message(), transports: [.apns, .apnsVoIP]),
                PushIntent(accountId: "acc", deviceRecordId: "sealed", personId: "person", content: Self.message("secret"), transports: [.apns]),
                PushIntent(accountId: "acc", deviceRecordId: "none", personId: "person", content: Self.message(), transports: [.apns]),
                PushIntent(accountId: "acc", deviceRecordId: "gone", personId: "person", content: Self.message(), transports: [.apns]),
            ])
            #expect(await pipeline.settle(timeout: .seconds(10)))
        }
        let entries = pipeline.outbox.entries(matching: OutboxFilter())
        #expect(entries.map(\.deviceId) == ["plain", "plain", "sealed"], "no entry without a token or a device")
        #expect(entries.allSatisfy { $0.state == .recorded }, "no sink configured: recorded, not pending")
        #expect(entries.map(\.transport) == [.apns, .apnsVoIP, .apns])
        #expect(entries[0].topic == "com.example.app" && entries[1].topic == "com.example.app.voip")
        #expect(entries[0].payload.contains("hello"))
        #expect(entries[2].keyId == "key-1")
        #expect(!entries[2].payload.contains("secret"), "an encrypted push never carries the text in the clear")
        #expect(entries.allSatisfy { $0.createdAt == 1_800_000_000_000 }, "times come from the injected clock")
    }

    @Test("settle waits for every intent queued before it; dropped intents count as settled")
    func settle() async throws {
        let device = Self.device("phone", version: .notEncrypted)
        let pipeline = PushPipeline(
            state: Devices([device]), clock: FixedClock(), settings: .init(queueCapacity: 4), logger: Self.logger()
        )
        // Not running yet: the queue holds 4 and drops the rest.
        let intent = PushIntent(accountId: "acc", deviceRecordId: "phone", personId: "person", content: Self.message(), transports: [.apns])
        pipeline.enqueue(Array(repeating: intent, count: 10))
        #expect(pipeline.droppedCount == 6)
        #expect(await pipeline.settle(timeout: .zero) == false, "four intents wait for a pipeline that is not running")
        try await Self.running(pipeline) {
            #expect(await pipeline.settle(timeout: .seconds(10)))
            #expect(pipeline.outbox.count == 4)
        }
        #expect(await pipeline.settle(timeout: .seconds(1)), "nothing pending after the pipeline stopped")
    }
}
