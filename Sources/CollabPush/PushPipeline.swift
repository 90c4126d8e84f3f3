public import CollabCore
public import CollabWire
import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// A token a push service reported gone (APNs `Unregistered`/`BadDeviceToken`, FCM `UNREGISTERED`), to
/// be removed from its device by a write of its own.
public struct RejectedToken: Sendable, Equatable {
    public var accountId: String
    public var deviceRecordId: String
    public var transport: PushTransport
    public var token: String
}

/// compose → encrypt → outbox → sinks. Takes pushes resolved at commit (device token, version, key,
/// topic and the account's sinks: see ``ResolvedPush``), never blocking the write that caused them, and
/// never reading the state again.
///
/// Every push lands in the outbox. Sinks configured for the account deliver it for real: APNs over
/// HTTP/2 for alert, background and VoIP pushes, FCM HTTP v1 for FCM tokens, `.apns` files for the
/// simulator (alert pushes). Tokens a push service rejects come out of ``rejectedTokens``.
public final class PushPipeline: Service {
    /// Tuning.
    public struct Settings: Sendable {
        public var maxAttempts: Int
        public var initialBackoff: Duration
        public var queueCapacity: Int
        public var maxConcurrentDeliveries: Int
        /// Pushes of one account waiting to be composed, and again composed pushes of one account waiting
        /// to be sent (each stage holds `queueCapacity` of all accounts together).
        public var queueCapacityPerAccount: Int
        /// Pushes of one account being sent at once.
        public var maxConcurrentPerAccount: Int
        /// The clock a retry's backoff (or the service's `Retry-After`) waits on; tests give one they move.
        public var retryClock: any Clock<Duration>
        public init(
            maxAttempts: Int = 5, initialBackoff: Duration = .milliseconds(500), queueCapacity: Int = 10_000, maxConcurrentDeliveries: Int = 64,
            queueCapacityPerAccount: Int = 2_500, maxConcurrentPerAccount: Int = 16, retryClock: any Clock<Duration> = ContinuousClock()
        ) {
            self.retryClock = retryClock
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.queueCapacity = queueCapacity
            self.maxConcurrentDeliveries = maxConcurrentDeliveries
            self.queueCapacityPerAccount = queueCapacityPerAccount
            self.maxConcurrentPerAccount = maxConcurrentPerAccount
        }
    }

    /// Decides whether a fault rule answers for the push service (see ``InjectedPushFailure``).
    public typealias FaultInjector = @Sendable (OutboxEntry) -> InjectedPushFailure?

    public let outbox: PushOutbox
    /// Tokens the push services rejected, in the order they did; ends when the pipeline stops.
    public let rejectedTokens: AsyncStream<RejectedToken>
    private let rejections: AsyncStream<RejectedToken>.Continuation
    let clock: any CollabClock
    let logger: Logger
    private let settings: Settings
    private let apns: APNsSink
    private let fcm: FCMSink
    private let stream: AsyncStream<Queued>
    private let continuation: AsyncStream<Queued>.Continuation
    let forgetMarks = Mutex(ForgetMarks())
    /// Composed pushes waiting to be sent, per account and push service (see ``FairQueue``).
    let sending: FairQueue<Sending>
    private let dropped = Mutex(0)
    private let progress = PushProgress()
    let faults: PushFaultHook

    /// A pipeline with its outbox and sinks, idle until ``run()``.
    /// - Parameters:
    ///   - clock: The server's clock (virtual time): when pushes are made and attempted.
    ///   - wallClock: Real time, for the credentials and expiries the push services check against their
    ///     own clocks; `nil` takes `clock` (a clock that is not virtual).
    public init(
        clock: any CollabClock, wallClock: (any CollabClock)? = nil, outboxCapacity: Int = 10_000, settings: Settings = Settings(),
        faults: FaultInjector? = nil, logger: Logger
    ) {
        self.clock = clock
        self.logger = logger
        self.settings = settings
        self.faults = PushFaultHook(faults)
        self.outbox = PushOutbox(capacity: outboxCapacity)
        self.apns = APNsSink(clock: clock, wallClock: wallClock ?? clock)
        self.fcm = FCMSink(clock: clock, wallClock: wallClock ?? clock)
        (stream, continuation) = AsyncStream.makeStream(of: Queued.self, bufferingPolicy: .bufferingOldest(settings.queueCapacity))
        sending = FairQueue(
            limits: .init(
                running: settings.maxConcurrentDeliveries, runningPerAccount: settings.maxConcurrentPerAccount,
                runningPerLane: settings.maxConcurrentPerAccount, queued: settings.queueCapacity, queuedPerAccount: settings.queueCapacityPerAccount
            )
        )
        (rejectedTokens, rejections) = AsyncStream.makeStream(of: RejectedToken.self, bufferingPolicy: .bufferingOldest(settings.queueCapacity))
    }

    /// Pushes dropped because a queue was full.
    public var droppedCount: Int { dropped.withLock { $0 } }

    func countDropped() {
        dropped.withLock { $0 += 1 }
    }

    /// Composed pushes of `accountId` waiting to be sent and being sent.
    public func sendingCounts(accountId: String) -> (queued: Int, running: Int) {
        sending.counts(account: accountId)
    }

    /// Waits until every push queued before the call has been composed into the outbox (or dropped), and
    /// every token rejected meanwhile removed, at most `timeout`.
    /// - Parameters:
    ///   - accountId: Wait for this account's pushes only (`nil`: every account's); another account's
    ///     backlog does not hold it up once this account's own pushes are through.
    ///   - timeout: The longest wait.
    /// - Returns: Whether it settled in time (`false` as well when the pipeline stopped).
    public func settle(accountId: String? = nil, timeout: Duration) async -> Bool {
        if progress.isSettled(accountId: accountId) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.progress.settle(accountId: accountId) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Queues pushes to be composed. Never blocks: a push beyond the account's share of the queue
    /// (``Settings/queueCapacityPerAccount``), or beyond the whole queue, fails in the outbox at once with
    /// the reason, so one account's burst never takes another account's room.
    public func enqueue(_ pushes: [ResolvedPush]) {
        let perAccount = min(settings.queueCapacity, max(1, settings.queueCapacityPerAccount))
        for push in pushes {
            guard progress.queued(accountId: push.accountId, limit: perAccount) else {
                refuse(push, .account(limit: perAccount))
                continue
            }
            let sequence = forgetMarks.withLock { $0.number() }
            if case .dropped = continuation.yield(Queued(push: push, sequence: sequence)) {
                progress.composed(accountId: push.accountId)
                refuse(push, .server(limit: settings.queueCapacity))
            }
        }
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            // Composed in order, as they come; sent concurrently, each account's in its own queue per push
            // service, so one account's push service that hangs holds back only that account's pushes.
            await withDiscardingTaskGroup { group in
                group.addTask { await self.sending.run { await self.deliver($0.entry, settings: $0.settings, sequence: $0.sequence) } }
                for await queued in stream {
                    // Queued before a reset of its account: it is history, not to be composed.
                    if isForgotten(queued.sequence, accountId: queued.push.accountId) {
                        progress.composed(accountId: queued.push.accountId)
                        continue
                    }
                    guard let composed = record(queued.push) else { continue }
                    let (entry, sinks) = composed
                    do throws(FairQueue<Sending>.Overflow) {
                        let sending = Sending(entry: entry, settings: sinks, sequence: queued.sequence)
                        try self.sending.enqueue(sending, account: entry.accountId, lane: entry.transport.rawValue)
                    } catch {
                        dropped(entry, error)
                    }
                }
                sending.finish()
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
        progress.finish()
        outbox.finishAll()
        rejections.finish()
        await apns.shutdown()
        await fcm.shutdown()
    }

    /// Composes a push into the outbox; returns it with its sinks when it is to be delivered (not
    /// recorded only, suppressed, failed, or answered by a fault rule).
    private func record(_ push: ResolvedPush) -> (OutboxEntry, PushSettings?)? {
        let stored = outbox.record(compose(push))
        let injected = (stored.state == .pending || stored.state == .recorded) && applyInjectedFailure(to: stored)
        progress.composed(accountId: push.accountId)
        if !injected, stored.state != .pending { outbox.countOutcome(stored.state, accountId: stored.accountId) }
        guard !injected, stored.state == .pending else { return nil }
        return (stored, push.settings)
    }

    /// Hands a rejected token on for removal. Until ``tokenRemoved(_:)`` says it is gone,
    /// ``settle(accountId:timeout:)`` waits for it too.
    func reject(_ entry: OutboxEntry) {
        progress.queued(accountId: entry.accountId)
        let token = RejectedToken(accountId: entry.accountId, deviceRecordId: entry.deviceRecordId, transport: entry.transport, token: entry.token)
        if case .dropped = rejections.yield(token) { progress.composed(accountId: entry.accountId) }
    }

    /// A token from ``rejectedTokens`` was removed (or could not be).
    public func tokenRemoved(_ token: RejectedToken) {
        progress.composed(accountId: token.accountId)
    }

    /// Composes the outbox entry of a push (encrypting for the encrypted versions).
    func compose(_ push: ResolvedPush) -> OutboxEntry {
        var entry = OutboxEntry(uncomposed: push)
        do {
            let composed = try PushComposer.compose(
                push.content, transport: push.transport, version: push.version, key: push.key, badge: push.content.notificationCount
            )
            entry.pushType = composed.pushType
            entry.priority = composed.priority
            entry.collapseId = composed.collapseId
            entry.keyId = composed.keyId
            entry.payload = String(decoding: composed.payload, as: UTF8.self)
            entry.payloadBytes = composed.payload.count
            entry.truncated = composed.truncated
            let sinks = push.settings
            let hasSink = (push.transport != .fcm && sinks?.apns != nil) || (push.transport == .fcm && sinks?.fcm != nil)
                || (sinks?.simulatorDirectory != nil && push.transport == .apns && composed.pushType == "alert")
            entry.state = hasSink ? .pending : .recorded
            if let reason = push.suppressedReason {
                entry.state = .suppressed
                entry.attempts.append(.init(timestamp: push.createdAt, sink: "policy", reason: reason))
            }
        } catch {
            entry.state = .failed
            entry.attempts.append(.init(timestamp: push.createdAt, sink: "composer", error: error.message))
        }
        return entry
    }

    private func deliver(_ entry: OutboxEntry, settings pushSettings: PushSettings?, sequence: Int64) async {
        var delivered = false
        if let directory = pushSettings?.simulatorDirectory, let result = SimulatorFileSink.write(entry, directory: directory, now: clock.now()) {
            outbox.update(id: entry.id, accountId: entry.accountId) { $0.attempts.append(result.attempt) }
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
            outbox.settle(id: entry.id, accountId: entry.accountId, as: delivered ? .delivered : .failed)
            return
        }
        var backoff = settings.initialBackoff
        var renew = false
        var renewed = false
        for attempt in 1...settings.maxAttempts {
            // A reset of the account since the push was queued: no further attempt (its entry is gone).
            guard !isForgotten(sequence, accountId: entry.accountId) else { return }
            guard let result = await DeliveryShutdown.attempt({ [renew] in await send(renew) }) else {
                logger.notice("push delivery stopped", metadata: ["push": "\(entry.pushId)", "reason": "\(DeliveryShutdown.Stopping())"])
                outbox.settle(id: entry.id, accountId: entry.accountId, as: .failed)
                return
            }
            renew = false
            outbox.update(id: entry.id, accountId: entry.accountId) { $0.attempts.append(result.attempt) }
            switch result.outcome {
            case .delivered:
                outbox.settle(id: entry.id, accountId: entry.accountId, as: .delivered)
                return
            case .unregistered:
                reject(entry)
                outbox.settle(id: entry.id, accountId: entry.accountId, as: .unregistered)
                return
            case .failed:
                outbox.settle(id: entry.id, accountId: entry.accountId, as: .failed)
                logger.notice(
                    "push delivery failed",
                    metadata: [
                        "push": "\(entry.pushId)", "account": "\(entry.accountId)", "status": "\(result.attempt.status.map(String.init) ?? "-")",
                        "reason": "\(result.attempt.reason ?? result.attempt.error ?? "")",
                    ])
                return
            case .retry:
                if result.attempt.reason == "ExpiredProviderToken" || result.attempt.reason == "ExpiredAccessToken" {
                    // One renewal per push: a token the service calls expired right after it was made
                    // means its clock and ours disagree, which no further token mends.
                    guard !renewed else {
                        outbox.settle(id: entry.id, accountId: entry.accountId, as: .failed)
                        logger.warning("push delivery failed", metadata: ["push": "\(entry.pushId)", "reason": "\(result.attempt.reason ?? "")"])
                        return
                    }
                    renew = true
                    renewed = true
                    continue
                }
                if attempt < settings.maxAttempts {
                    let pause = result.retryAfter.map { min($0, .seconds(60)) } ?? backoff
                    guard await DeliveryShutdown.pauseBeforeRetry(pause, on: settings.retryClock) else {
                        logger.notice("push delivery stopped", metadata: ["push": "\(entry.pushId)", "reason": "\(DeliveryShutdown.notRetried)"])
                        outbox.settle(id: entry.id, accountId: entry.accountId, as: .failed) { entry in
                            if let last = entry.attempts.indices.last {
                                entry.attempts[last].error = DeliveryShutdown.noting(entry.attempts[last].error)
                            }
                        }
                        return
                    }
                    backoff = backoff * 2
                }
            }
        }
        logger.notice("push delivery failed", metadata: ["push": "\(entry.pushId)", "kind": "\(entry.kind.rawValue)"])
        outbox.settle(id: entry.id, accountId: entry.accountId, as: .failed)
    }
}
