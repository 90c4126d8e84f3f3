public import CollabWire
import Histogram

/// Everything a run measured, as written by `--json` (schema: docs/load-report.schema.json).
public struct LoadReport: Sendable, Codable {
    /// The report format's version; changes that remove or retype fields raise it.
    public static let currentFormat = 1

    public var format: Int = Self.currentFormat
    public var tool: String = "mock-collab load"
    public var configuration: Configuration
    /// Wall-clock start and end, milliseconds since 1970 (for people; durations use a monotonic clock).
    public var startedAt: Int64
    public var endedAt: Int64
    /// Seconds from the start of the run (agents logging in) until every device stopped.
    public var elapsedSeconds: Double
    /// Why the run stopped: `duration`, `interrupted`, or `completed` (every visitor did its count).
    public var stoppedBy: String
    public var operations: [OperationReport]
    public var errors: [ErrorReport]
    public var counters: [String: Int]
    public var timeline: [TimelinePoint]
    /// The server's own counts over the run, when the control API was reachable.
    public var server: ServerComparison?
    /// Why the server's counts are missing, when they are.
    public var serverUnavailable: String?

    /// The run's configuration without secrets.
    public struct Configuration: Sendable, Codable, Equatable {
        public var url: String
        public var scenario: String
        public var visitors: Int
        public var agents: Int
        public var rampUpSeconds: Double
        public var durationSeconds: Double
        public var fps: Int
        public var frameBytes: Int
        public var namedAreas: [String]
        public var seed: UInt64
        public var messageIntervalSeconds: Double
        public var messagesPerConversation: Int
        public var connections: Int
        public var conversationsPerVisitor: Int?
        public var framesPerDevice: Int?
        /// Visitors per role (`chat`, `push`, `cobrowse`).
        public var roles: [String: Int]

        init(_ configuration: LoadConfiguration, roles: [VisitorRole: Int]) {
            url = configuration.url
            scenario = configuration.scenario.rawValue
            visitors = configuration.visitors
            agents = configuration.agents
            rampUpSeconds = configuration.rampUpSeconds
            durationSeconds = configuration.durationSeconds
            fps = configuration.fps
            frameBytes = configuration.frameBytes
            namedAreas = configuration.namedAreas
            seed = configuration.seed
            messageIntervalSeconds = configuration.messageIntervalSeconds
            messagesPerConversation = configuration.messagesPerConversation
            connections = configuration.connections
            conversationsPerVisitor = configuration.conversationsPerVisitor
            framesPerDevice = configuration.framesPerDevice
            var byName: [String: Int] = [:]
            // `files` shows only in runs that have it (the `files` scenario; `mixed` does not draw it).
            for role in VisitorRole.allCases where role != .files || roles[role] != nil { byName[role.rawValue] = roles[role] ?? 0 }
            self.roles = byName
        }
    }

    /// The operation's figures, if it ran.
    public func operation(_ operation: LoadOperation) -> OperationReport? {
        operations.first { $0.operation == operation.rawValue }
    }

    /// A counter's value.
    public func counter(_ counter: LoadCounter) -> Int {
        counters[counter.rawValue] ?? 0
    }
}

/// One operation over the whole run.
public struct OperationReport: Sendable, Codable, Equatable {
    public var operation: String
    /// Whether it times a change reaching the other side (rather than one request).
    public var delivery: Bool
    public var count: Int
    public var errors: Int
    /// Successful operations per second of the run.
    public var ratePerSecond: Double
    /// Latency in milliseconds; absent when none succeeded.
    public var latencyMs: Latency?

    /// HDR histogram percentiles (three significant digits).
    public struct Latency: Sendable, Codable, Equatable {
        public var min: Double
        public var mean: Double
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var p999: Double
        public var max: Double
    }

    init(operation: LoadOperation, histogram: Histogram<UInt64>?, errors: Int, elapsedSeconds: Double) {
        self.operation = operation.rawValue
        self.delivery = operation.isDelivery
        self.count = Int(histogram?.totalCount ?? 0)
        self.errors = errors
        self.ratePerSecond = (Double(count) / elapsedSeconds).rounded(toPlaces: 2)
        if let histogram, histogram.totalCount > 0 {
            latencyMs = Latency(
                min: LoadMetrics.millis(histogram.min), mean: (histogram.mean / 1_000).rounded(toPlaces: 3),
                p50: LoadMetrics.millis(histogram.valueAtPercentile(50)), p90: LoadMetrics.millis(histogram.valueAtPercentile(90)),
                p99: LoadMetrics.millis(histogram.valueAtPercentile(99)), p999: LoadMetrics.millis(histogram.valueAtPercentile(99.9)),
                max: LoadMetrics.millis(histogram.max)
            )
        }
    }
}

/// Failures of one operation with one cause.
public struct ErrorReport: Sendable, Codable, Equatable {
    public var operation: String
    /// The client error code (`conflict`, `server`, `transport`, …) or `timeout`.
    public var type: String
    public var count: Int
    /// The first such error's message.
    public var example: String
}

/// One timeline bucket (a second, by default).
public struct TimelinePoint: Sendable, Codable, Equatable {
    /// Seconds from the start to the bucket's start.
    public var second: Double
    /// The bucket's length in seconds (the last one may be shorter).
    public var seconds: Double
    /// Per operation name.
    public var operations: [String: Operation]

    public struct Operation: Sendable, Codable, Equatable {
        public var count: Int
        public var errors: Int
        public var ratePerSecond: Double
        public var p50Ms: Double?
        public var p99Ms: Double?
        public var maxMs: Double?
    }
}

/// The server's counts over the run (after minus before, from `GET /_mock/v1/stats?account=`) next
/// to the run's own.
public struct ServerComparison: Sendable, Codable, Equatable {
    public var account: String
    public var before: StateStats
    public var after: StateStats
    /// Each figure as the server counted it and as the run counted it.
    public var checks: [Check]

    public struct Check: Sendable, Codable, Equatable {
        public var name: String
        public var server: Int
        public var load: Int
        /// Whether the two agree (a mismatch means lost, duplicated or foreign activity).
        public var agrees: Bool
        /// What the tool's figure adds up, when it is a sum (`messages`: the visitors' messages and the
        /// agents' replies, since the server counts every message stored).
        public var counted: String?
    }

    /// Whether every figure agrees.
    public var agrees: Bool { checks.allSatisfy(\.agrees) }
}
