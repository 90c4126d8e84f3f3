import CollabCore
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
    /// File-upload interceptors' pending decisions.
    let interception: FileInterception
    /// External message interceptors' calls.
    let messageInterception: MessageInterception
    /// What runs beside the HTTP server, in start order (a graceful shutdown stops them in reverse).
    let services: [any Service]
    let logger: Logger
    /// The bound port, once listening.
    private let listening = ListeningPort()
    private let plainListening = Mutex<Int?>(nil)

    /// The clock the server runs on (the control API's virtual clock moves it).
    public var clock: AdjustableClock { environment.clock }

    /// Opens storage, builds the parts in dependency order (the parts the state's committed stream feeds,
    /// then the state, then what works on the state), loads state and applies the seed.
    /// - Parameters:
    ///   - configuration: What to serve and where to keep state.
    ///   - clock: The clock; a fresh system-following clock by default.
    ///   - logger: Where logs go.
    public init(configuration: ServerConfiguration, clock: AdjustableClock = AdjustableClock(), logger: Logger) async throws {
        _ = MetricsBootstrap.registry
        let storage = try await ServerStorage.open(configuration, logger: logger)
        let parts = ServerParts(configuration: configuration, storage: storage, clock: clock, logger: logger)
        // Event ids start from the start time so they keep increasing across restarts (a replica's come from the log).
        let repository = try await storage.repository(configuration, sink: parts.fanOut, firstEventId: clock.now() * 1000)
        // The clock as the control API last set it: time moved or frozen before a restart stays so.
        if let stored = repository.storedClock { clock.apply(stored) }
        let clockTasks = ClockDrivenTasks(repository: repository, configuration: configuration, clock: clock, events: parts.events, logger: logger)
        let environment = CollabEnvironment(
            configuration: configuration, repository: repository, parts: parts, clockTasks: clockTasks, clock: clock, logger: logger
        )
        let followUps = FollowUpWrites(repository: repository, clock: clock, pushes: parts.pushes, bots: parts.bots, logger: logger)
        let interceptorCall = InterceptorCall(client: parts.clients.interceptors, allowedHosts: configuration.webhookAllowedHosts, logger: logger)
        let interception = FileInterception(call: interceptorCall, clock: configuration.uploadClock)
        self.environment = environment
        self.webhooks = parts.webhooks
        self.pushes = parts.pushes
        self.interception = interception
        self.messageInterception = MessageInterception(call: interceptorCall, clock: configuration.uploadClock)
        self.logger = logger
        let relay: [any Service] = parts.relay.map { [$0] } ?? []
        self.services =
            [parts.clients, followUps, parts.webhooks, parts.pushes, parts.bots, parts.fanOut, clockTasks, environment.clientActivity, interception]
            + relay
        do {
            // A snapshot to start from comes before the seed (which then only adds to it).
            if let restore = configuration.restoreSnapshot { _ = try await environment.importSnapshot(from: restore) }
            let seeded = try await environment.applyStartupSeed(explicit: configuration.seed != nil)
            self.createdDefaultTenant = seeded && configuration.seed == nil
            try await environment.sweepFiles()
        } catch {
            try? await repository.close()
            throw error
        }
    }

    /// Whether the default tenant is what the server started with.
    public var usesDefaultTenant: Bool { environment.configuration.seed == nil }

    /// Whether this start made the default tenant (no seed, and an empty store: not a stored or
    /// restored state, whose users keep their own passwords).
    public let createdDefaultTenant: Bool

    /// Waits until the server listens and returns the bound port.
    public func waitUntilListening() async -> Int {
        await listening.wait()
    }

    /// `https` with TLS, `http` otherwise.
    public var scheme: String { environment.configuration.tls == nil ? "http" : "https" }

    /// The second, plain-HTTP port beside TLS, once listening (see ``TLSSettings/plainHTTPPort``).
    public var plainHTTPPort: Int? { plainListening.withLock { $0 } }

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
        buildRouter(readsClientCertificates: transport.readsClientCertificates).router
    }

    /// What answers a request: the router, with the routes of fixed paths found first (``StaticRoutesFirst``).
    func buildResponder(transport: ServerTransport) -> (router: Router<CollabRequestContext>, responder: StaticRoutesFirst) {
        let built = buildRouter(readsClientCertificates: transport.readsClientCertificates)
        return (built.router, StaticRoutesFirst(routes: built.statics.frozen, router: built.router.buildResponder()))
    }

    /// Every operation of the Web API surface, from its routes (what `mock-collab docs web-api` lists).
    public var webAPIOperations: [WebAPIOperation] { buildRouter(readsClientCertificates: false).webAPI }

    private func buildRouter(
        readsClientCertificates: Bool
    ) -> (router: Router<CollabRequestContext>, webAPI: [WebAPIOperation], statics: StaticRoutes) {
        let env = environment
        let router = Router(context: CollabRequestContext.self)
        let stack = SurfaceStack(environment: env, clientCertificates: readsClientCertificates)
        let messages = MessageReview(environment: env, interception: messageInterception, webhooks: webhooks)
        let files = FileReview(interception: interception, webhooks: webhooks, messages: messages)
        OpsRoutes(environment: env).register(on: router, stack: stack)  // /healthz, /readyz, /metrics, /openapi.json
        // /app/rest/v4, /unblu/rest/v4
        let webAPI = WebAPISurface(environment: env, webhooks: webhooks, files: files).register(on: router, stack: stack)
        MobileSurface(environment: env, messages: messages, files: files).register(on: router, stack: stack)  // /mobile/v1
        AgentSurface(environment: env, messages: messages, files: files).register(on: router, stack: stack)  // /agent/v1
        ControlSurface(environment: env, webhooks: webhooks).register(on: router, stack: stack)  // /_mock/v1
        ConsoleRoutes(assets: .load(configuration: env.configuration, logger: logger)).register(on: router)  // the console at /
        stack.answerOutsideEverySurface(on: router)
        return (router, webAPI, stack.statics)
    }

    /// The application: the router behind an HTTP/1.1 server with WebSocket upgrades, plus the services
    /// that run beside it (webhook delivery, push delivery, clock-driven work). ``run()`` serves it;
    /// tests drive it with HummingbirdTesting (`.router` in process, `.live` over a socket).
    func buildApplication() throws -> some ApplicationProtocol {
        let configuration = environment.configuration
        let transport = try ServerTransport(configuration: configuration, logger: logger)
        let (router, responder) = buildResponder(transport: transport)
        let host = configuration.host
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: 1 << 20, autoPing: .enabled(timePeriod: configuration.heartbeatInterval), closeTimeout: configuration.heartbeatInterval
        )
        // Every connection, plain or TLS, on either listener, goes through the connection guard and
        // counts under one cap.
        let connections = configuration.connections
        let limits = ConnectionLimits(
            maxConnections: connections.maxConnections, headerTimeout: connections.headerTimeout, handshakeTimeout: connections.handshakeTimeout,
            sendTimeout: connections.sendTimeout, shutdownTimeout: connections.shutdownTimeout
        )
        let server = try transport.serverBuilder(router: router, webSocket: webSocket, limits: limits, idleTimeout: connections.idleTimeout)
        var app = Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "mock-collab"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? configuration.port
                environment.publicURL.listening(on: port)
                let plainHTTPPort = await transport.plainHTTPPort()
                self.plainListening.withLock { $0 = plainHTTPPort }
                self.listening.set(port)
                if let handler = self.onListening.withLock({ $0 }) { await handler(host, port) }
            },
            logger: logger
        )
        app.addServices(services)
        if environment.repository.isClusterReplica {
            app.addServices(
                ClusterFollower(repository: environment.repository) { [self] in
                    let port = await self.waitUntilListening()
                    return self.environment.configuration.advertiseURL ?? PublicURL.listening(scheme: self.scheme, host: host, port: port)
                }
            )
        }
        if let plain = transport.plainListener(
            router: router, responder: responder, webSocket: webSocket, limits: limits, idleTimeout: connections.idleTimeout, host: host,
            logger: logger
        ) {
            app.addServices(plain)
        }
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
                try await environment.takeSnapshot(accountId: nil, secrets: .included).encoded()
                    .write(to: URL(fileURLWithPath: path), options: .atomic)
                logger.info("snapshot written", metadata: ["path": .string(path)])
            } catch {
                logger.error("cannot write the snapshot on exit", metadata: ["path": .string(path), "error": .string("\(error)")])
            }
        }
        try await environment.repository.close()
        logger.info("stopped; storage closed")
    }
}
