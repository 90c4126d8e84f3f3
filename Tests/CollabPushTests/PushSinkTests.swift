
import CollabCore
@testable import CollabPush
import CollabWire
import Foundation
import Testing

/// What the sinks make of an entry without a network: the simulator's `.apns` file, FCM's error codes.
@Suite("Push sinks without a network")
struct PushSinkTests {
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("collab-push-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("an alert push becomes an .apns file: its payload plus the target bundle")
    func simulatorFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var entry = PushOutboxTests.entry()
        entry.payload = #"{"aps":{"alert":{"title":"Agent","body":"hello"},"badge":3},"conversationId":"conv"}"#
        let result = try #require(SimulatorFileSink.write(entry, directory: directory, now: 5))
        #expect(result.outcome == .delivered && result.attempt.sink == "simulator-file" && result.attempt.timestamp == 5)
        let path = try #require(result.attempt.reason)
        #expect(path.hasPrefix(directory) && path.hasSuffix("\(entry.createdAt)-\(entry.pushId).apns"))
        let written = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(written["Simulator Target Bundle"] as? String == "com.example.app")
        #expect((written["aps"] as? [String: Any])?["badge"] as? Int == 3)
        #expect(written["conversationId"] as? String == "conv")
    }

    @Test("VoIP and FCM pushes are not written; a payload that is not an object fails the attempt")
    func simulatorFileRefusals() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var voip = PushOutboxTests.entry()
        voip.pushType = "voip"
        #expect(SimulatorFileSink.write(voip, directory: directory, now: 1) == nil)
        var fcm = PushOutboxTests.entry()
        fcm.transport = .fcm
        #expect(SimulatorFileSink.write(fcm, directory: directory, now: 1) == nil)
        var broken = PushOutboxTests.entry()
        broken.payload = "[1]"
        let result = try #require(SimulatorFileSink.write(broken, directory: directory, now: 1))
        #expect(result.outcome == .failed && result.attempt.error != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test("FCM's error code: the details' errorCode first, else the status, else none")
    func fcmErrorCode() {
        let detailed = #"{"error":{"status":"NOT_FOUND","details":[{"@type":"x"},{"errorCode":"UNREGISTERED"}]}}"#
        #expect(FCMSink.errorCode(in: Data(detailed.utf8)) == "UNREGISTERED")
        #expect(FCMSink.errorCode(in: Data(#"{"error":{"status":"INVALID_ARGUMENT"}}"#.utf8)) == "INVALID_ARGUMENT")
        #expect(FCMSink.errorCode(in: Data(#"{"name":"projects/p/messages/1"}"#.utf8)) == nil)
        #expect(FCMSink.errorCode(in: Data("<html>".utf8)) == nil)
    }
}
