import AsyncHTTPClient
public import CollabClient
import CollabWire
import Foundation
import NIOCore
import Synchronization

/// Runs a load test: agents first, then visitors ramped up over `rampUpSeconds`, for
/// `durationSeconds`; then visitors finish what they are doing (at most `drainSeconds`), agents stop,
/// and the server's own counts are compared with the run's.
///
/// ```swift
/// let runner = LoadRunner(configuration: configuration)
/// let report = try await runner.run { snapshot in print(ProgressLine(snapshot).text) }
/// ```
public final class LoadRunner: Sendable {
    public let configuration: LoadConfiguration
    /// TLS trust, pins and client certificate for an `https://` server.
    public let tls: TLSOptions?
    private let interrupted = Mutex(false)
    private let completed = Mutex(false)
    private let visitorsStop = StopSignal()
    private let agentsStop = StopSignal()

    /// Creates a runner; nothing happens before ``run(progressInterval:progress:)``.
    /// - Parameters:
    ///   - configuration: What the run does.
    ///   - tls: TLS trust, pins and client certificate for an `https://` server.
    public init(configuration: LoadConfiguration, tls: TLSOptions? = nil) {
        self.configuration = configuration
        self.tls = tls
    }

    /// Stops early (Ctrl-C): visitors stop starting work, finish what they are doing, and the run
    /// still reports.
    public func interrupt() {
        interrupted.withLock { $0 = true }
        visitorsStop.stop()
    }

    /// Runs the test and returns its report.
    /// - Parameters:
    ///   - progressInterval: How often `progress` is called.
    ///   - progress: Called with a snapshot while the run goes on (for a live view).
    /// - Throws: ``LoadConfigurationError`` for a configuration out of bounds, ``LoadServerUnreachable``
    ///   when the server does not answer at all. Failures of the simulated devices are not thrown: they
    ///   are counted in the report.
    public func run(progressInterval: Duration = .seconds(1), progress: (@Sendable (LoadSnapshot) -> Void)? = nil) async throws -> LoadReport {
        try configuration.validate()
        var pool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.connections)
        // A connection the server refuses is an error of the run, counted as such, not retried until the request's timeout.
        pool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(connectionPool: pool))
        do throws(CollabClientError) {
            // Whatever it answers: only whether it answers at all.
            _ = try await HTTPTransport(baseURL: configuration.url, client: http, timeout: .seconds(10), tls: tls).raw("GET", "/healthz")
        } catch {
            try? await http.shutdown()
            throw LoadServerUnreachable(url: configuration.url, reason: "\(error)")
        }
        let startedAt = Int64(Date().timeIntervalSince1970 * 1_000)
        let start = ContinuousClock.now
        let metrics = LoadMetrics(start: start)
        let context = LoadContext(
            configuration: configuration, tls: tls, metrics: metrics, http: http, visitorsStop: visitorsStop, agentsStop: agentsStop,
            messages: PendingTimes(), rings: PendingTimes(), timeouts: TimeoutWheel(origin: start)
        )
        var random = SeededRandom(seed: configuration.seed)
        let roles = (0..<configuration.visitors).map { _ in VisitorRole.of(scenario: configuration.scenario, random: &random) }

        // Agents log in first; the first one's account scopes the server's counts.
        let agents = (0..<configuration.agents).map { _ in AgentClient(baseURL: configuration.url, client: http, tls: tls) }
        let accounts = await withTaskGroup(of: String?.self) { group in
            for (index, agent) in agents.enumerated() {
                group.addTask { await SimulatedAgent(index: index, context: context).login(agent) }
            }
            return await group.reduce(into: [String]()) { if let id = $1 { $0.append(id) } }
        }
        let control = controlClient(http: http)
        let account = accounts.first
        var before: StateStats?
        var serverUnavailable: String?
        if let control {
            do throws(CollabClientError) {
                before = try await control.stats(account: account, cluster: true)
            } catch {
                serverUnavailable = "GET /_mock/v1/stats failed: \(error)"
            }
        } else {
            serverUnavailable = "no control credentials"
        }

        await withDiscardingTaskGroup { group in
            // The devices' wait limits tick until the agents stop, which is after every visitor is done.
            group.addTask { await context.timeouts.run(until: context.agentsStop) }
            for (index, agent) in agents.enumerated() where agent.session != nil {
                group.addTask { await SimulatedAgent(index: index, context: context).run(agent) }
            }
            if let progress {
                group.addTask {
                    while await context.agentsStop.sleep(until: .now + progressInterval) {
                        progress(metrics.snapshot(at: .now))
                    }
                }
            }
            group.addTask { await self.runVisitors(roles: roles, context: context) }
        }
        let end = ContinuousClock.now
        let endedAt = Int64(Date().timeIntervalSince1970 * 1_000)

        var server: ServerComparison?
        if let control, let before {
            do throws(CollabClientError) {
                let after = try await control.stats(account: account, cluster: true)
                server = ServerComparison(account: account ?? "*", before: before, after: after, metrics: metrics)
            } catch {
                serverUnavailable = "GET /_mock/v1/stats failed after the run: \(error)"
            }
        }
        await Self.shutDown(http)

        let figures = metrics.finish(at: end)
        var roleCounts: [VisitorRole: Int] = [:]
        for role in roles { roleCounts[role, default: 0] += 1 }
        return LoadReport(
            configuration: .init(configuration, roles: roleCounts), startedAt: startedAt, endedAt: endedAt,
            elapsedSeconds: LoadMetrics.seconds(end - start).rounded(toPlaces: 3),
            stoppedBy: interrupted.withLock { $0 } ? "interrupted" : completed.withLock { $0 } ? "completed" : "duration",
            operations: figures.operations, errors: figures.errors, counters: figures.counters, timeline: figures.timeline, server: server,
            serverUnavailable: server == nil ? serverUnavailable : nil
        )
    }

    /// Starts visitors on the ramp, stops them at the end of the duration, gives them the drain time
    /// to finish, then cancels what is left and stops the agents.
    private func runVisitors(roles: [VisitorRole], context: LoadContext) async {
        let start = ContinuousClock.now
        let rampUp = Duration.milliseconds(Int64(configuration.rampUpSeconds * 1_000))
        let duration = Duration.milliseconds(Int64(configuration.durationSeconds * 1_000))
        let drain = Duration.milliseconds(Int64(configuration.drainSeconds * 1_000))
        // The visitors run in a task of their own, so that the run's end does not depend on every one
        // of them noticing its cancellation: one stuck in the HTTP client's connection pool would
        // otherwise hold the run (and its report) forever.
        let visitorsDone = StopSignal()
        let visitors = Task {
            await withDiscardingTaskGroup { group in
                for (index, role) in roles.enumerated() {
                    let due = start + rampUp * (Double(index) / Double(max(1, roles.count)))
                    guard await context.visitorsStop.sleep(until: due) || due <= .now, !context.visitorsStop.isStopped else { break }
                    group.addTask {
                        switch role {
                        case .chat, .push, .files: await SimulatedVisitor(index: index, role: role, context: context).run()
                        case .cobrowse: await CoBrowsingDevice(index: index, context: context).run()
                        }
                    }
                }
            }
            visitorsDone.stop()
        }
        await withTaskGroup(of: Void.self) { outer in
            outer.addTask { await visitorsDone.wait() }
            outer.addTask {
                // The duration, then the drain: once stopped, visitors have this long to finish
                // before they are cancelled.
                _ = await context.visitorsStop.sleep(until: start + duration)
                context.visitorsStop.stop()
                try? await Task.sleep(for: drain)
            }
            // Whichever ends first: every visitor done (their counts reached), or the drain over.
            _ = await outer.next()
            if !context.visitorsStop.isStopped { completed.withLock { $0 = true } }
            context.visitorsStop.stop()
            outer.cancelAll()
        }
        visitors.cancel()
        // Cancelled visitors end at once, unless a request of theirs is stuck: the run waits a grace for
        // them, then reports without them (their task ends with the process).
        if await visitorsDone.sleep(until: .now + Self.cancellationGrace) {
            let left = context.metrics.snapshot(at: .now).activeVisitors
            context.metrics.fail(
                .clientStop, type: "abandoned",
                message: "\(left) visitors did not end within \(Self.cancellationGrace) of the drain's end (requests stuck in the load tool's"
                    + " HTTP connection pool: raise --connections, or lower --visitors)",
                at: .now)
        }
        context.agentsStop.stop()
    }

    /// Shuts the HTTP client down, waiting at most ``cancellationGrace``: a request stuck in its pool
    /// must not keep the report from being written.
    private static func shutDown(_ http: HTTPClient) async {
        let done = StopSignal()
        let shutdown = Task {
            try? await http.shutdown()
            done.stop()
        }
        if await done.sleep(until: .now + cancellationGrace) { shutdown.cancel() }
    }

    /// How long cancelled visitors may take to end after the drain.
    static let cancellationGrace = Duration.seconds(10)

    private func controlClient(http: HTTPClient) -> ControlClient? {
        switch configuration.control {
        case nil: return nil
        case .token(let token): return ControlClient(baseURL: configuration.url, credentials: .bearer(token), client: http, tls: tls)
        case .user(let username, let password): return ControlClient(
                baseURL: configuration.url, credentials: .basic(username: username, password: password), client: http, tls: tls
            )
        }
    }
}

extension ServerComparison {
    init(account: String, before: StateStats, after: StateStats, metrics: LoadMetrics) {
        func check(_ name: String, _ server: Int, _ load: Int, counted: String? = nil) -> Check {
            Check(name: name, server: server, load: load, agrees: server == load, counted: counted)
        }
        let counted = { (counter: LoadCounter) in metrics.value(of: counter) }
        let sent = counted(.messagesSent), replies = counted(.repliesSent)
        self.init(
            account: account, before: before, after: after,
            checks: [
                check("conversations", after.conversations - before.conversations, counted(.conversationsStarted)),
                check("messages", after.messages - before.messages, sent + replies, counted: "\(sent) visitor messages + \(replies) agent replies"),
                check("calls", after.calls - before.calls, counted(.callsStarted)),
                check("devices", after.devices - before.devices, counted(.pushRegistrations)),
                check("frames.accepted", after.frames.accepted - before.frames.accepted, counted(.framesAccepted)),
                check("frames.throttled", after.frames.throttled - before.frames.throttled, counted(.framesThrottled)),
                check("frames.duplicates", after.frames.duplicates - before.frames.duplicates, counted(.framesDuplicate)),
                check("frames.rejected", after.frames.rejected - before.frames.rejected, counted(.framesRejected)),
            ]
        )
    }

    /// Pushes the server emitted during the run.
    public var pushesEmitted: Int { after.pushesEmitted - before.pushesEmitted }

    /// What became of the pushes during the run, as a phrase (`delivered 120, failed 3`): the outcomes
    /// that moved, or `none settled`.
    public var pushOutcomes: String {
        let (a, b) = (after.pushOutcomes, before.pushOutcomes)
        let moved = [
            ("delivered", a.delivered - b.delivered), ("failed", a.failed - b.failed), ("unregistered", a.unregistered - b.unregistered),
            ("suppressed", a.suppressed - b.suppressed), ("recorded only", a.recorded - b.recorded),
        ].filter { $0.1 != 0 }
        return moved.isEmpty ? "none settled" : moved.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
}
