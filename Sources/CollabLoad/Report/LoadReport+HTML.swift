import Foundation

extension LoadReport {
    /// A self-contained HTML page: the summary table, counters, errors, the server comparison, and
    /// latency (p50 and p99) and throughput over time as inline SVG. No scripts, no external files.
    public var html: String {
        let title = "mock-collab load — \(configuration.scenario), \(configuration.visitors) visitors"
        var body = "<h1>\(Self.escape(title))</h1>\n"
        body += "<p>\(Self.escape(configuration.url)) · \(String(format: "%.1f", elapsedSeconds)) s · stopped by \(Self.escape(stoppedBy))"
            + " · seed \(configuration.seed)"
        body += " · started \(Self.escape(Self.isoDate(startedAt)))</p>\n"

        body += "<h2>Operations</h2>\n<table><thead><tr>"
        for heading in ["operation", "count", "errors", "rate/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms"] {
            body += "<th>\(heading)</th>"
        }
        body += "</tr></thead><tbody>\n"
        for operation in operations {
            body += "<tr><td>\(Self.escape(operation.operation))\(operation.delivery ? " <small>(delivery)</small>" : "")</td>"
            body += "<td>\(operation.count)</td><td>\(operation.errors)</td><td>\(String(format: "%.1f", operation.ratePerSecond))</td>"
            for value in [
                operation.latencyMs?.p50, operation.latencyMs?.p90, operation.latencyMs?.p99, operation.latencyMs?.p999, operation.latencyMs?.max,
            ] {
                body += "<td>\(value.map(Self.millis) ?? "–")</td>"
            }
            body += "</tr>\n"
        }
        body += "</tbody></table>\n"

        body += "<h2>Latency over time (p99 solid, p50 dashed)</h2>\n" + latencyChart()
        body += "<h2>Throughput over time</h2>\n" + throughputChart()

        body += "<h2>Counters</h2>\n<table><tbody>\n"
        for (name, value) in counters.sorted(by: { $0.key < $1.key }) where value > 0 {
            body += "<tr><td>\(Self.escape(name))</td><td>\(value)</td></tr>\n"
        }
        body += "</tbody></table>\n"
        if !errors.isEmpty {
            body += "<h2>Errors</h2>\n<table><thead><tr><th>operation</th><th>type</th><th>count</th><th>example</th></tr></thead><tbody>\n"
            for error in errors {
                body += "<tr><td>\(Self.escape(error.operation))</td><td>\(Self.escape(error.type))</td><td>\(error.count)</td>"
                    + "<td class=\"text\">\(Self.escape(error.example))</td></tr>\n"
            }
            body += "</tbody></table>\n"
        }
        if let server {
            body += "<h2>Server's counts (account \(Self.escape(server.account)))</h2>\n"
            body += "<p>Pushes emitted: \(server.pushesEmitted) (\(Self.escape(server.pushOutcomes)))</p>\n"
            body += "<table><thead><tr><th>figure</th><th>server</th><th>load</th><th></th></tr></thead><tbody>\n"
            for check in server.checks {
                body += "<tr><td>\(Self.escape(check.name))</td><td>\(check.server)</td><td>\(check.load)</td>"
                    + "<td>\(check.agrees ? "agrees" : "<strong>differs</strong>")</td></tr>\n"
            }
            body += "</tbody></table>\n"
        } else if let serverUnavailable {
            body += "<p>Server counts unavailable: \(Self.escape(serverUnavailable))</p>\n"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escape(title))</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #1d2433; max-width: 1100px; }
            table { border-collapse: collapse; margin: .5rem 0 1.5rem; }
            th, td { padding: .25rem .6rem; border-bottom: 1px solid #dde2ea; text-align: right; }
            th:first-child, td:first-child, td.text { text-align: left; }
            svg { max-width: 100%; height: auto; background: #fafbfc; border: 1px solid #dde2ea; }
            svg text { font: 11px system-ui, sans-serif; fill: #4a5468; }
            </style></head><body>
            \(body)</body></html>

            """
    }

    /// Operations that have latencies on the timeline, in display order.
    private var chartedOperations: [String] {
        let present = Set(timeline.flatMap { $0.operations.keys })
        return LoadOperation.allCases.map(\.rawValue).filter { present.contains($0) }
    }

    private static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"]

    private func latencyChart() -> String {
        let operations = chartedOperations
        var series: [(name: String, color: String, dashed: Bool, points: [(Double, Double)])] = []
        for (index, operation) in operations.enumerated() {
            let color = Self.palette[index % Self.palette.count]
            let p99 = timeline.compactMap { point in point.operations[operation]?.p99Ms.map { (point.second + point.seconds / 2, $0) } }
            let p50 = timeline.compactMap { point in point.operations[operation]?.p50Ms.map { (point.second + point.seconds / 2, $0) } }
            series.append((operation, color, false, p99))
            series.append((operation, color, true, p50))
        }
        return Self.chart(series: series, unit: "ms")
    }

    private func throughputChart() -> String {
        let operations = chartedOperations
        let series = operations.enumerated().map { index, operation in
            (
                name: operation, color: Self.palette[index % Self.palette.count], dashed: false,
                points: timeline.map { point in (point.second + point.seconds / 2, point.operations[operation]?.ratePerSecond ?? 0) }
            )
        }
        return Self.chart(series: series, unit: "/s")
    }

    /// The height of a legend row, in the chart's units.
    static let legendRowHeight = 18.0

    /// A line chart with axes, grid and a legend (one entry per name) beside the plot. The chart grows
    /// taller than the plot when the legend needs it, so every operation keeps its entry.
    static func chart(series: [(name: String, color: String, dashed: Bool, points: [(Double, Double)])], unit: String) -> String {
        let width = 960.0, left = 60.0, right = 200.0, top = 12.0, bottom = 32.0, plotHeight = 276.0
        let plotWidth = width - left - right
        var legendNames: [String] = []
        for line in series where !line.points.isEmpty && !line.dashed && !legendNames.contains(line.name) { legendNames.append(line.name) }
        let height = max(top + plotHeight + bottom, top + Double(legendNames.count) * legendRowHeight + 8)
        let maxX = max(series.flatMap { $0.points.map(\.0) }.max() ?? 1, 1)
        let maxY = niceCeiling(series.flatMap { $0.points.map(\.1) }.max() ?? 1)
        func x(_ value: Double) -> Double { left + value / maxX * plotWidth }
        func y(_ value: Double) -> Double { top + plotHeight - value / maxY * plotHeight }
        var svg = "<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\""
            + " role=\"img\" aria-label=\"chart in \(escape(unit))\">\n"
        for step in 0...4 {
            let value = maxY * Double(step) / 4
            svg += "<line x1=\"\(left)\" x2=\"\(left + plotWidth)\" y1=\"\(f(y(value)))\" y2=\"\(f(y(value)))\" stroke=\"#e3e7ee\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(f(y(value) + 4))\" text-anchor=\"end\">\(axisLabel(value))\(escape(unit))</text>\n"
        }
        for step in 0...5 {
            let value = maxX * Double(step) / 5
            svg += "<text x=\"\(f(x(value)))\" y=\"\(top + plotHeight + bottom - 10)\" text-anchor=\"middle\">\(axisLabel(value)) s</text>"
        }
        svg += "\n<line x1=\"\(left)\" x2=\"\(left)\" y1=\"\(top)\" y2=\"\(top + plotHeight)\" stroke=\"#8a93a6\"/>"
        svg += "<line x1=\"\(left)\" x2=\"\(left + plotWidth)\" y1=\"\(top + plotHeight)\" y2=\"\(top + plotHeight)\" stroke=\"#8a93a6\"/>\n"
        var legend: [String] = []
        for line in series where !line.points.isEmpty {
            let path = line.points.map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"1.5\"\(line.dashed ? " stroke-dasharray=\"4 3\"" : "")"
                + " points=\"\(path)\"><title>\(escape(line.name))</title></polyline>\n"
            if !line.dashed, !legend.contains(line.name) {
                let row = Double(legend.count)
                let y = top + row * legendRowHeight
                svg += "<rect x=\"\(left + plotWidth + 16)\" y=\"\(f(y))\" width=\"12\" height=\"3\" fill=\"\(line.color)\"/>"
                svg += "<text x=\"\(left + plotWidth + 34)\" y=\"\(f(y + 5))\">\(escape(line.name))</text>\n"
                legend.append(line.name)
            }
        }
        return svg + "</svg>\n"
    }

    private static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let magnitude = pow(10, floor(log10(value)))
        for factor in [1.0, 2.0, 2.5, 5.0, 10.0] where factor * magnitude >= value { return factor * magnitude }
        return 10 * magnitude
    }

    private static func axisLabel(_ value: Double) -> String {
        value >= 100 || value == value.rounded() ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func isoDate(_ millis: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(millis) / 1_000))
    }
}
