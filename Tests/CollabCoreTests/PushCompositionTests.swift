import CollabCore
import CollabWire
import Crypto
import Foundation
import Testing

@Suite("Push composition and encryption")
struct PushCompositionTests {
    let key = NotificationKey(id: "k1", material: PushEncryption.makeKeyMaterial(), createdAt: 0)

    func message(_ text: String = "Hello there") -> PushContent {
        var content = PushContent(type: .newMessage, title: "Agent Smith", text: text, conversationId: "c1", timestamp: 42)
        content.messageId = "m1"
        content.senderName = "Agent Smith"
        content.notificationCount = 3
        return content
    }

    func object(_ push: ComposedPush) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
    }

    @Test("NotEncrypted carries plain title and text")
    func notEncrypted() throws {
        let push = try PushComposer.compose(message(), transport: .apns, version: .notEncrypted, key: nil, badge: 3)
        let json = try object(push)
        let aps = try #require(json["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Agent Smith")
        #expect(alert["body"] as? String == "Hello there")
        #expect(aps["badge"] as? Int == 3)
        #expect((json["unblu"] as? [String: Any])?["messageId"] as? String == "m1")
        #expect(push.pushType == "alert")
        #expect(push.keyId == nil)
    }

    @Test("EncryptedService: placeholder alert with mutable-content, content sealed under the key")
    func encryptedService() throws {
        let push = try PushComposer.compose(message(), transport: .apns, version: .encryptedService, key: key, badge: nil)
        let json = try object(push)
        let aps = try #require(json["aps"] as? [String: Any])
        #expect(aps["mutable-content"] as? Int == 1)
        #expect((aps["alert"] as? [String: Any])?["title"] as? String == PushComposer.placeholderTitle)
        let unblu = try #require(json["unblu"] as? [String: Any])
        #expect(unblu["keyId"] as? String == "k1")
        #expect(unblu["text"] == nil, "no plain text next to the sealed data")
        let sealed = try #require(unblu["encryptedData"] as? String)
        let opened = try JSONDecoder().decode(PushContent.self, from: PushEncryption.open(sealed, keyMaterial: key.material))
        #expect(opened == message())
        #expect(!String(decoding: push.payload, as: UTF8.self).contains("Hello there"))
    }

    @Test("Encrypted: a background push the app decrypts")
    func encrypted() throws {
        let push = try PushComposer.compose(message(), transport: .apns, version: .encrypted, key: key, badge: nil)
        let aps = try #require(try object(push)["aps"] as? [String: Any])
        #expect(aps["content-available"] as? Int == 1)
        #expect(aps["alert"] == nil)
        #expect(push.pushType == "background")
        #expect(push.priority == 5)
    }

    @Test("VoIP pushes carry no aps and may be up to 5120 bytes; FCM data travels as one string")
    func voipAndFCM() throws {
        var call = PushContent(type: .incomingCall, title: "Agent", text: "Incoming call", conversationId: "c1", timestamp: 1)
        call.callId = "call-1"
        let voip = try PushComposer.compose(call, transport: .apnsVoIP, version: .encrypted, key: key, badge: nil)
        #expect(voip.pushType == "voip")
        #expect(try object(voip)["aps"] == nil)
        let fcm = try PushComposer.compose(message(), transport: .fcm, version: .notEncrypted, key: nil, badge: nil)
        #expect(try object(fcm)["unblu"] is String)
    }

    @Test(
        "long text is truncated to fit, never an over-size push",
        arguments: [PushTransport.apns, .apnsVoIP, .fcm], [PushVersion.notEncrypted, .encrypted, .encryptedService])
    func truncation(transport: PushTransport, version: PushVersion) throws {
        let long = String(repeating: "ä long message ", count: 2_000)
        let push = try PushComposer.compose(message(long), transport: transport, version: version, key: key, badge: 1)
        let limit = transport == .apnsVoIP ? PushComposer.voipLimit : PushComposer.apnsLimit
        #expect(push.payload.count <= limit)
        #expect(push.truncated)
        #expect(push.payload.count > limit - 200, "truncation keeps as much text as fits")
    }

    @Test("sealed boxes are standard AES-256-GCM: nonce ‖ ciphertext ‖ tag")
    func sealedFormat() throws {
        let sealed = try PushEncryption.seal(Data("hello".utf8), keyMaterial: key.material)
        let combined = try #require(Data(base64Encoded: sealed))
        #expect(combined.count == 12 + 5 + 16)
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: combined.prefix(12)), ciphertext: combined.dropFirst(12).dropLast(16), tag: combined.suffix(16))
        #expect(try AES.GCM.open(box, using: SymmetricKey(data: Data(base64Encoded: key.material)!)) == Data("hello".utf8))
        #expect(throws: CollabError.self) { try PushEncryption.open(sealed, keyMaterial: PushEncryption.makeKeyMaterial()) }
    }

    @Test("the notification table")
    func table() {
        #expect(NotificationPolicy.decide(.newMessage, appState: nil) == .push)
        #expect(NotificationPolicy.decide(.newMessage, appState: .background) == .push)
        #expect(NotificationPolicy.decide(.newMessage, appState: .foregroundUIClosed) == .push)
        #expect(NotificationPolicy.decide(.newMessage, appState: .foregroundUIOpen) == .nothing)
        #expect(NotificationPolicy.decide(.incomingCall, appState: .background) == .push)
        #expect(NotificationPolicy.decide(.incomingCall, appState: .foregroundUIClosed) == .uiVisibilityRequest)
        #expect(NotificationPolicy.decide(.incomingCall, appState: .foregroundUIOpen) == .nothing)
    }

    @Test("key rings: the previous key stays valid for the overlap")
    func keyRing() {
        var ring = NotificationKeyRing(current: key)
        let next = NotificationKey(id: "k2", material: PushEncryption.makeKeyMaterial(), createdAt: 1_000)
        ring.rotate(to: next, now: 1_000, overlap: 500)
        #expect(ring.key(id: "k2", now: 1_200) == next)
        #expect(ring.key(id: "k1", now: 1_499) == key)
        #expect(ring.key(id: "k1", now: 1_500) == nil)
        #expect(ring.validKeys(now: 1_499).map(\.id) == ["k2", "k1"])
        #expect(ring.validKeys(now: 2_000).map(\.id) == ["k2"])
    }

    @Test("token validation: hex of variable length, FCM charset")
    func tokens() throws {
        #expect(try PushTokens.validateAPNs(String(repeating: "AB", count: 32), field: "t") == String(repeating: "ab", count: 32))
        #expect(try PushTokens.validateAPNs(String(repeating: "ab", count: 100), field: "t").count == 200, "longer tokens than 32 bytes are fine")
        for bad in ["abc", "zz" + String(repeating: "a", count: 62), String(repeating: "a", count: 402), "", String(repeating: "a", count: 8)] {
            #expect(throws: CollabError.self, "\(bad.prefix(10))") { try PushTokens.validateAPNs(bad, field: "t") }
        }
        #expect(try PushTokens.validateFCM("abc:DEF-ghi_123") == "abc:DEF-ghi_123")
        #expect(throws: CollabError.self) { try PushTokens.validateFCM("has space") }
        #expect(throws: CollabError.self) { try PushTokens.validateFCM(String(repeating: "a", count: 4097)) }
    }
}
