import CollabCore
import CollabPush
import CollabStore
import Logging

/// Where a server keeps its state: a store of its own, or one replica's share of a cluster's database.
enum ServerStorage {
    case local(any Store)
    case cluster(PostgresStore)

    /// Opens the configured storage.
    static func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> ServerStorage {
        switch configuration.storage {
        case .memory: return .local(MemoryStore())
        case .sqlite(let path): return .local(try await SQLiteStore.open(path: path, logger: logger))
        case .postgres(let url):
            let store = try await PostgresStore.open(
                url: url, logger: logger, cluster: configuration.cluster, writeTimeout: configuration.databaseWriteTimeout
            )
            return configuration.cluster ? .cluster(store) : .local(store)
        }
    }

    /// The shared database, on a cluster replica.
    var clusterStore: PostgresStore? {
        if case .cluster(let store) = self { return store }
        return nil
    }

    /// Loads the state, whose committed stream goes to `sink`.
    func repository(_ configuration: ServerConfiguration, sink: any CommitSink, firstEventId: Int64) async throws -> StateRepository {
        let timing = StateRepository.Timing(
            keyRotationInterval: configuration.keyRotationInterval, clientIdleTimeout: configuration.clientIdleTimeout
        )
        let resolver = EffectResolver(formats: VendorEventMapping())
        switch self {
        case .local(let store):
            return try await StateRepository(store: store, timing: timing, resolver: resolver, sink: sink, firstEventId: firstEventId)
        case .cluster(let log): return try await StateRepository(replicaOf: log, timing: timing, resolver: resolver, sink: sink)
        }
    }
}

/// The parts of a server that come before its state, built in dependency order: what they need is
/// passed in, none of them holds the environment. The last, the fan-out, is where the state's committed
/// stream goes; the others are what it feeds.
struct ServerParts {
    /// Outbound HTTP, one client per purpose.
    let clients = OutboundClients()
    let faults: FaultInjection
    let events: EventHub
    let frames: FrameIngest
    let files: FileStorage
    let webhooks: WebhookDispatcher
    let pushes: PushPipeline
    let bots: BotDialogService
    let relay: FrameRelay?
    /// Basic-auth credentials verified earlier.
    let credentials = CredentialCache()
    /// The guessing limits on invitation tokens.
    let redemptions: RedemptionGuard
    /// Encoded Web API answers of accounts, kept while the account stays the same.
    let encodedBodies = EncodedBodies<Account>()
    let fanOut: CommitFanOut

    init(configuration: ServerConfiguration, storage: ServerStorage, clock: AdjustableClock, logger: Logger) {
        let journal = RequestJournal(capacity: configuration.journalCapacity, maxBytes: configuration.journalMaxBytes)
        let faults = FaultInjection(rules: FaultRules(limits: configuration.faultRuleLimits), journal: journal, clock: clock)
        let frames = FrameIngest(
            maxFrameBytes: configuration.maxFrameBytes, maxHeldBytesPerAccount: configuration.maxFrameMemoryPerAccount,
            relaying: storage.clusterStore != nil)
        let shares = configuration.outboundShares
        let webhookSettings = WebhookDispatcher.Settings(
            maxAttempts: max(1, configuration.webhookMaxAttempts), initialBackoff: configuration.webhookInitialBackoff,
            queueCapacityPerAccount: shares.webhookQueue, maxConcurrentPerAccount: shares.webhookDeliveries,
            maxConcurrentPerEndpoint: shares.webhookDeliveriesPerEndpoint, allowedHosts: configuration.webhookAllowedHosts,
            retryClock: configuration.deliveryClock
        )
        let webhooks = WebhookDispatcher(settings: webhookSettings, client: clients.webhooks, botClient: clients.bots, faults: faults, logger: logger)
        let pushes = PushPipeline(
            clock: clock, wallClock: configuration.pushWallClock, outboxCapacity: configuration.outboxCapacity,
            settings: .init(
                maxAttempts: max(1, configuration.pushMaxAttempts), initialBackoff: configuration.pushInitialBackoff,
                queueCapacityPerAccount: shares.pushQueue, maxConcurrentPerAccount: shares.pushDeliveries,
                retryClock: configuration.deliveryClock
            ),
            faults: { faults.pushFailure(for: $0) }, logger: logger
        )
        let relay = storage.clusterStore.map { FrameRelay(store: $0, frames: frames, clock: clock, logger: logger) }
        (self.faults, self.frames, self.webhooks, self.pushes, self.relay) = (faults, frames, webhooks, pushes, relay)
        events = EventHub(
            windowSize: configuration.eventReplayWindow, bufferSize: configuration.eventBufferPerConnection,
            socketLimits: configuration.liveSocketLimits
        )
        files = FileStorage(configuration: configuration)
        bots = BotDialogService(dispatcher: webhooks, logger: logger)
        redemptions = RedemptionGuard(limits: configuration.redemptionLimits, clock: clock)
        fanOut = CommitFanOut(
            events: events, frames: frames, clock: clock, pushes: pushes, webhooks: webhooks, bots: bots, relay: relay, files: files,
            accountParts: [events, frames, pushes, webhooks, faults.rules, credentials, redemptions, encodedBodies]
        )
    }
}
