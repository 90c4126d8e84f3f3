/// How many live event sockets (`/mobile/v1/events`, `/agent/v1/events`) one client and one account
/// may hold open (`serve --max-live-per-client`, `--max-live-per-account`), so one visitor cannot take
/// the server's connection budget (`--max-connections`) and one tenant only a bounded share of it.
public struct LiveSocketLimits: Sendable, Equatable {
    /// Sockets per client: a started device's token, an agent's session.
    public var perClient: Int
    /// Sockets per account, all clients together.
    public var perAccount: Int

    /// - Parameters:
    ///   - perClient: Default 8 (an app holds one, plus the overlap of a reconnect).
    ///   - perAccount: Default 2,500: a quarter of the default `--max-connections`, the share every budget gives an account.
    public init(perClient: Int = 8, perAccount: Int = 2_500) {
        self.perClient = max(1, perClient)
        self.perAccount = max(1, perAccount)
    }
}
