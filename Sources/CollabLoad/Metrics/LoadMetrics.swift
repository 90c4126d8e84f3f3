import Histogram
import Synchronization

/// Latencies, errors and counters of a run, shared by every simulated device.
///
/// Latencies go into HDR histograms (microseconds, three significant digits) per operation for the
/// whole run, and into a coarser histogram per operation and second for the timeline; a finished
/// second becomes a ``TimelinePoint`` and its histograms are reused.
public final class LoadMetrics: Sendable {
    /// Latencies above this (two minutes) are recorded as this.
    static let highestTrackableMicros: UInt64 = 120_000_000

    private let start: ContinuousClock.Instant
    private let bucket: Duration
    private let state: Mutex<State>

    private struct State {
        var overall: [LoadOperation: Histogram<UInt64>] = [:]
        var errors: [LoadOperation: [String: ErrorTally]] = [:]
        var counters: [LoadCounter: Int] = [:]
        var bucketIndex = 0
        var bucketLatencies: [LoadOperation: Histogram<UInt64>] = [:]
        var bucketErrors: [LoadOperation: Int] = [:]
        var timeline: [TimelinePoint] = []
        var activeVisitors = 0
        var activeAgents = 0
    }

    struct ErrorTally {
        var count: Int
        var example: String
    }

    /// Creates empty metrics for a run starting at `start`, with timeline buckets of `bucket`.
    public init(start: ContinuousClock.Instant, bucket: Duration = .seconds(1)) {
        self.start = start
        self.bucket = bucket
        self.state = Mutex(State())
    }

    /// Records a successful operation that took `latency`, finished at `now`, and adds one to each of
    /// `counters` under the same lock (a device's frame takes the lock once, not three times).
    public func record(_ operation: LoadOperation, _ latency: Duration, at now: ContinuousClock.Instant, counting counters: [LoadCounter] = []) {
        let micros = Self.micros(latency)
        state.withLock { state in
            roll(&state, to: now)
            state.overall[operation, default: Self.histogram(digits: .three)].record(micros)
            state.bucketLatencies[operation, default: Self.histogram(digits: .two)].record(micros)
            for counter in counters { state.counters[counter, default: 0] += 1 }
        }
    }

    /// Records a failed operation: `type` groups errors (an HTTP status class, `timeout`, …) and
    /// the first message of each type is kept as an example.
    public func fail(_ operation: LoadOperation, type: String, message: String, at now: ContinuousClock.Instant) {
        state.withLock { state in
            roll(&state, to: now)
            if state.errors[operation]?[type] != nil {
                state.errors[operation]![type]!.count += 1
            } else {
                state.errors[operation, default: [:]][type] = ErrorTally(count: 1, example: String(message.prefix(300)))
            }
            state.bucketErrors[operation, default: 0] += 1
        }
    }

    /// Adds to a counter.
    public func count(_ counter: LoadCounter, by amount: Int = 1) {
        state.withLock { $0.counters[counter, default: 0] += amount }
    }

    /// The value of a counter.
    public func value(of counter: LoadCounter) -> Int {
        state.withLock { $0.counters[counter] ?? 0 }
    }

    /// Changes the number of running visitors and agents.
    public func adjustActive(visitors: Int = 0, agents: Int = 0) {
        state.withLock { state in
            state.activeVisitors += visitors
            state.activeAgents += agents
        }
    }

    /// What the live view shows: totals so far and the last finished second.
    public func snapshot(at now: ContinuousClock.Instant) -> LoadSnapshot {
        state.withLock { state in
            roll(&state, to: now)
            var totals: [LoadOperation: Int] = [:]
            for (operation, histogram) in state.overall { totals[operation] = Int(histogram.totalCount) }
            let errors = state.errors.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
            return LoadSnapshot(
                elapsedSeconds: Self.seconds(now - start), activeVisitors: state.activeVisitors, activeAgents: state.activeAgents,
                totals: totals, errors: errors, counters: state.counters, last: state.timeline.last
            )
        }
    }

    /// The whole run's figures, with the current second closed.
    func finish(
        at now: ContinuousClock.Instant
    ) -> (operations: [OperationReport], errors: [ErrorReport], counters: [String: Int], timeline: [TimelinePoint]) {
        state.withLock { state in
            roll(&state, to: now)
            closeBucket(&state, at: now)
            let elapsed = max(Self.seconds(now - start), 0.001)
            let operations = LoadOperation.allCases.compactMap { operation -> OperationReport? in
                let histogram = state.overall[operation]
                let errorCount = state.errors[operation]?.values.reduce(0) { $0 + $1.count } ?? 0
                guard histogram != nil || errorCount > 0 else { return nil }
                return OperationReport(operation: operation, histogram: histogram, errors: errorCount, elapsedSeconds: elapsed)
            }
            let errors = state.errors.flatMap { operation, types in
                types.map { ErrorReport(operation: operation.rawValue, type: $0.key, count: $0.value.count, example: $0.value.example) }
            }.sorted { ($0.operation, $0.type) < ($1.operation, $1.type) }
            var counters: [String: Int] = [:]
            for counter in LoadCounter.allCases { counters[counter.rawValue] = state.counters[counter] ?? 0 }
            return (operations, errors, counters, state.timeline)
        }
    }

    // MARK: - Timeline buckets

    private func roll(_ state: inout State, to now: ContinuousClock.Instant) {
        let index = Int((now - start) / bucket)
        while state.bucketIndex < index {
            closeBucket(&state, at: nil)
            state.bucketIndex += 1
        }
    }

    /// Turns the current bucket into a timeline point (a partial last bucket is scaled by its length).
    private func closeBucket(_ state: inout State, at partialEnd: ContinuousClock.Instant?) {
        let bucketSeconds = Self.seconds(bucket)
        var length = bucketSeconds
        if let partialEnd {
            length = Self.seconds(partialEnd - start) - Double(state.bucketIndex) * bucketSeconds
            guard length > 0.05 else { return }
        }
        var points: [String: TimelinePoint.Operation] = [:]
        for operation in Set(state.bucketLatencies.keys).union(state.bucketErrors.keys) {
            let histogram = state.bucketLatencies[operation]
            let count = Int(histogram?.totalCount ?? 0)
            let errors = state.bucketErrors[operation] ?? 0
            guard count + errors > 0 else { continue }
            points[operation.rawValue] = TimelinePoint.Operation(
                count: count, errors: errors, ratePerSecond: Double(count) / length,
                p50Ms: histogram.map { Self.millis($0.valueAtPercentile(50)) }, p99Ms: histogram.map { Self.millis($0.valueAtPercentile(99)) },
                maxMs: histogram.map { Self.millis($0.max) }
            )
        }
        state.timeline.append(TimelinePoint(second: Double(state.bucketIndex) * bucketSeconds, seconds: length, operations: points))
        for key in Array(state.bucketLatencies.keys) { state.bucketLatencies[key]?.reset() }
        state.bucketErrors = [:]
    }

    // MARK: - Units

    static func histogram(digits: SignificantDigits) -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestTrackableMicros, numberOfSignificantValueDigits: digits)
    }

    static func micros(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return UInt64(min(max(micros, 1), Int64(highestTrackableMicros)))
    }

    static func millis(_ micros: UInt64) -> Double {
        (Double(micros) / 1_000).rounded(toPlaces: 3)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// What the live view shows.
public struct LoadSnapshot: Sendable {
    public var elapsedSeconds: Double
    public var activeVisitors: Int
    public var activeAgents: Int
    /// Successful operations so far.
    public var totals: [LoadOperation: Int]
    /// Failed operations so far.
    public var errors: Int
    public var counters: [LoadCounter: Int]
    /// The last finished second.
    public var last: TimelinePoint?
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
