public import CollabCore
public import CollabStore
public import Logging
public import Foundation

/// Everything `mock-collab serve` can be told.
public struct ServerConfiguration: Sendable {
    /// Address to bind.
    public var host: String
    /// Port to bind; `0` picks a free one.
    public var port: Int
    /// Where state is kept.
    public var storage: StorageLocation
    /// Whether this process is one replica of several serving from one PostgreSQL database (`--cluster`).
    public var cluster = false
    /// The URL the other replicas of a cluster reach this one at (cluster-wide journal and statistics);
    /// by default the scheme, host and bound port, with the machine's name when bound to every address.
    public var advertiseURL: String?
    /// The URL clients reach this server at, for absolute links (download links, an interceptor's
    /// `downloadLink`); by default the scheme, host and bound port. Never taken from a request's `Host`.
    public var publicURL: String?
    /// How long a write may wait for a PostgreSQL database before it fails with 503.
    public var databaseWriteTimeout: Duration = .seconds(15)
    /// The seed applied at start; `nil` applies the default tenant to an empty store.
    public var seed: Seed?
    /// A bearer token that grants the control API (and super-admin rights) without a user.
    public var controlToken: String?
    /// The largest request body accepted, in bytes (larger → 413).
    public var maxBodySize: Int
    /// How many requests the journal keeps for each account (and for the requests that name none).
    public var journalCapacity: Int
    /// How many bytes the journal's entries may take in all, one account's a quarter of it (each entry's
    /// path and query are cut to 2 KiB).
    public var journalMaxBytes: Int = 16 * 1024 * 1024
    /// Bcrypt cost for password hashes (4…31); tests use a low one.
    public var passwordHashCost: UInt8
    /// How long a login session lasts, in milliseconds.
    public var sessionLifetime: Int64
    /// How long a one-time authentication token stays valid, in milliseconds.
    public var authenticationTokenLifetime: Int64
    /// Log level for the server's logger.
    public var logLevel: Logger.Level
    /// How often live WebSockets are pinged; a peer that misses a pong is disconnected.
    public var heartbeatInterval: Duration
    /// Events held for clients that reconnect with `lastEventId`.
    public var eventReplayWindow: Int
    /// Events one live connection may have pending before it is closed as a slow consumer.
    public var eventBufferPerConnection: Int
    /// Attempts per webhook delivery.
    public var webhookMaxAttempts: Int
    /// Wait before the first webhook retry; doubles with every further retry.
    public var webhookInitialBackoff: Duration
    /// Hosts webhook deliveries may go to (`nil`: any). Deliveries elsewhere fail without a request.
    public var webhookAllowedHosts: Set<String>?
    /// How long a call rings before it is missed, in milliseconds.
    public var callTimeout: Int64
    /// How old a notification key gets before it is rotated, in milliseconds.
    public var keyRotationInterval: Int64
    /// How long the previous notification key stays valid after a rotation, in milliseconds.
    public var keyOverlap: Int64
    /// How many pushes the outbox keeps for each account (four times as many in all).
    public var outboxCapacity: Int
    /// How much one account may store of persons, conversations, message text and declared entities
    /// (`serve --max-persons-per-account`, `--max-conversations-per-account`, `--max-message-bytes-per-account`,
    /// `--max-entity-bytes-per-account`, `--max-open-conversations-per-visitor`).
    public var storedRecordLimits = StoredRecordLimits()
    /// Attempts per push delivery.
    public var pushMaxAttempts: Int
    /// Wait before the first push retry; doubles with every further retry.
    public var pushInitialBackoff: Duration
    /// The largest co-browsing frame image, in bytes.
    public var maxFrameBytes: Int
    /// The most one account's live co-browsing sessions may hold in latest frames, in bytes (each frame
    /// counts twice: the image and the viewers' encoded copy).
    public var maxFrameMemoryPerAccount = 256 * 1024 * 1024
    /// The web console's directory; `nil` serves the console bundled with the server.
    public var consoleDirectory: String?
    /// How long a started mobile client may make no request before it is stopped, in milliseconds.
    public var clientIdleTimeout: Int64
    /// Connection limits and timeouts (idle, header, send, shutdown); see ``ConnectionSettings``.
    public var connections: ConnectionSettings
    /// TLS (HTTPS, HTTP/2, mutual TLS); `nil` serves plain HTTP.
    public var tls: TLSSettings?
    /// A snapshot file's contents to import at start, before the seed (`serve --restore`).
    public var restoreSnapshot: Data?
    /// Where to write a snapshot of the whole state on a graceful shutdown (`serve --snapshot-on-exit`).
    public var snapshotOnExit: String?
    /// The largest snapshot `POST /_mock/v1/snapshot` accepts, in bytes.
    public var maxSnapshotBytes: Int = 64 * 1024 * 1024
    /// Files in conversations: maximum size, quota, concurrent uploads.
    public var files = FileSettings()
    /// How many fault rules each account's admins, and the operator, may hold.
    public var faultRuleLimits = FaultRuleLimits()
    /// The clock uploads are timed on: their minimum rate (and a JSON body's), how long an upload waits
    /// for a file-upload interceptor's decision, and how long a message waits for a message
    /// interceptor's answer. The system's monotonic clock; tests give one they move themselves.
    public var uploadClock: any Clock<Duration> = ContinuousClock()
    /// The clock push and webhook retries wait on: their backoff, and a push service's `Retry-After`.
    /// The system's monotonic clock; tests give one they move themselves.
    public var deliveryClock: any Clock<Duration> = ContinuousClock()
    /// The vendor version `global/productVersion` answers, whose major decides which mobile SDK majors
    /// may start clients; `nil` answers MockCollab's own name and checks no SDK version.
    public var productVersion: ProductVersion?
    /// How many wrong invitation tokens (PINs, links) visitors may try (`serve --pin-attempts…`).
    public var redemptionLimits = RedemptionLimits()
    /// Live event sockets one client and one account may hold open (`serve --max-live-…`).
    public var liveSocketLimits = LiveSocketLimits()
    /// Real time, for the push services' credentials and expiries (checked against their own clocks,
    /// so the virtual clock never moves them). Tests age the cached credentials with their own clock.
    public var pushWallClock: any CollabClock = SystemClock()
    /// Each account's share of webhook deliveries and pushes (`serve --webhook-…-per-account`, `--push-…-per-account`).
    public var outboundShares = OutboundShares()

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        storage: StorageLocation = .sqlite(path: "./.mock-collab/state.sqlite"),
        seed: Seed? = nil,
        controlToken: String? = nil,
        maxBodySize: Int = 1024 * 1024,
        journalCapacity: Int = 10_000,
        passwordHashCost: UInt8 = 10,
        sessionLifetime: Int64 = 12 * 3600 * 1000,
        authenticationTokenLifetime: Int64 = 5 * 60 * 1000,
        logLevel: Logger.Level = .info,
        heartbeatInterval: Duration = .seconds(15),
        eventReplayWindow: Int = 10_000,
        eventBufferPerConnection: Int = 1_000,
        webhookMaxAttempts: Int = 5,
        webhookInitialBackoff: Duration = .seconds(1),
        webhookAllowedHosts: Set<String>? = nil,
        callTimeout: Int64 = 30_000,
        keyRotationInterval: Int64 = 30 * 24 * 3600 * 1000,
        keyOverlap: Int64 = 24 * 3600 * 1000,
        outboxCapacity: Int = 10_000,
        pushMaxAttempts: Int = 5,
        pushInitialBackoff: Duration = .milliseconds(500),
        maxFrameBytes: Int = 256 * 1024,
        consoleDirectory: String? = nil,
        clientIdleTimeout: Int64 = 24 * 3600 * 1000,
        connections: ConnectionSettings = ConnectionSettings(),
        tls: TLSSettings? = nil
    ) {
        self.host = host
        self.port = port
        self.storage = storage
        self.seed = seed
        self.controlToken = controlToken
        self.maxBodySize = maxBodySize
        self.journalCapacity = journalCapacity
        self.passwordHashCost = passwordHashCost
        self.sessionLifetime = sessionLifetime
        self.authenticationTokenLifetime = authenticationTokenLifetime
        self.logLevel = logLevel
        self.heartbeatInterval = heartbeatInterval
        self.eventReplayWindow = eventReplayWindow
        self.eventBufferPerConnection = eventBufferPerConnection
        self.webhookMaxAttempts = webhookMaxAttempts
        self.webhookInitialBackoff = webhookInitialBackoff
        self.webhookAllowedHosts = webhookAllowedHosts
        self.callTimeout = callTimeout
        self.keyRotationInterval = keyRotationInterval
        self.keyOverlap = keyOverlap
        self.outboxCapacity = outboxCapacity
        self.pushMaxAttempts = pushMaxAttempts
        self.pushInitialBackoff = pushInitialBackoff
        self.maxFrameBytes = maxFrameBytes
        self.consoleDirectory = consoleDirectory
        self.clientIdleTimeout = clientIdleTimeout
        self.connections = connections
        self.tls = tls
    }
}
