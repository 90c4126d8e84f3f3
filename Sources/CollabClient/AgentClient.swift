public import AsyncHTTPClient
public import CollabWire
import Foundation
import Synchronization

/// An agent against MockCollab: log in, set presence, work the queue, chat, end conversations — at a
/// desk (``login(username:password:)``), or as an agent's app like the SDK's agent client
/// (``init(configuration:client:)``, then ``start(liveEvents:)``): an API key and an access token (or the
/// account's token cookie, or ``start(username:password:liveEvents:)``), push registration through
/// ``NotificationAPI``, app states, typed ``clientEvents``.
public final class AgentClient: AppClient {
    /// The server's root URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: String
    /// The HTTP transport (the login token, the app's token, or the credentials given).
    public let transport: HTTPTransport
    /// How an agent's app connects; `nil` for a desk client.
    public let configuration: ClientConfiguration?
    private let login = Mutex<AgentLoginResponse?>(nil)
    /// An agent's app: its start's answer, its live stream, its typed events.
    private let app = AppSession()

    /// Creates a desk client; call ``login(username:password:)`` first.
    public init(baseURL: String, client: HTTPClient = .collab, tls: TLSOptions? = nil) {
        self.baseURL = baseURL
        self.configuration = nil
        self.transport = HTTPTransport(baseURL: baseURL, client: client, tls: tls)
    }

    /// Creates an agent's app (the SDK's `Unblu.createAgentClient`); nothing is sent before
    /// ``start(liveEvents:)``. The configuration's custom cookies go with every request.
    public init(configuration: ClientConfiguration, client: HTTPClient = .collab) {
        self.baseURL = configuration.baseURL
        self.configuration = configuration
        self.transport = HTTPTransport(baseURL: configuration.baseURL, client: client, tls: configuration.tls)
        transport.setCustomCookies(configuration.customCookies)
    }

    /// The logged-in agent.
    public var session: AgentLoginResponse? { login.withLock { $0 } }

    /// What the server answered when the agent's app started: the agent's person, the configuration.
    public var appSession: ClientStartResponse? { app.start }

    /// `/agent/v1`: the agent API.
    public var apiPrefix: String { "/agent/v1" }

    /// Whether the agent's app is started.
    public var isStarted: Bool { appSession != nil }

    /// Reports an event on ``clientEvents``.
    public func report(_ event: ClientEvent) {
        app.events.emit(event)
    }

    /// The agent's app's events, typed as the SDK's agent delegate reports them (UI requests, errors —
    /// an expired or revoked access token included — and every other live event). One consumer.
    public var clientEvents: AsyncStream<ClientEvent> {
        app.events.enableForwarding(from: app.live)
        return app.events.stream
    }

    /// Starts the agent's app with the configuration's API key and access token (or, without one, the
    /// account's token cookie among its custom cookies): the SDK's agent client `start`.
    /// - Parameter liveEvents: Whether to open the live event stream (``clientEvents``).
    /// - Throws: ``CollabClientError``: `.authorization` for a token that names no agent, an invalid
    ///   API key, or a server that does not pair with the app's SDK (`type` names it).
    @discardableResult
    public func start(liveEvents: Bool = true) async throws(CollabClientError) -> ClientStartResponse {
        try await startApp(username: nil, password: nil, liveEvents: liveEvents)
    }

    /// Starts the agent's app with the agent's username and password (the vendor's login).
    @discardableResult
    public func start(username: String, password: String, liveEvents: Bool = true) async throws(CollabClientError) -> ClientStartResponse {
        try await startApp(username: username, password: password, liveEvents: liveEvents)
    }

    private func startApp(username: String?, password: String?, liveEvents: Bool) async throws(CollabClientError) -> ClientStartResponse {
        guard let configuration else {
            throw CollabClientError(code: .badRequest, status: nil, message: "an agent's app is created with init(configuration:)")
        }
        let request = AgentClientStartRequest(
            apiKey: configuration.apiKey, accessToken: configuration.accessToken, username: username, password: password,
            deviceId: configuration.deviceId,
            device: configuration.device, namedArea: configuration.namedArea
        )
        let response = try await app.request(transport, path: "/agent/v1/clients", body: request)
        try await app.begin(response, transport: transport, livePath: liveEvents ? "/agent/v1/events" : nil, tls: configuration.tls)
        return response
    }

    /// Stops the agent's app: the server forgets its client (its device keeps its push registration)
    /// and the live stream closes. A client whose access token expired or was revoked is already stopped.
    public func stop() async throws(CollabClientError) {
        try await app.end(transport, path: "/agent/v1/clients/current")
    }

    /// Logs in; the token is used for every further call.
    @discardableResult
    public func login(username: String, password: String) async throws(CollabClientError) -> AgentLoginResponse {
        let response: AgentLoginResponse = try await transport.send(
            "POST", "/agent/v1/login", body: AgentLoginRequest(username: username, password: password))
        transport.setCredentials(.bearer(response.token))
        login.withLock { $0 = response }
        return response
    }

    /// Logs out.
    public func logout() async throws(CollabClientError) {
        try await transport.sendWithoutResult("POST", "/agent/v1/logout")
        login.withLock { $0 = nil }
    }

    /// Sets presence (`ONLINE`, `AWAY`, `OFFLINE`).
    public func setPresence(_ presence: String) async throws(CollabClientError) {
        let _: PresenceRequest = try await transport.send("PUT", "/agent/v1/presence", body: PresenceRequest(presence: presence))
    }

    /// The agent's presence as the server holds it now: `ONLINE`, `AWAY` or `OFFLINE` (until one is set).
    public func presence() async throws(CollabClientError) -> String {
        let answer: PresenceRequest = try await transport.send("GET", "/agent/v1/presence")
        return answer.presence
    }

    /// The queue, filtered by named areas (ids or site ids; empty: all), first queued first.
    public func queue(namedAreas: [String] = []) async throws(CollabClientError) -> [QueueView.Entry] {
        let view: QueueView = try await transport.send(
            "GET", "/agent/v1/queue", query: namedAreas.isEmpty ? [] : [("namedAreas", namedAreas.joined(separator: ","))])
        return view.entries
    }

    /// The agent's conversations, optionally in one state: the first 1,000, newest first (for `ENDED` the
    /// last ended first). ``conversationPage(state:limit:before:)`` reads on.
    public func conversations(state: String? = nil) async throws(CollabClientError) -> [ConversationView] {
        try await conversationPage(state: state).conversations
    }

    /// A page of the agent's conversations: `limit` of them (1 to 1,000) after `before`, the last id of
    /// the page before; `hasMore` says whether to read on.
    public func conversationPage(state: String? = nil, limit: Int? = nil, before: String? = nil) async throws(CollabClientError) -> ConversationList {
        var query: [(String, String)] = []
        if let state { query.append(("state", state)) }
        if let limit { query.append(("limit", String(limit))) }
        if let before { query.append(("before", before)) }
        return try await transport.send("GET", "/agent/v1/conversations", query: query)
    }

    /// One conversation.
    public func conversation(_ id: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("GET", "/agent/v1/conversations/\(id)")
    }

    /// Accepts a queued conversation. Losing a race to another agent is a `.conflict`.
    @discardableResult
    public func accept(_ id: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/agent/v1/conversations/\(id)/accept")
    }

    /// Declines a queued conversation.
    @discardableResult
    public func decline(_ id: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/agent/v1/conversations/\(id)/decline")
    }

    /// Puts a conversation back into the queue.
    @discardableResult
    public func requeue(_ id: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/agent/v1/conversations/\(id)/requeue")
    }

    /// Ends a conversation.
    @discardableResult
    public func end(_ id: String, reason: String? = nil, comment: String? = nil) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/agent/v1/conversations/\(id)/end", body: EndConversationRequest(reason: reason, comment: comment))
    }

    /// Sends a message (internal ones only agents see).
    @discardableResult
    public func send(
        _ text: String, in conversationId: String, internal: Bool = false, clientMessageId: String? = nil
    ) async throws(CollabClientError) -> MessageView {
        try await transport.send(
            "POST", "/agent/v1/conversations/\(conversationId)/messages",
            body: SendMessageRequest(text: text, clientMessageId: clientMessageId, internal: `internal`)
        )
    }

    /// Messages after `sequence`, oldest first.
    public func messages(in conversationId: String, after sequence: Int = 0, limit: Int = 100) async throws(CollabClientError) -> MessagePage {
        try await transport.send(
            "GET", "/agent/v1/conversations/\(conversationId)/messages", query: [("after", String(sequence)), ("limit", String(limit))])
    }

    /// Opens the agent's live event stream, its queue events filtered by named areas.
    public func connectEvents(namedAreas: [String] = [], lastEventId: Int64? = nil) async throws(CollabClientError) -> LiveEventStream {
        guard let token = appSession?.token ?? session?.token else {
            throw CollabClientError(code: .authorization, status: nil, message: "log in (or start the agent's app) first")
        }
        try InProcessExchanges.requireSocket(baseURL, for: "the live event stream")
        var query = [("token", token)]
        if !namedAreas.isEmpty { query.append(("namedAreas", namedAreas.joined(separator: ","))) }
        let stream = LiveEventStream(url: webSocketURL(baseURL, path: "/agent/v1/events", query: query), lastEventId: lastEventId, tls: transport.tls)
        await stream.waitUntilConnected()
        if Task.isCancelled, !stream.isConnected {
            stream.close()
            let last = stream.lastFailure.map { "; the last attempt: \($0)" } ?? ""
            throw CollabClientError(code: .transport, status: nil, message: "cancelled before the live event stream connected\(last)")
        }
        return stream
    }
}
