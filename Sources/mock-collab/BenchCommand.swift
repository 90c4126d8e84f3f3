import APNsSimulator
import ArgumentParser
import CollabCore
import CollabPush
import CollabServer
import CollabWire
import Crypto
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// `mock-collab bench push`: in-process push throughput (compose + encrypt, and delivery to an
/// APNs-compatible HTTP/2 receiver on loopback). Numbers only mean something from a release build.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure throughput (use a release build).", subcommands: [
            BenchPushCommand.self, BenchCoBrowseCommand.self, BenchSinkCommand.self, BenchWSClientsCommand.self, BenchGrowthCommand.self,
            BenchNoisyNeighbourCommand.self,
            BenchEntitiesCommand.self, BenchConversationSearchCommand.self, BenchStateSearchCommand.self, BenchQueueCommand.self,
        ]
    )
}

struct BenchPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Pushes composed and encrypted per second, and pushes delivered per second to an in-process APNs simulator over HTTP/2."
    )

    @Option(help: "Pushes to compose per version.")
    var compose: Int = 50_000

    @Option(help: "Pushes to deliver to the APNs simulator.")
    var deliver: Int = 5_000

    @Option(help: "Concurrent deliveries.")
    var concurrency: Int = 64

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        var results: [String: Double] = [:]
        let key = NotificationKey(id: "bench", material: PushEncryption.makeKeyMaterial(), createdAt: 0)
        var content = PushContent(
            type: .newMessage, title: "Agent Smith", text: String(repeating: "A typical chat message. ", count: 6), conversationId: "c", timestamp: 0)
        content.messageId = "m"
        content.senderName = "Agent Smith"
        for version in PushVersion.allCases {
            let started = ContinuousClock.now
            var bytes = 0
            for _ in 0..<compose {
                bytes &+= try PushComposer.compose(content, transport: .apns, version: version, key: key, badge: 1).payload.count
            }
            let seconds = (ContinuousClock.now - started).seconds
            results["compose.\(version.rawValue).perSecond"] = Double(compose) / seconds
            precondition(bytes > 0)
        }

        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let providerKey = P256.Signing.PrivateKey()
        let simulator = try APNsSimulator(
            configuration: APNsSimulatorConfiguration(
                teamId: "TEAM123456", keys: ["KEY1234567": providerKey.publicKey.pemRepresentation], capacity: deliver + 10),
            logger: logger
        )
        let clock = SystemClock()
        let device = BenchDevices(apns: PushSettings.APNs(
            teamId: "TEAM123456", keyId: "KEY1234567", privateKeyPEM: providerKey.pemRepresentation, topic: "com.example.bench",
            environment: "custom", customURL: nil, insecureTLS: true
        ))
        let pipeline = PushPipeline(
            clock: clock, outboxCapacity: deliver + 10, settings: .init(maxAttempts: 1, maxConcurrentDeliveries: concurrency), logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [simulator, pipeline], gracefulShutdownSignals: [], logger: logger))
        let running = Task { try await group.run() }
        let port = await simulator.waitUntilListening()
        device.setURL("https://127.0.0.1:\(port)")

        // Warm up the HTTP/2 connection and the provider token.
        pipeline.enqueue([device.push(content, at: clock.now())])
        _ = await pipeline.outbox.wait(for: OutboxFilter(state: .delivered), timeout: .seconds(10))
        let baseline = pipeline.outbox.count
        let started = ContinuousClock.now
        pipeline.enqueue((0..<deliver).map { _ in device.push(content, at: clock.now()) })
        while pipeline.outbox.entries(matching: OutboxFilter(state: .delivered), limit: deliver + 10).count < deliver + 1 {
            if ContinuousClock.now - started > .seconds(120) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let seconds = (ContinuousClock.now - started).seconds
        let delivered = pipeline.outbox.entries(matching: OutboxFilter(state: .delivered), limit: deliver + 10).count - 1
        results["apns.delivered"] = Double(delivered)
        results["apns.failed"] = Double(pipeline.outbox.count - baseline - delivered)
        results["apns.perSecond"] = Double(delivered) / seconds
        await group.triggerGracefulShutdown()
        try await running.value

        if json {
            let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for (name, value) in results.sorted(by: { $0.key < $1.key }) { print("\(name)\t\(String(format: "%.0f", value))") }
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// One registered device for the push benchmark, and its pushes as a commit would resolve them.
final class BenchDevices: Sendable {
    private let settings: Mutex<PushSettings>
    private let device: Device

    init(apns: PushSettings.APNs) {
        settings = Mutex(PushSettings(id: "bench", apns: apns))
        var device = Device(
            id: "p:d", accountId: "bench", personId: "p", deviceId: "d", device: DeviceInfo(os: "iOS", appId: "com.example.bench"),
            version: .encryptedService, apnsEnvironment: "sandbox", registeredAt: 0
        )
        device.apnsToken = String(repeating: "ab", count: 32)
        device.keys = NotificationKeyRing(current: NotificationKey(id: "k", material: PushEncryption.makeKeyMaterial(), createdAt: 0))
        self.device = device
    }

    func setURL(_ url: String) {
        settings.withLock { $0.apns?.customURL = url }
    }

    func push(_ content: PushContent, at time: Timestamp) -> ResolvedPush {
        let intent = PushIntent(accountId: "bench", deviceRecordId: device.id, personId: "p", content: content, transports: [.apns], createdAt: time)
        // The device has an APNs token.
        return ResolvedPush(intent, to: device, over: .apns, settings: settings.withLock { $0 })!
    }
}
