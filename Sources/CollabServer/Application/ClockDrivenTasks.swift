import CollabCore
import Logging
import ServiceLifecycle
import Synchronization

/// Work that falls due as the server clock moves: missed calls, key rotation, expired sessions.
///
/// It checks the injected clock a few times a second, and at once when the control API moves the
/// virtual clock, so tests that advance time see the consequences without waiting.
final class ClockDrivenTasks: Service {
    private let environment: CollabEnvironment
    private let interval: Duration
    private let kicks: AsyncStream<Void>
    private let kickContinuation: AsyncStream<Void>.Continuation
    private let logger: Logger
    private let lastPrune = Mutex<Timestamp>(0)

    init(environment: CollabEnvironment, interval: Duration = .milliseconds(100), logger: Logger) {
        self.environment = environment
        self.interval = interval
        self.logger = logger
        (kicks, kickContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Runs the due work now (after the virtual clock moved) and waits for it.
    func runNow() async {
        await tick()
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

    private func tick() async {
        let configuration = environment.configuration
        let now = environment.clock.now()
        let due = (try? environment.read { state in
            state.calls.values.contains { $0.state == .ringing && $0.timeoutAt <= now }
                || state.devices.values.contains { ($0.keys.map { now - $0.current.createdAt >= configuration.keyRotationInterval }) ?? false }
        }) ?? false
        let pruneDue = lastPrune.withLock { last in
            guard now - last >= 60_000 else { return false }
            last = now
            return true
        }
        guard due || pruneDue else { return }
        do {
            try await environment.write { state, changes, op throws(CollabError) in
                state.expireCalls(now: op.now, context: op, changes: &changes)
                state.rotateDueKeys(interval: configuration.keyRotationInterval, overlap: configuration.keyOverlap, context: op, changes: &changes)
                if pruneDue { state.pruneSessions(now: op.now, changes: &changes) }
            }
        } catch {
            logger.warning("clock-driven work failed", metadata: ["error": "\(error)"])
        }
    }
}
