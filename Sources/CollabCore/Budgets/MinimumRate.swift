/// The slowest a request body may arrive: once `grace` has passed, at least `bytesPerSecond` on average
/// since it started. A body that falls behind gives up its place (an upload slot) to others, so a client
/// trickling a byte now and then cannot hold one for ever, whatever the idle timeout.
///
/// The allowance grows with every byte received, like Apache's `mod_reqtimeout` `MinRate`: a body that
/// has brought `n` bytes may take `grace + n / bytesPerSecond` from its start.
public struct MinimumRate: Sendable, Equatable {
    /// Bytes per second a body must average; 0 turns the check off.
    public var bytesPerSecond: Int
    /// The time a body has before it must keep pace.
    public var grace: Duration

    /// - Parameters:
    ///   - bytesPerSecond: Default 1024; 0: no minimum.
    ///   - grace: Default 10 seconds.
    public init(bytesPerSecond: Int = 1024, grace: Duration = .seconds(10)) {
        self.bytesPerSecond = bytesPerSecond
        self.grace = grace
    }

    /// Whether the check is on.
    public var isEnforced: Bool { bytesPerSecond > 0 }

    /// Whether a body that started at `start` and has brought `received` bytes is behind the rate at `now`.
    public func isBehind<I: InstantProtocol>(startedAt start: I, now: I, received: Int64) -> Bool where I.Duration == Duration {
        isEnforced && now >= start.advanced(by: allowance(afterReceiving: received))
    }

    /// How long after its start a body that has brought `received` bytes may go on.
    public func allowance(afterReceiving received: Int64) -> Duration {
        guard isEnforced else { return .seconds(Int64.max) }
        return grace + .seconds(Double(received) / Double(bytesPerSecond))
    }
}
