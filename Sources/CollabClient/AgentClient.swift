public import AsyncHTTPClient
public import CollabWire
import Foundation
import Synchronization

/// An agent against MockCollab: log in, set presence, work the queue, chat, end conversations.
public final class AgentClient: Sendable {
    /// The server's root URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: String
    /// The HTTP transport (the login token, or the credentials given).
    public let transport: HTTPTransport
    private let login = Mutex<AgentLoginResponse?>(nil)

    /// Creates a client; call ``login(username:password:)`` first.
    public init(baseURL: String, client: HTTPClient = .shared, tls: TLSOptions? = nil) {
        self.baseURL = baseURL
        self.transport = HTTPTransport(baseURL: baseURL, client: client, tls: tls)
    }

    /// The logged-in agent.
    public var session: AgentLoginResponse? { login.withLock { $0 } }

    /// Logs in; the token is used for every further call.
    @discardableResult
    public func login(username: String, password: String) async throws(CollabClientError) -> AgentLoginResponse {
        let response: AgentLoginResponse = try await transport.send("POST", "/agent/v1/login", body: AgentLoginRequest(username: username, password: password))
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

    /// The queue, filtered by named areas (ids or site ids; empty: all), first queued first.
    public func queue(namedAreas: [String] = []) async throws(CollabClientError) -> [QueueView.Entry] {
        let view: QueueView = try await transport.send("GET", "/agent/v1/queue", query: namedAreas.isEmpty ? [] : [("namedAreas", namedAreas.joined(separator: ","))])
        return view.entries
    }

    /// The agent's conversations, optionally in one state.
    public func conversations(state: String? = nil) async throws(CollabClientError) -> [ConversationView] {
        let list: ConversationList = try await transport.send("GET", "/agent/v1/conversations", query: state.map { [("state", $0)] } ?? [])
        return list.conversations
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
    public func send(_ text: String, in conversationId: String, internal: Bool = false, clientMessageId: String? = nil) async throws(CollabClientError) -> MessageView {
        try await transport.send(
            "POST", "/agent/v1/conversations/\(conversationId)/messages", body: SendMessageRequest(text: text, clientMessageId: clientMessageId, internal: `internal`)
        )
    }

    /// Messages after `sequence`, oldest first.
    public func messages(in conversationId: String, after sequence: Int = 0, limit: Int = 100) async throws(CollabClientError) -> MessagePage {
        try await transport.send("GET", "/agent/v1/conversations/\(conversationId)/messages", query: [("after", String(sequence)), ("limit", String(limit))])
    }

    /// Opens the agent's live event stream, its queue events filtered by named areas.
    public func connectEvents(namedAreas: [String] = [], lastEventId: Int64? = nil) async throws(CollabClientError) -> LiveEventStream {
        guard let token = session?.token else { throw CollabClientError(code: .authorization, status: nil, message: "log in first") }
        try InProcessExchanges.requireSocket(baseURL, for: "the live event stream")
        var query = [("token", token)]
        if !namedAreas.isEmpty { query.append(("namedAreas", namedAreas.joined(separator: ","))) }
        let stream = LiveEventStream(url: webSocketURL(baseURL, path: "/agent/v1/events", query: query), lastEventId: lastEventId, tls: transport.tls)
        await stream.waitUntilConnected()
        return stream
    }
}
