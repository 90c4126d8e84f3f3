import Foundation

extension LoadReport {
    /// The final report for a terminal: a table of operations with percentiles, the counters, the
    /// errors and the comparison with the server's counts.
    public var text: String {
        var lines: [String] = []
        lines.append(
            "mock-collab load: \(configuration.scenario), \(configuration.visitors) visitors, \(configuration.agents) agents, "
                + String(format: "%.1f s", elapsedSeconds) + " (stopped by \(stoppedBy))"
        )
        lines.append("")
        let header = ["operation", "count", "errors", "rate/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms"]
        var rows = [header]
        for operation in operations {
            let latency = operation.latencyMs
            rows.append([
                operation.operation, String(operation.count), String(operation.errors), String(format: "%.1f", operation.ratePerSecond),
                latency.map { Self.millis($0.p50) } ?? "-", latency.map { Self.millis($0.p90) } ?? "-", latency.map { Self.millis($0.p99) } ?? "-",
                latency.map { Self.millis($0.p999) } ?? "-", latency.map { Self.millis($0.max) } ?? "-",
            ])
        }
        lines += Self.table(rows)
        lines.append("")
        let shown = counters.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        if !shown.isEmpty {
            lines.append("counters: " + shown.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if !errors.isEmpty {
            lines.append("errors:")
            for error in errors {
                lines.append("  \(error.operation) \(error.type) ×\(error.count): \(error.example)")
            }
        }
        if let server {
            lines.append("server (account \(server.account)): pushes emitted \(server.pushesEmitted) (\(server.pushOutcomes))")
            for check in server.checks where check.server != 0 || check.load != 0 {
                let counted = check.counted.map { " (\($0))" } ?? ""
                lines.append("  \(check.name): server \(check.server), load \(check.load)\(counted)\(check.agrees ? "" : "  ← differs")")
            }
        } else if let serverUnavailable {
            lines.append("server counts unavailable: \(serverUnavailable)")
        }
        return lines.joined(separator: "\n")
    }

    static func millis(_ value: Double) -> String {
        value < 10 ? String(format: "%.2f", value) : value < 100 ? String(format: "%.1f", value) : String(Int(value.rounded()))
    }

    /// Left-aligned first column, right-aligned numbers.
    static func table(_ rows: [[String]]) -> [String] {
        guard let first = rows.first else { return [] }
        let widths = first.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
    }
}
