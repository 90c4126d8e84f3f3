import CollabWire
import Crypto
import Foundation
import Testing

@testable import CollabClient

/// What the device does with a received push: plain and sealed content, the FCM string form, keys it
/// does not hold (fetched once), and the SDK's notification table.
@Suite("Notification handling on the device")
struct NotificationHandlingTests {
    static let content =
        #"{"type":"NEW_MESSAGE","title":"Agent","text":"Your order shipped","conversationId":"conv-1","#
        + #""notificationCount":2,"timestamp":1800000000000}"#

    /// `content` sealed as the server seals it: base64 of AES-256-GCM's combined box.
    static func seal(_ text: String = content, key: SymmetricKey) throws -> String {
        try #require(try AES.GCM.seal(Data(text.utf8), using: key).combined).base64EncodedString()
    }

    static func key(_ id: String, _ key: SymmetricKey) -> NotificationKeyView {
        NotificationKeyView(keyId: id, key: key.withUnsafeBytes { Data($0) }.base64EncodedString(), createdAt: 0)
    }

    @Test("plain content is read from `unblu`, as an object (APNs) or a JSON string (FCM data)")
    func plain() throws {
        let object = try #require(JSONSerialization.jsonObject(with: Data(Self.content.utf8)) as? [String: Any])
        let fromAPNs = try NotificationAPI.content(of: ["aps": ["alert": "x"], "unblu": object], keys: [])
        let fromFCM = try NotificationAPI.content(of: ["unblu": Self.content], keys: [])
        #expect(fromAPNs == fromFCM)
        #expect(fromAPNs.text == "Your order shipped" && fromAPNs.notificationCount == 2 && fromAPNs.conversationId == "conv-1")
    }

    @Test("sealed content opens with the key it names, among several")
    func sealed() throws {
        let current = SymmetricKey(size: .bits256)
        let previous = SymmetricKey(size: .bits256)
        let sealed = try Self.seal(key: previous)
        let keys = [Self.key("k2", current), Self.key("k1", previous)]
        let opened = try NotificationAPI.content(of: ["unblu": ["encryptedData": sealed, "keyId": "k1"]], keys: keys)
        #expect(opened.title == "Agent" && opened.type == .newMessage)
    }

    @Test("refusals: not ours, no key id, a key not held, the wrong key under the id, bad base64, sealed garbage")
    func refusals() throws {
        let key = SymmetricKey(size: .bits256)
        let sealed = try Self.seal(key: key)
        func error(_ userInfo: [String: Any], keys: [NotificationKeyView] = []) -> NotificationProcessingError? {
            do {
                _ = try NotificationAPI.content(of: userInfo, keys: keys)
                return nil
            } catch {
                return error as? NotificationProcessingError
            }
        }
        #expect(error(["aps": ["alert": "someone else's"]]) == .foreignNotification)
        #expect(error(["unblu": "not json"]) == .foreignNotification)
        #expect(error(["unblu": ["encryptedData": sealed]]) == .malformed("encryptedData without keyId"))
        #expect(error(["unblu": ["encryptedData": sealed, "keyId": "k9"]], keys: [Self.key("k1", key)]) == .unknownKey("k9"))
        #expect(error(["unblu": ["encryptedData": sealed, "keyId": "k1"]], keys: [Self.key("k1", SymmetricKey(size: .bits256))]) == .decryptionFailed)
        #expect(
            error(["unblu": ["encryptedData": "***", "keyId": "k1"]], keys: [Self.key("k1", key)])
                == .malformed("key or sealed data is not valid base64"))
        let garbage = try Self.seal("[1,2]", key: key)
        #expect(
            error(["unblu": ["encryptedData": garbage, "keyId": "k1"]], keys: [Self.key("k1", key)])
                == .malformed("sealed content is not push content"))
        #expect(error(["unblu": ["title": "no type"]]) != nil)
    }

    @Test("a push sealed with a key the device does not hold yet makes it fetch the keys once and open it")
    func refetchAfterRotation() async throws {
        let rotated = SymmetricKey(size: .bits256)
        let sealed = try Self.seal(key: rotated)
        try await ScriptedServer.with({ request in
            request.uri == "/mobile/v1/clients/current/notification-keys"
                ? ScriptedServer.json(200, [Self.key("k2", rotated)])
                : ScriptedServer.json(404, #"{"type":"NOT_FOUND","message":"no"}"#)
        }) { server in
            let client = VisitorClient(configuration: .init(baseURL: server.baseURL, apiKey: "key", deviceId: "device"))
            let notifications = NotificationAPI(client: client)
            try notifications.storage.save([Self.key("k1", SymmetricKey(size: .bits256))])
            let content = try await notifications.handleRemoteNotification(userInfo: ["unblu": ["encryptedData": sealed, "keyId": "k2"]])
            #expect(content.text == "Your order shipped")
            #expect(try notifications.storage.load().map(\.keyId) == ["k2"])
            #expect(server.requests.map(\.uri) == ["/mobile/v1/clients/current/notification-keys"])

            // A key the server does not have either: one more fetch, then the error.
            await #expect(throws: NotificationProcessingError.unknownKey("k7")) {
                try await notifications.handleRemoteNotification(userInfo: ["unblu": ["encryptedData": sealed, "keyId": "k7"]])
            }
            #expect(server.requests.count == 2)
        }
    }

    @Test("the SDK's table: background shows; foreground with the UI closed shows a message and asks for the UI on a call; UI open: nothing")
    func decisionTable() {
        for kind in ["NEW_MESSAGE", "INCOMING_CALL", "MISSED_CALL"] {
            #expect(ClientNotificationDecision.decide(kind: kind, appState: .background) == .showNotification)
            #expect(ClientNotificationDecision.decide(kind: kind, appState: .foregroundUIOpen) == .nothing)
        }
        #expect(ClientNotificationDecision.decide(kind: "NEW_MESSAGE", appState: .foregroundUIClosed) == .showNotification)
        #expect(ClientNotificationDecision.decide(kind: "INCOMING_CALL", appState: .foregroundUIClosed) == .requestUIVisibility)
        #expect(UIRequestReason(pushType: "MISSED_CALL") == .missedCall && UIRequestReason(pushType: "SOMETHING_NEW") == .other)
    }

    @Test("keys kept in an encrypted file open only with the same key")
    func encryptedKeyStorage() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("collab-client-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let secret = SymmetricKey(size: .bits256)
        let keys = [Self.key("k1", SymmetricKey(size: .bits256))]
        try EncryptedFileKeyStorage(url: url, key: secret).save(keys)
        #expect(try EncryptedFileKeyStorage(url: url, key: secret).load() == keys)
        #expect(!String(decoding: try Data(contentsOf: url), as: UTF8.self).contains("k1"), "the file does not show the keys")
        #expect(throws: (any Error).self) { try EncryptedFileKeyStorage(url: url, key: SymmetricKey(size: .bits256)).load() }
    }
}
