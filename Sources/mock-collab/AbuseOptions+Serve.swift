import ArgumentParser
import CollabCore
import CollabServer
import Foundation

/// `serve`'s bounds on what one client may try: the TLS handshake, guesses at invitation PINs, live sockets.
struct ServeAbuseOptions: ParsableArguments {

    @Option(help: "Seconds a TLS connection has to complete its handshake (MOCK_COLLAB_HANDSHAKE_TIMEOUT).")
    var handshakeTimeout: Double = EnvironmentDefaults.value("MOCK_COLLAB_HANDSHAKE_TIMEOUT", 10)

    @Option(help: "Wrong invitation tokens one client address may try in one account per window (MOCK_COLLAB_PIN_ATTEMPTS_PER_ADDRESS).")
    var pinAttemptsPerAddress: Int = EnvironmentDefaults.value("MOCK_COLLAB_PIN_ATTEMPTS_PER_ADDRESS", 10)

    @Option(help: "Wrong invitation tokens all addresses may try in one account per window (MOCK_COLLAB_PIN_ATTEMPTS_PER_ACCOUNT).")
    var pinAttemptsPerAccount: Int = EnvironmentDefaults.value("MOCK_COLLAB_PIN_ATTEMPTS_PER_ACCOUNT", 100)

    @Option(help: "Wrong tokens an account may see while a PIN is open; then it fails until renewed (MOCK_COLLAB_PIN_ATTEMPTS_PER_INVITATION).")
    var pinAttemptsPerInvitation: Int = EnvironmentDefaults.value("MOCK_COLLAB_PIN_ATTEMPTS_PER_INVITATION", 1_000)

    @Option(help: "Seconds the per-address and per-account PIN attempt counts cover (MOCK_COLLAB_PIN_ATTEMPT_WINDOW).")
    var pinAttemptWindow: Double = EnvironmentDefaults.value("MOCK_COLLAB_PIN_ATTEMPT_WINDOW", 60)

    @Option(help: "Live event sockets one client (device token, agent session) may hold open (MOCK_COLLAB_MAX_LIVE_PER_CLIENT).")
    var maxLivePerClient: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_LIVE_PER_CLIENT", 8)

    @Option(
        help: "Live event sockets one account may hold open; default a quarter of --max-connections (MOCK_COLLAB_MAX_LIVE_PER_ACCOUNT).")
    var maxLivePerAccount: Int?

    /// The flag, else the environment variable; `nil` for the default share.
    private var livePerAccount: Int? { maxLivePerAccount ?? EnvironmentDefaults.optional("MOCK_COLLAB_MAX_LIVE_PER_ACCOUNT") }

    func validate() throws {
        guard handshakeTimeout > 0, handshakeTimeout <= 86_400 else {
            throw ValidationError("--handshake-timeout must be between 0 and 86400 seconds")
        }
        for (name, value) in [
            ("pin-attempts-per-address", pinAttemptsPerAddress), ("pin-attempts-per-account", pinAttemptsPerAccount),
            ("pin-attempts-per-invitation", pinAttemptsPerInvitation), ("max-live-per-client", maxLivePerClient),
            ("max-live-per-account", livePerAccount ?? 1),
        ] {
            guard value > 0 else { throw ValidationError("--\(name) must be positive") }
        }
        guard pinAttemptWindow >= 1, pinAttemptWindow <= 86_400 else { throw ValidationError("--pin-attempt-window must be 1 to 86400 seconds") }
    }

    /// Puts the options into a server configuration.
    func apply(to configuration: inout ServerConfiguration) {
        configuration.connections.handshakeTimeout = .seconds(handshakeTimeout)
        configuration.redemptionLimits = RedemptionLimits(
            perAddress: pinAttemptsPerAddress, perAccount: pinAttemptsPerAccount, perInvitation: pinAttemptsPerInvitation,
            window: Int64(pinAttemptWindow * 1000)
        )
        // Unset, an account's share is a quarter of the server's connections, as every other budget's:
        // one tenant's visitors cannot take every socket.
        let perAccount = livePerAccount ?? max(1, configuration.connections.maxConnections / 4)
        configuration.liveSocketLimits = LiveSocketLimits(perClient: maxLivePerClient, perAccount: perAccount)
    }
}
