/// One event on a client's live WebSocket.
///
/// Every event has an increasing `id`. A client that reconnects passes the last id it saw
/// (`lastEventId`) and receives what it missed, as long as it is still in the server's replay window;
/// otherwise the first event is a `resync`, after which the client should reload its state.
public struct LiveEvent: Codable, Sendable, Equatable {
    /// Increasing event id; `0` for control messages (`hello`, `resync`).
    public var id: Int64
    /// `conversation.created`, `conversation.queued`, `conversation.active`, `conversation.ended`,
    /// `conversation.new_message`, `conversation.updated`, `ui.visibility_request`,
    /// `agent.presence_changed`, … and the control messages `hello` and `resync`.
    public var type: String
    /// Server time, ms since epoch.
    public var timestamp: Int64
    public var conversation: ConversationView?
    public var message: MessageView?
    public var detail: [String: String]?

    public init(id: Int64, type: String, timestamp: Int64, conversation: ConversationView? = nil, message: MessageView? = nil, detail: [String: String]? = nil) {
        self.id = id
        self.type = type
        self.timestamp = timestamp
        self.conversation = conversation
        self.message = message
        self.detail = detail
    }

    /// The first message on every connection: where the stream starts.
    public static let hello = "hello"
    /// Sent when events the client asked to resume from are no longer held: reload state.
    public static let resync = "resync"
}

/// WebSocket close codes the server uses.
public enum LiveCloseCode {
    /// The client read too slowly and its buffer overflowed; reconnect with `lastEventId`.
    public static let slowConsumer: UInt16 = 4008
    /// The session ended (logout, client stopped, token unknown).
    public static let sessionEnded: UInt16 = 4001
}
