public import CollabWire

/// What a load run does: who it simulates, for how long, and against which server.
///
/// Every field has the default `mock-collab load` uses; ``validate()`` bounds the counts and times
/// so a run always stops by itself.
public struct LoadConfiguration: Sendable, Codable, Equatable {
    /// The server's root URL.
    public var url: String
    /// The API key visitors start with.
    public var apiKey: String = "demo-api-key"
    /// Simulated visitor devices.
    public var visitors: Int = 10
    /// Simulated agents (each a session of ``agentUsername``).
    public var agents: Int = 2
    /// Seconds over which visitors start, evenly spread.
    public var rampUpSeconds: Double = 5
    /// Seconds from the first visitor's start until visitors stop.
    public var durationSeconds: Double = 30
    /// What visitors do.
    public var scenario: LoadScenario = .chat
    /// Co-browsing frames per second per device.
    public var fps: Int = 5
    /// Bytes per co-browsing frame (a JPEG-signed payload, each frame different).
    public var frameBytes: Int = 12_000
    /// The size of the file each `files` visitor uploads per conversation.
    public var fileBytes: Int = 20_000
    /// Named areas conversations start in, chosen per conversation at random.
    public var namedAreas: [String] = ["demo-area"]
    /// Seed of every random choice (roles, areas, think times, tokens), so runs repeat.
    public var seed: UInt64 = 1
    /// Seconds between a visitor's messages (each wait is 0.5× to 1.5× this, at random).
    public var messageIntervalSeconds: Double = 2
    /// Messages a visitor sends before ending a conversation and starting the next.
    public var messagesPerConversation: Int = 5
    /// Conversations each chat or push visitor holds before it stops (`nil`: until the duration ends).
    public var conversationsPerVisitor: Int?
    /// Frames each co-browsing device sends before it ends its conversation (`nil`: until the duration ends).
    public var framesPerDevice: Int?
    /// The agent user all simulated agents log in as.
    public var agentUsername: String = "agent"
    /// Its password.
    public var agentPassword: String = "agent"
    /// Credentials for the control API (`/_mock/v1/stats`), to compare the run's counts with the
    /// server's: a control token, else a super admin's username and password.
    public var control: ControlCredentials? = .user(username: "superadmin", password: "superadmin")
    /// HTTP/1.1 connections the simulated devices share.
    public var connections: Int = 64
    /// How long a device waits for an event it expects (acceptance, a reply) before counting a timeout.
    public var eventTimeoutSeconds: Double = 15
    /// After the duration, how long devices may take to finish what they are doing and end their
    /// conversations before they are cancelled.
    public var drainSeconds: Double = 10

    /// Credentials for the control API.
    public enum ControlCredentials: Sendable, Codable, Equatable {
        case token(String)
        case user(username: String, password: String)
    }

    /// The bounds ``validate()`` enforces.
    public static let maxVisitors = 20_000
    public static let maxAgents = 500
    public static let maxDurationSeconds = 86_400.0
    public static let maxFrameBytes = 1 << 20

    /// Creates a configuration with the defaults for everything but the URL.
    public init(url: String) {
        self.url = url
    }

    /// Checks every bound; the error names the option and the allowed range.
    public func validate() throws(LoadConfigurationError) {
        func check(_ condition: Bool, _ option: String, _ rule: String) throws(LoadConfigurationError) {
            if !condition { throw LoadConfigurationError(option: option, rule: rule) }
        }
        try check(url.hasPrefix("http://") || url.hasPrefix("https://"), "--url", "must start with http:// or https://")
        try check(!apiKey.isEmpty, "--api-key", "must not be empty")
        try check((0...Self.maxVisitors).contains(visitors), "--visitors", "must be 0 to \(Self.maxVisitors)")
        try check((0...Self.maxAgents).contains(agents), "--agents", "must be 0 to \(Self.maxAgents)")
        try check(rampUpSeconds >= 0 && rampUpSeconds <= Self.maxDurationSeconds, "--ramp-up", "must be 0 to \(Int(Self.maxDurationSeconds)) seconds")
        try check(
            durationSeconds > 0 && durationSeconds <= Self.maxDurationSeconds, "--duration",
            "must be more than 0 and at most \(Int(Self.maxDurationSeconds)) seconds")
        try check((1...60).contains(fps), "--fps", "must be 1 to 60")
        try check((16...Self.maxFrameBytes).contains(frameBytes), "--frame-bytes", "must be 16 to \(Self.maxFrameBytes)")
        try check((16...10 * 1024 * 1024).contains(fileBytes), "--file-bytes", "must be 16 to 10485760")
        try check(!namedAreas.isEmpty && namedAreas.allSatisfy { !$0.isEmpty }, "--named-areas", "must name at least one area")
        try check(messageIntervalSeconds >= 0.01 && messageIntervalSeconds <= 3_600, "--message-interval", "must be 0.01 to 3600 seconds")
        try check((1...10_000).contains(messagesPerConversation), "--messages-per-conversation", "must be 1 to 10000")
        try check(conversationsPerVisitor.map { (1...1_000_000).contains($0) } ?? true, "--conversations", "must be 1 to 1000000")
        try check(framesPerDevice.map { (1...100_000_000).contains($0) } ?? true, "--frames", "must be 1 to 100000000")
        try check((1...4_096).contains(connections), "--connections", "must be 1 to 4096")
        try check(eventTimeoutSeconds > 0 && eventTimeoutSeconds <= 600, "--event-timeout", "must be more than 0 and at most 600 seconds")
        try check(drainSeconds >= 0 && drainSeconds <= 600, "--drain", "must be 0 to 600 seconds")
        try check(
            scenario != .cobrowse && scenario != .mixed || agents > 0 || visitors == 0, "--agents",
            "co-browsing needs at least one agent to accept conversations")
    }
}

/// A configuration value out of its bounds.
public struct LoadConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command-line option.
    public var option: String
    /// What it must be.
    public var rule: String

    public var description: String { "\(option) \(rule)" }
}

/// What simulated visitors do.
public enum LoadScenario: String, Sendable, Codable, CaseIterable, NamedCases {
    /// Start conversations in named areas and chat with agents that accept and reply.
    case chat
    /// Chat from the background with device tokens registered, so replies go out as pushes, and
    /// agents ring each conversation's visitor once (a VoIP push).
    case push
    /// Stream co-browsing frames at `fps` in an accepted conversation.
    case cobrowse
    /// Half chat, a quarter push, a quarter co-browsing, chosen per visitor from the seed.
    case mixed
    /// Chat whose first message in each conversation is a picture of `fileBytes` uploaded as a file.
    case files
}

/// What one simulated visitor does.
public enum VisitorRole: String, Sendable, Codable, CaseIterable, NamedCases {
    case chat
    case push
    case cobrowse
    case files

    /// The role of visitor `index` in a scenario: fixed for single scenarios, seeded for `mixed`.
    static func of(scenario: LoadScenario, random: inout SeededRandom) -> VisitorRole {
        switch scenario {
        case .chat: return .chat
        case .push: return .push
        case .cobrowse: return .cobrowse
        case .files: return .files
        case .mixed:
            let draw = random.next() % 4
            return draw < 2 ? .chat : draw == 2 ? .push : .cobrowse
        }
    }

    /// The conversation topic that tells simulated agents what the visitor does.
    var topic: String { "load \(rawValue)" }

    init?(topic: String?) {
        guard let topic, topic.hasPrefix("load ") else { return nil }
        self.init(rawValue: String(topic.dropFirst("load ".count)))
    }
}
