import APNsSimulator
import CollabClient
import Crypto
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// An in-process APNs simulator over HTTP/2 and TLS, with a provider key the test controls.
final class APNsSimHarness: Sendable {
    static let teamId = "TEAM123456"
    static let keyId = "KEY1234567"
    let providerKeyPEM: String
    let simulator: APNsSimulator
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let port: Int
    /// How far the simulator's clock is ahead of the real one (it checks provider-token ages with it).
    private let skew = ClockSkew()

    init(topics: Set<String> = [], providerTokenMaxAge: TimeInterval = 3600) async throws {
        let key = P256.Signing.PrivateKey()
        providerKeyPEM = key.pemRepresentation
        var logger = Logger(label: "apns-sim")
        logger.logLevel = .critical
        simulator = try APNsSimulator(
            configuration: APNsSimulatorConfiguration(
                teamId: Self.teamId, keys: [Self.keyId: key.publicKey.pemRepresentation], topics: topics, providerTokenMaxAge: providerTokenMaxAge
            ),
            logger: logger,
            now: { [skew] in Date() + skew.seconds }
        )
        let group = ServiceGroup(configuration: .init(services: [simulator], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        task = Task { try await group.run() }
        port = await simulator.waitUntilListening()
    }

    var url: String { "https://127.0.0.1:\(port)" }

    /// Moves the simulator's clock forward (provider tokens age at once).
    func advanceClock(by seconds: TimeInterval) {
        skew.advance(by: seconds)
    }

    /// Push settings that send an account's pushes here.
    func pushSettingsJSON(topic: String = "com.example.app") throws -> Data {
        let settings: [String: Any] = [
            "apns": [
                "teamId": Self.teamId, "keyId": Self.keyId, "privateKeyPEM": providerKeyPEM, "topic": topic, "environment": "custom",
                "customURL": url, "insecureTLS": true,
            ]
        ]
        return try JSONSerialization.data(withJSONObject: settings)
    }

    /// Waits until `count` pushes matching `predicate` arrived.
    func wait(
        count: Int, timeout: Duration = .seconds(30), _ predicate: @Sendable (SimulatedPush) -> Bool = { _ in true }
    ) async throws -> [SimulatedPush] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let matches = simulator.pushes.filter(predicate)
            if matches.count >= count { return matches }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CollectorTimeout(description: "\(count) pushes at the APNs simulator", seen: simulator.pushes.map(\.pushType))
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

/// Seconds a simulated clock runs ahead of the real one.
final class ClockSkew: Sendable {
    private let value = Mutex<TimeInterval>(0)
    var seconds: TimeInterval { value.withLock { $0 } }
    func advance(by seconds: TimeInterval) { value.withLock { $0 += seconds } }
}
