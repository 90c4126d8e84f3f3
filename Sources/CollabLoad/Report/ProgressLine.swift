import Foundation

/// One line of live progress: elapsed time, devices, rates and the last second's latencies of the
/// operations that matter most.
public struct ProgressLine: Sendable {
    public let text: String

    /// The operations shown, in order, when they ran in the last second.
    static let shown: [(LoadOperation, String)] = [
        (.messageSend, "msg"), (.messageDeliver, "deliver"), (.replyDeliver, "reply"), (.frameAck, "frame"), (.conversationStart, "start"),
        (.queueWait, "queue"), (.callRing, "ring"),
    ]

    /// Renders a snapshot.
    public init(_ snapshot: LoadSnapshot) {
        var parts = [
            String(format: "%6.1fs", snapshot.elapsedSeconds),
            "visitors \(snapshot.activeVisitors)", "agents \(snapshot.activeAgents)",
        ]
        if let last = snapshot.last {
            let rate = last.operations.values.reduce(0) { $0 + $1.ratePerSecond }
            parts.append("ops/s \(Int(rate.rounded()))")
        }
        parts.append("errors \(snapshot.errors)")
        let throttled = snapshot.counters[.framesThrottled] ?? 0
        if throttled > 0 { parts.append("throttled \(throttled)") }
        for (operation, label) in Self.shown {
            guard let figures = snapshot.last?.operations[operation.rawValue], let p50 = figures.p50Ms, let p99 = figures.p99Ms else { continue }
            parts.append("\(label) \(Self.format(p50))/\(Self.format(p99))ms")
        }
        text = parts.joined(separator: " | ")
    }

    static func format(_ millis: Double) -> String {
        millis < 10 ? String(format: "%.1f", millis) : String(Int(millis.rounded()))
    }
}
