public import AsyncHTTPClient
public import CollabWire
import Foundation

/// A visitor app against MockCollab, on async/await: what the SDK's visitor client does.
///
/// ```swift
/// let visitor = VisitorClient(configuration: .init(baseURL: url, apiKey: "demo-api-key", deviceId: "device-1"))
/// try await visitor.start()
/// let conversation = try await visitor.startConversation(topic: "Help")
/// for await event in visitor.events { … }
/// ```
public final class VisitorClient: AppClient {
    /// How the client connects.
    public let configuration: ClientConfiguration
    /// The HTTP transport (token, cookies).
    public let transport: HTTPTransport
    /// The start's answer, the live stream, the typed events (``clientEvents``) and the open conversation.
    private let app = AppSession()
    var clientEventHub: ClientEventHub { app.events }

    /// Creates a client; nothing is sent before ``start(liveEvents:)``.
    public init(configuration: ClientConfiguration, client: HTTPClient = .collab) {
        self.configuration = configuration
        self.transport = HTTPTransport(baseURL: configuration.baseURL, client: client, tls: configuration.tls)
        transport.setCustomCookies(configuration.customCookies)
    }

    /// What the server answered on start: the visitor, the effective configuration.
    public var session: ClientStartResponse? { app.start }

    /// `/mobile/v1`: the device API.
    public var apiPrefix: String { "/mobile/v1" }

    /// Whether ``start(liveEvents:)`` succeeded and ``stop()`` has not been called since.
    public var isStarted: Bool { session != nil }

    /// Reports an event on ``clientEvents``.
    public func report(_ event: ClientEvent) {
        clientEventHub.emit(event)
    }

    /// Live events; available after ``start(liveEvents:)``. One consumer.
    public var events: AsyncStream<LiveEvent> {
        app.live?.events ?? AsyncStream { $0.finish() }
    }

    /// The client's events, typed as the SDK's client delegate reports them: UI show and hide requests
    /// with their reason and whether the user asked, changes of the open conversation, errors with
    /// their type and fatality, and every other live event. Use either this or ``events`` (the live
    /// events untyped), not both: asking for this stream takes the live events over. One consumer.
    public var clientEvents: AsyncStream<ClientEvent> {
        clientEventHub.enableForwarding(from: app.live)
        return clientEventHub.stream
    }

    /// The conversation open in the collaboration UI (``openConversation(_:)``), if any.
    public var openConversationId: String? { clientEventHub.openConversationId }

    /// The live connection (for its last event id, or to force a reconnect).
    public var liveConnection: LiveEventStream? { app.live }

    /// Starts the client: registers the device, identifies the visitor, opens the live event stream.
    /// - Parameter liveEvents: Whether to open the live event stream (``events``); pass `false` when
    ///   the caller holds its own connection to ``liveEventsURL`` (e.g. to send co-browsing frames).
    /// - Throws: ``CollabClientError`` with `.authorization` for an invalid access token and an
    ///   invalid-API-key status for an unknown key.
    @discardableResult
    public func start(liveEvents: Bool = true) async throws(CollabClientError) -> ClientStartResponse {
        let preferences = configuration.preferences
        let secretKey = configuration.deviceSecretKey
        let storedSecret = configuration.accessToken == nil ? (try? preferences.string(forKey: secretKey)) ?? nil : nil
        let request = ClientStartRequest(
            apiKey: configuration.apiKey, accessToken: configuration.accessToken, deviceId: configuration.deviceId, device: configuration.device,
            namedArea: configuration.namedArea, deviceSecret: storedSecret
        )
        let response = try await app.request(transport, path: "/mobile/v1/clients", body: request)
        if let issued = response.deviceSecret {
            do {
                try preferences.set(issued, forKey: secretKey)
            } catch {
                throw CollabClientError(code: .transport, status: nil, message: "could not store the device secret: \(error)")
            }
        }
        try await app.begin(response, transport: transport, livePath: liveEvents ? "/mobile/v1/events" : nil, tls: configuration.tls)
        return response
    }

    /// The live WebSocket URL of the started client (events in, co-browsing frames out), with its token.
    public var liveEventsURL: String? {
        guard let token = session?.token else { return nil }
        return webSocketURL(configuration.baseURL, path: "/mobile/v1/events", query: [("token", token)])
    }

    /// Stops the client: the server forgets the device session and closes the live stream. A client
    /// whose access token expired or was revoked is already stopped at the server: stopping it succeeds.
    public func stop() async throws(CollabClientError) {
        try await app.end(transport, path: "/mobile/v1/clients/current")
    }

    /// Changes the named area for new conversations.
    @discardableResult
    public func setNamedArea(_ namedArea: String?) async throws(CollabClientError) -> ClientView {
        try await transport.send("PUT", "/mobile/v1/clients/current/named-area", body: NamedAreaRequest(namedArea: namedArea))
    }

    /// Whether an agent is online.
    public func agentAvailability() async throws(CollabClientError) -> AvailabilityView {
        try await transport.send("GET", "/mobile/v1/availability")
    }

    /// The visitor's conversations, newest first: the first 1,000 (``conversationPage(limit:before:)``
    /// reads on).
    public func conversations() async throws(CollabClientError) -> [ConversationView] {
        try await conversationPage().conversations
    }

    /// A page of the visitor's conversations: `limit` of them (1 to 1,000) after `before`, the last id of
    /// the page before; `hasMore` says whether to read on.
    public func conversationPage(limit: Int? = nil, before: String? = nil) async throws(CollabClientError) -> ConversationList {
        var query: [(String, String)] = []
        if let limit { query.append(("limit", String(limit))) }
        if let before { query.append(("before", before)) }
        return try await transport.send("GET", "/mobile/v1/conversations", query: query)
    }

    /// Starts a conversation; it enters the queue of the named area (this call's, else the client's).
    public func startConversation(
        topic: String? = nil, engagementType: String? = nil, namedArea: String? = nil
    ) async throws(CollabClientError) -> ConversationView {
        try await transport.send(
            "POST", "/mobile/v1/conversations", body: StartConversationRequest(topic: topic, engagementType: engagementType, namedArea: namedArea))
    }

    /// One conversation.
    public func conversation(_ id: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("GET", "/mobile/v1/conversations/\(id)")
    }

    /// Shows a conversation in the collaboration UI (the SDK's `openConversation`).
    @discardableResult
    public func openConversation(_ id: String) async throws(CollabClientError) -> ClientView {
        let view: ClientView = try await transport.send("POST", "/mobile/v1/conversations/\(id)/open")
        clientEventHub.setOpenConversation(id)
        return view
    }

    /// Closes the conversation in the UI.
    @discardableResult
    public func closeConversation(_ id: String) async throws(CollabClientError) -> ClientView {
        let view: ClientView = try await transport.send("POST", "/mobile/v1/conversations/\(id)/close")
        if clientEventHub.openConversationId == id { clientEventHub.setOpenConversation(nil) }
        return view
    }

    /// The user asks to leave the collaboration UI from the app's own controls: a hide request with
    /// `requestedByUser: true` on ``clientEvents``, without the server.
    public func requestHideUI() {
        clientEventHub.emit(.hideUIRequested(UIRequest(reason: .other, requestedByUser: true, conversationId: openConversationId)))
    }

    /// The user taps the collapse action of the visitor UI (shown when the server configures
    /// `com.unblu.visitor.ui.showOverviewActionBarCollapseAction`): the server answers with a hide request
    /// for this client, which arrives on ``clientEvents`` as `.hideUIRequested` (reason `.collapse`,
    /// `requestedByUser: true`).
    /// - Throws: `.conflict` when the configuration does not show the action.
    public func collapse() async throws(CollabClientError) {
        try await transport.sendWithoutResult("POST", "/mobile/v1/clients/current/collapse")
    }

    /// Ends a conversation.
    @discardableResult
    public func endConversation(_ id: String, reason: String? = nil) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/mobile/v1/conversations/\(id)/end", body: EndConversationRequest(reason: reason))
    }

    /// Sends a text message; a repeated `clientMessageId` does not duplicate it.
    @discardableResult
    public func send(_ text: String, in conversationId: String, clientMessageId: String? = nil) async throws(CollabClientError) -> MessageView {
        try await transport.send(
            "POST", "/mobile/v1/conversations/\(conversationId)/messages", body: SendMessageRequest(text: text, clientMessageId: clientMessageId))
    }

    /// Messages after `sequence`, oldest first.
    public func messages(in conversationId: String, after sequence: Int = 0, limit: Int = 100) async throws(CollabClientError) -> MessagePage {
        try await transport.send(
            "GET", "/mobile/v1/conversations/\(conversationId)/messages", query: [("after", String(sequence)), ("limit", String(limit))])
    }
}
