public import CollabWire
/// A timed step of the simulation. Request steps time one HTTP call; delivery steps time how long a
/// change took to reach the other side over its live WebSocket.
public enum LoadOperation: String, Sendable, Codable, CaseIterable, Comparable, NamedCases {
    case agentLogin = "agent.login"
    case clientStart = "client.start"
    case pushRegister = "push.register"
    case conversationStart = "conversation.start"
    /// From the start request's answer until the visitor sees `conversation.active`.
    case queueWait = "conversation.queue_wait"
    case conversationAccept = "conversation.accept"
    case messageSend = "message.send"
    /// A `files` visitor's upload (streamed request body) until the FILE message is stored.
    case fileUpload = "file.upload"
    /// From a visitor's send until its agent receives `conversation.new_message`.
    case messageDeliver = "message.deliver"
    case replySend = "reply.send"
    /// From an agent's send until the visitor receives `conversation.new_message`.
    case replyDeliver = "reply.deliver"
    case callStart = "call.start"
    /// From the agent's start request until the visitor sees `conversation.call.started`.
    case callRing = "call.ring"
    case callAnswer = "call.answer"
    case callDecline = "call.decline"
    case callEnd = "call.end"
    case coBrowsingStart = "cobrowse.start"
    /// From writing a frame on the WebSocket until its acknowledgement arrives.
    case frameAck = "frame.ack"
    case conversationEnd = "conversation.end"
    case clientStop = "client.stop"
    /// A live socket's connection attempt that failed (the server refused the upgrade, or no connection
    /// could be made). Errors only: the client library retries with a growing delay, so without this
    /// row a refused socket would only show as a slow `client.start`.
    case liveConnect = "live.connect"

    /// Whether it times a change reaching the other side rather than one request.
    public var isDelivery: Bool {
        switch self {
        case .queueWait, .messageDeliver, .replyDeliver, .callRing: true
        default: false
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Counted events that are not timed.
public enum LoadCounter: String, Sendable, Codable, CaseIterable, NamedCases {
    case visitorsStarted = "visitors.started"
    case agentsStarted = "agents.started"
    case conversationsStarted = "conversations.started"
    case conversationsAccepted = "conversations.accepted"
    case conversationsEnded = "conversations.ended"
    case acceptConflicts = "conversations.accept_conflicts"
    case messagesSent = "messages.sent"
    case repliesSent = "replies.sent"
    case pushRegistrations = "push.registrations"
    case callsStarted = "calls.started"
    case callsAnswered = "calls.answered"
    case callsDeclined = "calls.declined"
    case framesSent = "frames.sent"
    case framesAccepted = "frames.accepted"
    case framesThrottled = "frames.throttled"
    case framesDuplicate = "frames.duplicate"
    case framesRejected = "frames.rejected"
}
