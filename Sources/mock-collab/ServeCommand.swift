import ArgumentParser
import CollabCore
import CollabSeed
import CollabServer
import CollabStore
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `mock-collab serve`: runs the server until SIGINT or SIGTERM.
///
/// Every option can also be set through an environment variable (`MOCK_COLLAB_<NAME>`); a flag wins.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server. Prints 'listening on http://HOST:PORT' (https:// with --tls) on stdout when ready; logs go to stderr."
    )


    @Option(help: "Address to bind (MOCK_COLLAB_HOST).")
    var host: String = EnvironmentDefaults.string("MOCK_COLLAB_HOST") ?? "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one (read it from the listening line) (MOCK_COLLAB_PORT).")
    var port: Int = EnvironmentDefaults.value("MOCK_COLLAB_PORT", 8080)

    @Option(help: "'sqlite:PATH', 'memory' or 'postgres://USER:PASS@HOST:PORT/DB' (add ?sslmode=require for TLS) (MOCK_COLLAB_STORAGE).")
    var storage: String = EnvironmentDefaults.string("MOCK_COLLAB_STORAGE") ?? "sqlite:./.mock-collab/state.sqlite"

    @Flag(help: "Serve as one of several replicas sharing one postgres:// database; they act as one server (MOCK_COLLAB_CLUSTER=1).")
    var cluster = false

    @Option(
        help: """
            URL the other replicas of a cluster reach this one at; \
            default: scheme://host:port, the machine's name when bound to 0.0.0.0 (MOCK_COLLAB_ADVERTISE_URL).
            """
    )
    var advertiseURL: String?

    @Option(
        help: """
            URL clients reach this server at, for the absolute links it hands out (download links, an interceptor's downloadLink), \
            never taken from a request's Host; default: scheme://host:port as it listens (MOCK_COLLAB_PUBLIC_URL).
            """
    )
    var publicURL: String?

    @Option(help: "Seconds a write may wait for a PostgreSQL database before it is answered 503 (MOCK_COLLAB_DATABASE_TIMEOUT).")
    var databaseTimeout: Int = EnvironmentDefaults.value("MOCK_COLLAB_DATABASE_TIMEOUT", 15)

    @Option(help: "Seed file, YAML or JSON, applied idempotently at start (MOCK_COLLAB_SEED).")
    var seed: String?

    @Option(help: "The seed itself, YAML or JSON, instead of a file: for a container that cannot mount one (MOCK_COLLAB_SEED_TEXT).")
    var seedText: String?

    @Option(help: "Snapshot file to import at start, before the seed; a newer snapshot version stops the start (MOCK_COLLAB_RESTORE).")
    var restore: String?

    @Option(help: "Where to write a snapshot of the whole state on a graceful shutdown (MOCK_COLLAB_SNAPSHOT_ON_EXIT).")
    var snapshotOnExit: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (MOCK_COLLAB_LOG_LEVEL).")
    var logLevel: String = EnvironmentDefaults.string("MOCK_COLLAB_LOG_LEVEL") ?? "info"

    @Option(help: "Bearer token granting the control API without a user (MOCK_COLLAB_CONTROL_TOKEN).")
    var controlToken: String?

    @Option(help: "Largest request body in bytes; a larger one is answered 413 (MOCK_COLLAB_MAX_BODY_SIZE).")
    var maxBodySize: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_BODY_SIZE", 1024 * 1024)

    @Option(help: "Largest co-browsing frame image in bytes, 1 KiB to 16 MiB; a larger one is rejected (MOCK_COLLAB_MAX_FRAME_BYTES).")
    var maxFrameBytes: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_FRAME_BYTES", 256 * 1024)

    @Option(
        help: """
            Bytes one account's live co-browsing sessions may hold in latest frames, 1 MiB to 64 GiB (each frame counts twice: \
            image and viewers' copy); a frame beyond it is refused with 429 (MOCK_COLLAB_MAX_FRAME_MEMORY_PER_ACCOUNT).
            """)
    var maxFrameMemoryPerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_FRAME_MEMORY_PER_ACCOUNT", 256 * 1024 * 1024)

    @Option(
        help: "Persons one account may hold (visitors, agents, bots); a new one beyond it is refused with 409 (MOCK_COLLAB_MAX_PERSONS_PER_ACCOUNT).")
    var maxPersonsPerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_PERSONS_PER_ACCOUNT", StoredRecordLimits().personsPerAccount)

    @Option(
        help: """
            Conversations one account may hold, ended ones included; a new one beyond it is refused with 409 \
            (MOCK_COLLAB_MAX_CONVERSATIONS_PER_ACCOUNT).
            """)
    var maxConversationsPerAccount: Int = EnvironmentDefaults.value(
        "MOCK_COLLAB_MAX_CONVERSATIONS_PER_ACCOUNT", StoredRecordLimits().conversationsPerAccount)

    @Option(
        help: """
            Bytes of message text one account's conversations may hold, each message counted as its text and 256; a message \
            beyond it is refused with 409 (MOCK_COLLAB_MAX_MESSAGE_BYTES_PER_ACCOUNT).
            """)
    var maxMessageBytesPerAccount: Int = EnvironmentDefaults.value(
        "MOCK_COLLAB_MAX_MESSAGE_BYTES_PER_ACCOUNT", StoredRecordLimits().messageBytesPerAccount)

    @Option(
        help: """
            Bytes of JSON one account's declared entities may hold, each counted as stored (canned responses, named areas, \
            bots, …; not the audit log), at least 1 MiB; a create or update beyond it is refused with 409, and deleting \
            entities frees their bytes (MOCK_COLLAB_MAX_ENTITY_BYTES_PER_ACCOUNT).
            """)
    var maxEntityBytesPerAccount: Int = EnvironmentDefaults.value(
        "MOCK_COLLAB_MAX_ENTITY_BYTES_PER_ACCOUNT", StoredRecordLimits().entityBytesPerAccount)

    @Option(
        help: """
            Conversations one visitor may have open (not ended) at once; a new one beyond it is refused with 409 \
            (MOCK_COLLAB_MAX_OPEN_CONVERSATIONS_PER_VISITOR).
            """)
    var maxOpenConversationsPerVisitor: Int = EnvironmentDefaults.value(
        "MOCK_COLLAB_MAX_OPEN_CONVERSATIONS_PER_VISITOR", StoredRecordLimits().openConversationsPerVisitor)

    @Option(help: "Requests the journal keeps for each account, and for the requests that name none (MOCK_COLLAB_JOURNAL_CAPACITY).")
    var journalCapacity: Int = EnvironmentDefaults.value("MOCK_COLLAB_JOURNAL_CAPACITY", 10_000)

    @Option(help: "Bytes the journal's entries may take in all; one account's, a quarter of it (MOCK_COLLAB_JOURNAL_MAX_BYTES).")
    var journalMaxBytes: Int = EnvironmentDefaults.value("MOCK_COLLAB_JOURNAL_MAX_BYTES", 16 * 1024 * 1024)

    @Option(help: "Bcrypt cost for password hashes, 4 to 31; tests use 4 (MOCK_COLLAB_PASSWORD_HASH_COST).")
    var passwordHashCost: UInt8 = EnvironmentDefaults.value("MOCK_COLLAB_PASSWORD_HASH_COST", 10)

    @Option(help: "Comma-separated hosts webhook deliveries may go to; all when absent (MOCK_COLLAB_WEBHOOK_HOSTS).")
    var webhookHosts: String?

    @Option(help: "Seconds between WebSocket pings; a peer that misses a pong is dropped (MOCK_COLLAB_HEARTBEAT_SECONDS).")
    var heartbeatSeconds: Int = EnvironmentDefaults.value("MOCK_COLLAB_HEARTBEAT_SECONDS", 15)

    @Option(help: "Seconds a started mobile client may make no request before it is stopped (MOCK_COLLAB_CLIENT_IDLE_SECONDS).")
    var clientIdleSeconds: Int = EnvironmentDefaults.value("MOCK_COLLAB_CLIENT_IDLE_SECONDS", 86_400)

    @Option(
        help: """
            Open connections at most; one more is answered 503 and closed. \
            Keep it below the open-file limit, ulimit -n (MOCK_COLLAB_MAX_CONNECTIONS).
            """
    )
    var maxConnections: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_CONNECTIONS", 10_000)

    @Option(help: "Seconds a connection may sit idle, or a request stall, before it is closed (MOCK_COLLAB_IDLE_TIMEOUT).")
    var idleTimeout: Double = EnvironmentDefaults.value("MOCK_COLLAB_IDLE_TIMEOUT", 60)

    @Option(help: "Seconds a new connection has to send its first request head, else 408 and closed (MOCK_COLLAB_HEADER_TIMEOUT).")
    var headerTimeout: Double = EnvironmentDefaults.value("MOCK_COLLAB_HEADER_TIMEOUT", 10)

    @Option(help: "Seconds a peer may stop reading before its connection is closed, WebSockets included (MOCK_COLLAB_SEND_TIMEOUT).")
    var sendTimeout: Double = EnvironmentDefaults.value("MOCK_COLLAB_SEND_TIMEOUT", 30)

    @Option(help: "Seconds a graceful shutdown waits for requests in flight (MOCK_COLLAB_SHUTDOWN_TIMEOUT).")
    var shutdownTimeout: Double = EnvironmentDefaults.value("MOCK_COLLAB_SHUTDOWN_TIMEOUT", 10)

    @Option(
        help: """
            Vendor version global/productVersion answers (e.g. 7.49.2); apps declaring a mobile SDK major it does not pair with \
            are refused with UNSUPPORTED_SERVER_VERSION (6 serves SDK 3, 7 serves SDK 3 and 4) (MOCK_COLLAB_PRODUCT_VERSION).
            """
    )
    var productVersion: String?

    @OptionGroup(title: "TLS") var tls: ServeTLSOptions

    @OptionGroup(title: "Files") var files: ServeFileOptions

    @OptionGroup(title: "Fault rules and snapshots") var limits: ServeLimitOptions

    @OptionGroup(title: "Abuse limits") var abuse: ServeAbuseOptions

    @OptionGroup(title: "Webhook deliveries and pushes per account") var outbound: ServeOutboundOptions

    func validate() throws {
        try EnvironmentDefaults.check()
        guard clientIdleSeconds > 0 else { throw ValidationError("--client-idle-seconds must be positive") }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive") }
        for (name, value) in [("idle", idleTimeout), ("header", headerTimeout), ("send", sendTimeout), ("shutdown", shutdownTimeout)] {
            guard value > 0, value <= 86_400 else { throw ValidationError("--\(name)-timeout must be between 0 and 86400 seconds") }
        }
        guard (1...3600).contains(databaseTimeout) else { throw ValidationError("--database-timeout must be 1 to 3600 seconds") }
        guard heartbeatSeconds > 0 else { throw ValidationError("--heartbeat-seconds must be positive") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level '\(logLevel)' is not a log level") }
        guard maxBodySize > 0 else { throw ValidationError("--max-body-size must be positive") }
        guard (1024...16 * 1024 * 1024).contains(maxFrameBytes) else { throw ValidationError("--max-frame-bytes must be 1024 to 16777216") }
        guard (1 << 20...1 << 36).contains(maxFrameMemoryPerAccount) else {
            throw ValidationError("--max-frame-memory-per-account must be 1048576 to 68719476736")
        }
        guard journalCapacity > 0 else { throw ValidationError("--journal-capacity must be positive") }
        guard maxPersonsPerAccount > 0 else { throw ValidationError("--max-persons-per-account must be positive") }
        guard maxConversationsPerAccount > 0 else { throw ValidationError("--max-conversations-per-account must be positive") }
        guard maxOpenConversationsPerVisitor > 0 else { throw ValidationError("--max-open-conversations-per-visitor must be positive") }
        guard maxMessageBytesPerAccount >= 64 * 1024 else { throw ValidationError("--max-message-bytes-per-account must be at least 65536") }
        guard maxEntityBytesPerAccount >= 1 << 20 else { throw ValidationError("--max-entity-bytes-per-account must be at least 1048576") }
        guard journalMaxBytes >= 64 * 1024 else { throw ValidationError("--journal-max-bytes must be at least 65536") }
        guard (4...31).contains(passwordHashCost) else { throw ValidationError("--password-hash-cost must be between 4 and 31") }
        if let version = productVersion ?? EnvironmentDefaults.string("MOCK_COLLAB_PRODUCT_VERSION"), ProductVersion(version) == nil {
            throw ValidationError("--product-version must start with a number, e.g. 7.49.2")
        }
        do {
            _ = try StorageLocation(parsing: storage)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        // Again: the option groups' computed defaults read their variables during their own checks.
        try EnvironmentDefaults.check()
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { DeferredMetadataLogHandler(label: $0, level: level) }
        var logger = Logger(label: "mock-collab")
        logger.logLevel = level

        var configuration: ServerConfiguration
        do {
            var loadedSeed: Seed?
            switch (seed ?? EnvironmentDefaults.string("MOCK_COLLAB_SEED"), seedText ?? EnvironmentDefaults.string("MOCK_COLLAB_SEED_TEXT")) {
            case (.some, .some): throw CollabError.badRequest("give the seed as a file (--seed) or as text (--seed-text), not both")
            case (.some(let path), nil): loadedSeed = try SeedLoader.load(path: path)
            case (nil, .some(let text)): loadedSeed = try SeedLoader.parse(text)
            case (nil, nil): break
            }
            configuration = ServerConfiguration(
                host: host, port: port, storage: try StorageLocation(parsing: storage), seed: loadedSeed,
                controlToken: controlToken ?? EnvironmentDefaults.string("MOCK_COLLAB_CONTROL_TOKEN"), maxBodySize: maxBodySize,
                journalCapacity: journalCapacity, passwordHashCost: passwordHashCost, logLevel: level,
                heartbeatInterval: .seconds(heartbeatSeconds),
                webhookAllowedHosts: (webhookHosts ?? EnvironmentDefaults.string("MOCK_COLLAB_WEBHOOK_HOSTS")).map {
                    Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
                },
                connections: ConnectionSettings(
                    maxConnections: maxConnections, idleTimeout: .seconds(idleTimeout), headerTimeout: .seconds(headerTimeout),
                    sendTimeout: .seconds(sendTimeout), shutdownTimeout: .seconds(shutdownTimeout)
                ),
                tls: tls.settings(storage: storage)
            )
            configuration.clientIdleTimeout = Int64(clientIdleSeconds) * 1000
            configuration.maxFrameBytes = maxFrameBytes
            configuration.maxFrameMemoryPerAccount = maxFrameMemoryPerAccount
            configuration.storedRecordLimits = StoredRecordLimits(
                personsPerAccount: maxPersonsPerAccount, conversationsPerAccount: maxConversationsPerAccount,
                messageBytesPerAccount: maxMessageBytesPerAccount, openConversationsPerVisitor: maxOpenConversationsPerVisitor,
                entityBytesPerAccount: maxEntityBytesPerAccount)
        } catch {
            throw ServeStartError(description: (error as? CollabError)?.message ?? "\(error)")
        }
        configuration.journalMaxBytes = journalMaxBytes
        configuration.databaseWriteTimeout = .seconds(databaseTimeout)
        configuration.advertiseURL = advertiseURL ?? EnvironmentDefaults.string("MOCK_COLLAB_ADVERTISE_URL")
        do {
            configuration.publicURL = try (publicURL ?? EnvironmentDefaults.string("MOCK_COLLAB_PUBLIC_URL"))
                .map(ServerConfiguration.normalizedPublicURL)
        } catch {
            throw ValidationError("--public-url: \(error.message)")
        }
        configuration.cluster = cluster || ["1", "true", "yes"].contains(EnvironmentDefaults.string("MOCK_COLLAB_CLUSTER")?.lowercased() ?? "")
        if configuration.cluster, case .postgres = configuration.storage {} else if configuration.cluster {
            throw ValidationError("--cluster needs --storage postgres://USER:PASS@HOST:PORT/DB: replicas share one PostgreSQL database")
        }
        if let path = restore ?? EnvironmentDefaults.string("MOCK_COLLAB_RESTORE") {
            guard let data = FileManager.default.contents(atPath: path) else {
                let reason = FileManager.default.fileExists(atPath: path) ? "it is not readable" : "no such file"
                throw ServeStartError(description: "cannot read the snapshot file '\(path)': \(reason)")
            }
            configuration.restoreSnapshot = data
        }
        configuration.snapshotOnExit = snapshotOnExit ?? EnvironmentDefaults.string("MOCK_COLLAB_SNAPSHOT_ON_EXIT")
        configuration.files = files.settings
        limits.apply(to: &configuration)
        configuration.productVersion = (productVersion ?? EnvironmentDefaults.string("MOCK_COLLAB_PRODUCT_VERSION")).flatMap(ProductVersion.init)
        abuse.apply(to: &configuration)
        outbound.apply(to: &configuration)

        let server = try await MockCollabServer(configuration: configuration, logger: logger)
        // Only when this start made it: a stored or restored state keeps its own users and passwords.
        if server.createdDefaultTenant {
            // Passwords are never logged, not even the well-known demo ones: the README names them.
            let message =
                "default tenant: account 'demo', API key 'demo-api-key', named area 'demo-area'; "
                + "users superadmin, admin and agent, with the demo passwords the README gives"
            logger.notice("\(message)")
        }
        let scheme = server.scheme
        server.whenListening { [server] host, port in
            if let plain = server.plainHTTPPort {
                FileHandle.standardOutput.write(Data("plain http on http://\(host):\(plain)\n".utf8))
            }
            // The one line on stdout that tools and CI wait for.
            FileHandle.standardOutput.write(Data("listening on \(scheme)://\(host):\(port)\n".utf8))
        }
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await group.run()
    }
}

/// A start that cannot go on: a file that cannot be read, a seed that does not load. Its reason is
/// printed without the usage (the options were right), and the exit code is 1.
struct ServeStartError: Error, CustomStringConvertible {
    var description: String
}
