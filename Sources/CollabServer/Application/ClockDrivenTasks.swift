import CollabCore
import CollabStore
import Logging
import ServiceLifecycle
import Synchronization

/// Work that falls due as the server clock moves: missed calls, key rotation, expired sessions.
///
/// It checks the injected clock a few times a second, and at once when the control API moves the
/// virtual clock, so tests that advance time see the consequences without waiting.
final class ClockDrivenTasks: Service {
    private let repository: StateRepository
    private let configuration: ServerConfiguration
    private let clock: AdjustableClock
    /// Connections of stopped clients and expired sessions close.
    private let events: EventHub
    private let interval: Duration
    private let kicks: AsyncStream<Void>
    private let kickContinuation: AsyncStream<Void>.Continuation
    private let logger: Logger
    /// One tick at a time: the control API's tick answers only once a periodic tick in flight is done.
    private let turns = OneAtATime()
    /// Failed ticks in a row: while the database is away, every tick fails; a few of them are logged.
    private let failures = Mutex(FailureStreak())

    init(
        repository: StateRepository, configuration: ServerConfiguration, clock: AdjustableClock, events: EventHub,
        interval: Duration = .milliseconds(100), logger: Logger
    ) {
        self.repository = repository
        self.configuration = configuration
        self.clock = clock
        self.events = events
        self.interval = interval
        self.logger = logger
        (kicks, kickContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Runs the due work now (after the virtual clock moved) and waits for it, on any replica of a
    /// cluster: the caller answers only once the work is done (see ``StateRepository/runDueWork(now:onAnyReplica:_:)``).
    func runNow() async {
        await tick(onAnyReplica: true)
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: self.interval)
                        self.kickContinuation.yield()
                    }
                }
                for await _ in kicks {
                    await tick()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.kickContinuation.finish()
        }
    }

    /// Runs what is due: the repository knows which accounts have work due (a deadline queue per
    /// account and one across accounts), so a tick with nothing due costs one comparison.
    private func tick(onAnyReplica: Bool = false) async {
        await turns.run { await dueWork(onAnyReplica: onAnyReplica) }
    }

    private func dueWork(onAnyReplica: Bool) async {
        let configuration = configuration
        let now = clock.now()
        guard let next = repository.nextDeadline, next <= now else { return }
        let context = OperationContext(now: now, ids: .system, limits: configuration.storedRecordLimits)
        let stopped = Mutex<[String]>([])
        do {
            try await repository.runDueWork(now: now, onAnyReplica: onAnyReplica) { state, changes in
                let report = state.runDueWork(
                    keyRotationInterval: configuration.keyRotationInterval, keyOverlap: configuration.keyOverlap,
                    clientIdleTimeout: configuration.clientIdleTimeout, context: context, changes: &changes
                )
                stopped.withLock { $0 += report.stoppedClients + report.expiredSessions }
            }
            let failed = failures.withLock { $0.succeeded() }
            if failed > 0 { logger.notice("clock-driven work done again", metadata: ["failedTicks": "\(failed)"]) }
        } catch {
            // The work not done is due again at once: the next tick tries it (`runDueWork`).
            let (logged, count) = failures.withLock { ($0.failed(), $0.count) }
            if logged {
                logger.warning(
                    "clock-driven work failed; every tick tries it again (logged at 1, 10, 100, … failures in a row)",
                    metadata: ["error": "\(error)", "failedTicks": "\(count)"]
                )
            }
        }
        for token in stopped.withLock({ $0 }) { events.disconnect(sessionKey: token) }
    }
}
