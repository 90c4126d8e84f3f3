public import CollabCore
import CollabStore
import Foundation
import CollabPush
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
public import Logging
import Metrics
import NIOCore
public import ServiceLifecycle
import Synchronization

/// The MockCollab server: storage, state, and the HTTP surfaces, runnable as a `Service`.
///
/// Create it (which opens storage and applies the seed), then run it inside a `ServiceGroup`; a
/// graceful shutdown stops accepting connections, lets in-flight requests finish, waits for pending
/// writes and closes the store.
public final class MockCollabServer: Service {
    let environment: CollabEnvironment
    let webhooks: WebhookDispatcher
    let pushes: PushPipeline
    let clockTasks: ClockDrivenTasks
    /// Co-browsing frames between cluster replicas (`nil` outside a cluster).
    let frameRelay: FrameRelay?
    /// File-upload interceptors' pending decisions.
    let interception: FileInterception
    /// External message interceptors' calls.
    let messageInterception: MessageInterception
    let logger: Logger
    private let listening = Mutex<ListeningState>(.init())

    private struct ListeningState {
        var port: Int?
        var plainHTTPPort: Int?
        var waiters: [CheckedContinuation<Int, Never>] = []
    }

    /// The clock the server runs on (the control API's virtual clock moves it).
    public var clock: AdjustableClock { environment.clock }

    /// Opens storage, loads state and applies the seed.
    /// - Parameters:
    ///   - configuration: What to serve and where to keep state.
    ///   - clock: The clock; a fresh system-following clock by default.
    ///   - logger: Where logs go.
    public init(configuration: ServerConfiguration, clock: AdjustableClock = AdjustableClock(), logger: Logger) async throws {
        _ = MetricsBootstrap.registry
        let store: any Store
        switch configuration.storage {
        case .memory: store = MemoryStore()
        case .sqlite(let path): store = try await SQLiteStore.open(path: path, logger: logger)
        case .postgres(let url): store = try await PostgresStore.open(
                url: url, logger: logger, cluster: configuration.cluster, writeTimeout: configuration.databaseWriteTimeout
            )
        }
        // Event ids start from the start time so they keep increasing across restarts.
        let events = EventHub(
            firstId: clock.now() * 1000, windowSize: configuration.eventReplayWindow, bufferSize: configuration.eventBufferPerConnection
        )
        let pushBox = PipelineBox()
        let timing = StateRepository.Timing(keyRotationInterval: configuration.keyRotationInterval, clientIdleTimeout: configuration.clientIdleTimeout)
        let repository = try await StateRepository(store: store, timing: timing, publish: { published, pushes in
            events.publish(published)
            if !pushes.isEmpty { pushBox.pipeline?.enqueue(pushes) }
        })
        if let sequence = repository.clusterStartSequence {
            // A replica's event ids are the log's (cluster-wide); it has none before where it started.
            events.restartIds(at: (sequence + 1) << EventHub.clusterEventBits)
        }
        self.environment = CollabEnvironment(
            configuration: configuration, repository: repository, events: events, clock: clock,
            startupSeed: configuration.seed ?? .defaultTenant, logger: logger
        )
        self.logger = logger
        let dispatcher = WebhookDispatcher(
            environment: environment,
            settings: .init(
                maxAttempts: max(1, configuration.webhookMaxAttempts), initialBackoff: configuration.webhookInitialBackoff,
                allowedHosts: configuration.webhookAllowedHosts
            ),
            logger: logger
        )
        self.webhooks = dispatcher
        self.interception = FileInterception(allowedHosts: configuration.webhookAllowedHosts, logger: logger)
        self.messageInterception = MessageInterception(allowedHosts: configuration.webhookAllowedHosts, logger: logger)
        events.observe { batch in for event in batch { dispatcher.enqueue(event) } }
        let bots = BotDialogService(environment: environment, dispatcher: dispatcher, logger: logger)
        events.observe { batch in for event in batch { bots.observe(event.event) } }
        events.observeOnEveryReplica { [frames = environment.frames] batch in for event in batch { frames.observe(event.event) } }
        events.observe { [files = environment.files] batch in files.observe(batch.map(\.event)) }
        let pipeline = PushPipeline(
            state: PushStateAdapter(environment: environment), clock: clock, outboxCapacity: configuration.outboxCapacity,
            settings: .init(maxAttempts: max(1, configuration.pushMaxAttempts), initialBackoff: configuration.pushInitialBackoff), logger: logger
        )
        pipeline.observe { dispatcher.enqueuePush($0) }
        pipeline.injectFaults { [environment] entry in environment.injectedPushFailure(for: entry) }
        pushBox.set(pipeline)
        self.pushes = pipeline
        self.clockTasks = ClockDrivenTasks(environment: environment, logger: logger)
        environment.attach(pushes: pipeline, clockTasks: clockTasks)
        if configuration.cluster, let postgres = store as? PostgresStore {
            let relay = FrameRelay(store: postgres, frames: environment.frames, clock: clock, logger: logger)
            environment.frameRelay = relay
            events.observe { batch in
                for event in batch where event.event.kind == .coBrowsingEnded {
                    if let id = event.event.detail["coBrowsingSessionId"] { Task { await relay.remove(id) } }
                }
            }
            self.frameRelay = relay
        } else {
            self.frameRelay = nil
        }
        repository.attachCluster(
            ClusterHooks(
                entryApplied: { sequence, published in events.publishLogged(EventHub.logged(published, sequence: sequence)) },
                committed: { sequence, published, pushes in
                    events.notifyObservers(EventHub.logged(published, sequence: sequence))
                    if !pushes.isEmpty { pushBox.pipeline?.enqueue(pushes) }
                },
                clockChanged: { [clock, clockTasks] setting in
                    clock.apply(setting)
                    Task { await clockTasks.runNow() }
                },
                connectionsEnded: { effects in
                    for key in effects.endedSessionKeys { events.disconnect(sessionKey: key) }
                    for id in effects.endedUserIds { events.disconnect(userId: id) }
                    for id in effects.removedAccountIds { events.disconnect(accountId: id) }
                }
            )
        )
        do {
            // A snapshot to start from comes before the seed (which then only adds to it).
            if let restore = configuration.restoreSnapshot { _ = try await environment.importSnapshot(from: restore) }
            try await environment.applyStartupSeed(explicit: configuration.seed != nil)
            try await environment.sweepFiles()
        } catch {
            try? await repository.close()
            throw error
        }
    }

    /// Whether the default tenant is what the server started with.
    public var usesDefaultTenant: Bool { environment.configuration.seed == nil }

    /// Waits until the server listens and returns the bound port.
    public func waitUntilListening() async -> Int {
        await withCheckedContinuation { continuation in
            let port: Int? = listening.withLock { state in
                if let port = state.port { return port }
                state.waiters.append(continuation)
                return nil
            }
            if let port { continuation.resume(returning: port) }
        }
    }

    /// `https` with TLS, `http` otherwise.
    public var scheme: String { environment.configuration.tls == nil ? "http" : "https" }

    /// The second, plain-HTTP port beside TLS, once listening (see ``TLSSettings/plainHTTPPort``).
    public var plainHTTPPort: Int? { listening.withLock { $0.plainHTTPPort } }

    /// Called once the server listens, with the bound host and port.
    public typealias ListeningHandler = @Sendable (_ host: String, _ port: Int) async -> Void

    private let onListening = Mutex<ListeningHandler?>(nil)

    /// Sets a handler called once the server listens (before ``run()``).
    public func whenListening(_ handler: @escaping ListeningHandler) {
        onListening.withLock { $0 = handler }
    }

    /// The router: every surface, each a router group with its own middleware stack (``SurfaceStack``),
    /// then the console's files, then the 404 for what no surface serves. What the server answers,
    /// without a socket.
    func buildRouter(transport: ServerTransport) -> Router<CollabRequestContext> {
        let env = environment
        let router = Router(context: CollabRequestContext.self)
        let stack = SurfaceStack(environment: env, clientCertificates: transport.readsClientCertificates)
        let messages = MessageReview(environment: env, interception: messageInterception, webhooks: webhooks)
        let files = FileReview(interception: interception, webhooks: webhooks, messages: messages)
        OpsRoutes(environment: env).register(on: router, stack: stack)  // /healthz, /readyz, /metrics, /openapi.json
        WebAPISurface(environment: env, webhooks: webhooks, files: files).register(on: router, stack: stack)  // /app/rest/v4, /unblu/rest/v4
        MobileSurface(environment: env, messages: messages, files: files).register(on: router, stack: stack)  // /mobile/v1
        AgentSurface(environment: env, messages: messages, files: files).register(on: router, stack: stack)  // /agent/v1
        ControlSurface(environment: env, webhooks: webhooks).register(on: router, stack: stack)  // /_mock/v1
        ConsoleRoutes(assets: .load(configuration: env.configuration, logger: logger)).register(on: router)  // the console at /
        stack.answerOutsideEverySurface(on: router)
        return router
    }

    /// The application: the router behind an HTTP/1.1 server with WebSocket upgrades, plus the services
    /// that run beside it (webhook delivery, push delivery, clock-driven work). ``run()`` serves it;
    /// tests drive it with HummingbirdTesting (`.router` in process, `.live` over a socket).
    func buildApplication() throws -> some ApplicationProtocol {
        let configuration = environment.configuration
        let transport = try ServerTransport(configuration: configuration, logger: logger)
        let router = buildRouter(transport: transport)
        let host = configuration.host
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: 1 << 20, autoPing: .enabled(timePeriod: configuration.heartbeatInterval), closeTimeout: configuration.heartbeatInterval
        )
        // Plain HTTP goes through the connection guard (cap, header and send timeouts, bounded shutdown);
        // TLS through the ALPN channel (HTTP/2 and HTTP/1.1 with WebSockets on one port), which has the
        // HTTP/1 and HTTP/2 idle timeouts but not yet the guard.
        let server: HTTPServerBuilder
        if transport.tlsConfiguration == nil {
            server = .guardedHTTP1WebSocketUpgrade(
                webSocketRouter: router,
                configuration: .init(http1: .init(idleTimeout: TimeAmount(configuration.connections.idleTimeout)), ws: webSocket),
                limits: ConnectionLimits(
                    maxConnections: configuration.connections.maxConnections, headerTimeout: configuration.connections.headerTimeout,
                    sendTimeout: configuration.connections.sendTimeout, shutdownTimeout: configuration.connections.shutdownTimeout
                )
            )
        } else {
            server = try transport.serverBuilder(router: router, webSocket: webSocket)
        }
        var app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "mock-collab"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? configuration.port
                environment.publicURL.listening(on: port)
                let plainHTTPPort = await transport.plainHTTPPort()
                let waiters = self.listening.withLock { state in
                    state.port = port
                    state.plainHTTPPort = plainHTTPPort
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume(returning: port) }
                if let handler = self.onListening.withLock({ $0 }) { await handler(host, port) }
            },
            logger: logger
        )
        app.addServices(webhooks, pushes, clockTasks, interception, messageInterception)
        if environment.repository.isClusterReplica {
            app.addServices(
                ClusterFollower(repository: environment.repository) { [self] in
                    let port = await self.waitUntilListening()
                    return self.environment.configuration.advertiseURL ?? PublicURL.listening(scheme: self.scheme, host: host, port: port)
                }
            )
        }
        if let frameRelay { app.addServices(frameRelay) }
        if let plain = transport.plainListener(router: router, webSocket: webSocket, host: host, logger: logger) { app.addServices(plain) }
        return app
    }

    public func run() async throws {
        do {
            try await runBounded(try buildApplication(), shutdownTimeout: environment.configuration.connections.shutdownTimeout)
        } catch {
            try? await environment.repository.close()
            throw error
        }
        if let path = environment.configuration.snapshotOnExit {
            do {
                try await environment.takeSnapshot(accountId: nil, secrets: .included).encoded().write(to: URL(fileURLWithPath: path), options: .atomic)
                logger.info("snapshot written", metadata: ["path": .string(path)])
            } catch {
                logger.error("cannot write the snapshot on exit", metadata: ["path": .string(path), "error": .string("\(error)")])
            }
        }
        try await environment.repository.close()
        logger.info("stopped; storage closed")
    }
}

/// Lets the repository reach the push pipeline, which is created after it.
final class PipelineBox: Sendable {
    private let box = Mutex<PushPipeline?>(nil)
    var pipeline: PushPipeline? { box.withLock { $0 } }
    func set(_ pipeline: PushPipeline) { box.withLock { $0 = pipeline } }
}
