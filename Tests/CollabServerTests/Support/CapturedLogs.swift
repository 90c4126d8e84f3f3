import Logging
import Synchronization

/// Every log record sent to its loggers, rendered as text (message and metadata), for tests that check
/// what the server logs.
final class CapturedLogs: Sendable {
    private let lines = Mutex<[String]>([])

    /// A logger that records into this capture at `level` and above.
    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "captured") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// What was logged so far.
    var all: [String] { lines.withLock { $0 } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let capture: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append("\(event.level) \(event.message) \(rendered)")
        }
    }
}
