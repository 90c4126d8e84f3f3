public import CollabWire
/// What an external messenger channel reported about sending a message on to its contacts
/// (`externalmessengers/{channelId}/messageSentSuccessfully` and `messageSendFailed`).
public struct ExternalSendState: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        case sent = "SENT"
        case sendFailed = "SEND_FAILED"
    }

    /// `ESendFailState`: whether sending again may succeed.
    public enum FailState: String, Sendable, Codable, CaseIterable, NamedCases {
        case retryable = "RETRYABLE"
        case terminal = "TERMINAL"
    }

    public var state: State
    /// When the channel reported it.
    public var timestamp: Timestamp
    /// For a failure: whether sending again may succeed (the channel may leave it out).
    public var failState: FailState?
    /// For a failure: why, as the channel tells the agent.
    public var failureText: String?

    /// Whether `other` reports the same thing (its time aside).
    func reports(sameAs other: ExternalSendState) -> Bool {
        state == other.state && failState == other.failState && failureText == other.failureText
    }
}
