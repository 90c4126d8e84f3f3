import CollabCore
import CollabWire
import Foundation

/// Writes alert pushes as `.apns` files for `xcrun simctl push <device> <file>`: the payload plus the
/// `Simulator Target Bundle` key naming the app. The simulator takes no VoIP pushes, so only alert
/// pushes are written.
enum SimulatorFileSink {
    static func write(_ entry: OutboxEntry, directory: String, now: Timestamp) -> SinkResult? {
        guard entry.transport == .apns, entry.pushType == "alert", let topic = entry.topic else { return nil }
        var attempt = OutboxEntry.Attempt(timestamp: now, sink: "simulator-file")
        do {
            guard var object = try JSONSerialization.jsonObject(with: Data(entry.payload.utf8)) as? [String: Any] else {
                throw CollabError(.internalError, "payload is not a JSON object")
            }
            object["Simulator Target Bundle"] = topic
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = (directory as NSString).appendingPathComponent("\(entry.createdAt)-\(entry.pushId).apns")
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            attempt.reason = path
            return SinkResult(outcome: .delivered, attempt: attempt)
        } catch {
            attempt.error = "\(error)"
            return SinkResult(outcome: .failed, attempt: attempt)
        }
    }
}
