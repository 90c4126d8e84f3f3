public import CollabCore
import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// What the push pipeline needs from the server's state.
public protocol PushStateAccess: Sendable {
    /// The device and the account's push settings for an intent, if the device still exists.
    func target(for intent: PushIntent) -> (device: Device, settings: PushSettings?)?
    /// Removes a token an endpoint reported as gone.
    func removeToken(accountId: String, deviceRecordId: String, transport: PushTransport, token: String) async
}

/// compose → encrypt → outbox → sinks. Takes push intents after their state change is stored, never
/// blocking the request that caused them.
///
/// Every push lands in the outbox. Sinks configured for the account deliver it for real: APNs over
/// HTTP/2 for alert, background and VoIP pushes, FCM HTTP v1 for FCM tokens, `.apns` files for the
/// simulator (alert pushes).
public final class PushPipeline: Service {
    /// Tuning.
    public struct Settings: Sendable {
        public var maxAttempts: Int
        public var initialBackoff: Duration
        public var queueCapacity: Int
        public var maxConcurrentDeliveries: Int
        public init(maxAttempts: Int = 5, initialBackoff: Duration = .milliseconds(500), queueCapacity: Int = 10_000, maxConcurrentDeliveries: Int = 64) {
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.queueCapacity = queueCapacity
            self.maxConcurrentDeliveries = maxConcurrentDeliveries
        }
    }

    public let outbox: PushOutbox
    private let state: any PushStateAccess
    private let clock: any CollabClock
    private let logger: Logger
    private let settings: Settings
    private let apns: APNsSink
    private let fcm: FCMSink
    private let stream: AsyncStream<PushIntent>
    private let continuation: AsyncStream<PushIntent>.Continuation
    private let dropped = Mutex(0)
    private let observers = Mutex<[@Sendable (OutboxEntry) -> Void]>([])
    private let progress = PushProgress()
    let faultHook = PushFaultHook()

    public init(state: any PushStateAccess, clock: any CollabClock, outboxCapacity: Int = 10_000, settings: Settings = Settings(), logger: Logger) {
        self.state = state
        self.clock = clock
        self.logger = logger
        self.settings = settings
        self.outbox = PushOutbox(capacity: outboxCapacity)
        self.apns = APNsSink(clock: clock)
        self.fcm = FCMSink(clock: clock)
        (stream, continuation) = AsyncStream.makeStream(of: PushIntent.self, bufferingPolicy: .bufferingOldest(settings.queueCapacity))
    }

    /// Intents dropped because the queue was full.
    public var droppedCount: Int { dropped.withLock { $0 } }

    /// Waits until every intent queued before the call has been composed into the outbox (or dropped),
    /// at most `timeout`.
    /// - Returns: Whether it settled in time (`false` as well when the pipeline stopped).
    public func settle(timeout: Duration) async -> Bool {
        let (queued, composed) = progress.counts
        if composed >= queued { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.progress.settle() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Calls `observer` with every composed push (push webhooks use it).
    public func observe(_ observer: @escaping @Sendable (OutboxEntry) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Queues intents. Never blocks.
    public func enqueue(_ intents: [PushIntent]) {
        for intent in intents {
            progress.queued()
            if case .dropped = continuation.yield(intent) {
                progress.composed()
                dropped.withLock { $0 += 1 }
                logger.warning("push queue full; push dropped", metadata: ["kind": "\(intent.content.type.rawValue)"])
            }
        }
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await intent in stream {
                    for entry in compose(intent) {
                        let stored = outbox.record(entry)
                        for observer in observers.withLock({ $0 }) { observer(stored) }
                        if stored.state == .pending || stored.state == .recorded, await applyInjectedFailure(to: stored) { continue }
                        guard stored.state == .pending else { continue }
                        if running >= settings.maxConcurrentDeliveries {
                            await group.next()
                            running -= 1
                        }
                        running += 1
                        let target = state.target(for: intent)
                        group.addTask { await self.deliver(stored, settings: target?.settings) }
                    }
                    progress.composed()
                }
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
        progress.finish()
        outbox.finishAll()
        await apns.shutdown()
        await fcm.shutdown()
    }

    /// Composes one outbox entry per transport of the intent.
    func compose(_ intent: PushIntent) -> [OutboxEntry] {
        guard let (device, pushSettings) = state.target(for: intent) else { return [] }
        let now = clock.now()
        var entries: [OutboxEntry] = []
        for transport in intent.transports {
            let token: String?
            switch transport {
            case .apns: token = device.apnsToken
            case .apnsVoIP: token = device.pushKitToken
            case .fcm: token = device.fcmToken
            }
            guard let token else { continue }
            let baseTopic = pushSettings?.apns?.topic ?? device.device.appId ?? "com.example.app"
            let topic: String? = transport == .fcm ? nil : (transport == .apnsVoIP ? baseTopic + ".voip" : baseTopic)
            var entry = OutboxEntry(
                id: 0, pushId: UUID().uuidString, accountId: intent.accountId, personId: intent.personId, deviceRecordId: device.id,
                deviceId: device.deviceId, kind: intent.content.type, transport: transport, version: device.version, token: token, topic: topic,
                pushType: "alert", priority: 10, collapseId: nil, keyId: nil, content: intent.content, payload: "", payloadBytes: 0, truncated: false,
                state: .recorded, attempts: [], createdAt: now
            )
            do {
                let composed = try PushComposer.compose(
                    intent.content, transport: transport, version: device.version, key: device.keys?.current, badge: intent.content.notificationCount
                )
                entry.pushType = composed.pushType
                entry.priority = composed.priority
                entry.collapseId = composed.collapseId
                entry.keyId = composed.keyId
                entry.payload = String(decoding: composed.payload, as: UTF8.self)
                entry.payloadBytes = composed.payload.count
                entry.truncated = composed.truncated
                let hasSink = (transport != .fcm && pushSettings?.apns != nil) || (transport == .fcm && pushSettings?.fcm != nil)
                    || (pushSettings?.simulatorDirectory != nil && transport == .apns && composed.pushType == "alert")
                entry.state = hasSink ? .pending : .recorded
                if let reason = intent.suppressedReason {
                    entry.state = .suppressed
                    entry.attempts.append(.init(timestamp: now, sink: "policy", reason: reason))
                }
            } catch {
                entry.state = .failed
                entry.attempts.append(.init(timestamp: now, sink: "composer", error: error.message))
            }
            entries.append(entry)
        }
        return entries
    }

    /// Removes the token of an entry whose injected failure unregisters it.
    func removeInjectedToken(_ entry: OutboxEntry) async {
        await state.removeToken(accountId: entry.accountId, deviceRecordId: entry.deviceRecordId, transport: entry.transport, token: entry.token)
    }

    private func deliver(_ entry: OutboxEntry, settings pushSettings: PushSettings?) async {
        var delivered = false
        if let directory = pushSettings?.simulatorDirectory, let result = SimulatorFileSink.write(entry, directory: directory, now: clock.now()) {
            outbox.update(id: entry.id) { $0.attempts.append(result.attempt) }
            delivered = result.outcome == .delivered
        }
        let send: (@Sendable (Bool) async -> SinkResult)?
        if entry.transport == .fcm, let fcmSettings = pushSettings?.fcm {
            send = { renew in await self.fcm.send(entry, settings: fcmSettings, renewToken: renew) }
        } else if entry.transport != .fcm, let apnsSettings = pushSettings?.apns {
            send = { renew in await self.apns.send(entry, settings: apnsSettings, renewToken: renew) }
        } else {
            send = nil
        }
        guard let send else {
            outbox.update(id: entry.id) { $0.state = delivered ? .delivered : .failed }
            return
        }
        var backoff = settings.initialBackoff
        var renew = false
        for attempt in 1...settings.maxAttempts {
            let result = await send(renew)
            renew = false
            outbox.update(id: entry.id) { $0.attempts.append(result.attempt) }
            switch result.outcome {
            case .delivered:
                outbox.update(id: entry.id) { $0.state = .delivered }
                return
            case .unregistered:
                await state.removeToken(accountId: entry.accountId, deviceRecordId: entry.deviceRecordId, transport: entry.transport, token: entry.token)
                outbox.update(id: entry.id) { $0.state = .unregistered }
                return
            case .failed:
                outbox.update(id: entry.id) { $0.state = .failed }
                return
            case .retry:
                if result.attempt.reason == "ExpiredProviderToken" || result.attempt.reason == "ExpiredAccessToken" {
                    renew = true
                    continue
                }
                if attempt < settings.maxAttempts {
                    try? await Task.sleep(for: result.retryAfter.map { min($0, .seconds(60)) } ?? backoff)
                    backoff = backoff * 2
                }
            }
        }
        logger.notice("push delivery failed", metadata: ["push": "\(entry.pushId)", "kind": "\(entry.kind.rawValue)"])
        outbox.update(id: entry.id) { $0.state = .failed }
    }
}
