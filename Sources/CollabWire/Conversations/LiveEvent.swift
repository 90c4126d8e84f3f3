import Foundation

/// One event on a client's live WebSocket.
///
/// Every event has an increasing `id`. A client that reconnects passes the last id it saw
/// (`lastEventId`) and receives what it missed, as long as it is still in the server's replay window;
/// otherwise the first event is a `resync`, after which the client should reload its state.
public struct LiveEvent: Codable, Sendable, Equatable {
    /// Increasing event id; `0` for control messages (`hello`, `resync`, `sync`).
    public var id: Int64
    /// `conversation.created`, `conversation.queued`, `conversation.active`, `conversation.ended`,
    /// `conversation.new_message`, `conversation.typing`, `conversation.updated`, `ui.visibility_request`,
    /// `agent.presence_changed`, … and the control messages `hello`, `resync` and `sync`.
    public var type: String
    /// Server time, ms since epoch.
    public var timestamp: Int64
    public var conversation: ConversationView?
    public var message: MessageView?
    public var detail: [String: String]?

    public init(
        id: Int64, type: String, timestamp: Int64, conversation: ConversationView? = nil, message: MessageView? = nil, detail: [String: String]? = nil
    ) {
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
    /// The answer to a client's sync request (`{"type":"sync","id":"…"}`), with the request's id in
    /// `detail["id"]`: it comes after every event published before the request arrived.
    public static let sync = "sync"
}

/// A client's request for a `sync` event: `{"type":"sync","id":"…"}` sent as a text message on the
/// live WebSocket. The id is the client's (1 to 64 characters) and comes back in the answer.
public struct LiveSyncRequest: Codable, Sendable, Equatable {
    public var type: String
    public var id: String

    public init(id: String) {
        self.type = LiveEvent.sync
        self.id = id
    }

    /// The id of a well-formed sync request, or `nil` for any other text (which the server ignores).
    public static func id(in text: String) -> String? {
        guard text.utf8.count <= 256, let request = try? JSONDecoder().decode(LiveSyncRequest.self, from: Data(text.utf8)),
            request.type == LiveEvent.sync, (1...64).contains(request.id.count)
        else { return nil }
        return request.id
    }
}

/// WebSocket close codes the server uses.
public enum LiveCloseCode {
    /// The client read too slowly and its buffer overflowed; reconnect with `lastEventId`.
    public static let slowConsumer: UInt16 = 4008
    /// The session ended (logout, client stopped, token unknown).
    public static let sessionEnded: UInt16 = 4001
    /// The access token the client started with expired or was revoked, after a `client.error` event
    /// saying so: stop, get a new token, start again (do not reconnect with this client's token).
    public static let authorizationEnded: UInt16 = 4003
    /// The client or its account already holds as many live sockets as it may (`serve --max-live-per-client`,
    /// `--max-live-per-account`); sent when parallel upgrades pass the check before the upgrade together.
    public static let tooManySockets: UInt16 = 4029
}
