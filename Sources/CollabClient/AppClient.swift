public import CollabWire

/// A started app — a visitor's (``VisitorClient``) or an agent's (``AgentClient`` after
/// ``AgentClient/start(liveEvents:)``) — as ``NotificationAPI`` and ``CallAPI`` use it: the SDK's `UnbluClient`,
/// shared by both kinds. The two differ only in where their API lives.
public protocol AppClient: AnyObject, Sendable {
    /// The transport carrying the app's token (and its custom cookies).
    var transport: HTTPTransport { get }
    /// Where the app's API lives: `/mobile/v1` for a visitor's app, `/agent/v1` for an agent's.
    var apiPrefix: String { get }
    /// Whether the app is started (it has a client token), as opposed to merely configured: a VoIP push
    /// may wake an app that has not started yet (the SDK's locked-phone flow).
    var isStarted: Bool { get }
    /// Reports an event on the app's typed ``ClientEvent`` stream, as the SDK reports to its delegate.
    func report(_ event: ClientEvent)
}

extension AppClient {
    /// Reports the app state (background, foreground with the UI closed or open): what reaches the
    /// device follows it (the SDK's notification table).
    @discardableResult
    public func setAppState(_ appState: ClientAppState) async throws(CollabClientError) -> ClientView {
        try await transport.send("PUT", "\(apiPrefix)/clients/current/app-state", body: AppStateRequest(appState: appState.rawValue))
    }
}
