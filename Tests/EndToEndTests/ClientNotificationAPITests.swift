import CollabClient
import CollabWire
import Foundation
import Synchronization
import Testing

/// Whether a completion handler was called.
final class CalledFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

@Suite("CollabClient as the SDK: notifications")
struct ClientNotificationAPITests {
    @Test("token properties register on change, clearing them disables push, a refused token is a non-fatal error event")
    func tokenProperties() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "token-phone")
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            let notifications = NotificationAPI(client: app)
            notifications.version = .encrypted
            #expect(try await notifications.registration() == nil, "a version without tokens registers nothing")

            notifications.deviceToken = apnsToken
            let first = try #require(try await notifications.registration())
            #expect(first.device.apnsToken == apnsToken)
            #expect(first.device.version == "ENCRYPTED")
            #expect(first.keys.count == 1)
            #expect(try notifications.storage.load() == first.keys, "the shared key is stored")

            notifications.pushKitToken = voipToken
            let second = try #require(try await notifications.registration())
            #expect(second.device.apnsToken == apnsToken)
            #expect(second.device.pushKitToken == voipToken)

            notifications.deviceToken = nil
            notifications.pushKitToken = nil
            #expect(try await notifications.registration() == nil)
            let devices = try await server.control.transport.send("GET", "/_mock/v1/devices", as: [DeviceView].self)
            #expect(devices.allSatisfy { $0.apnsToken == nil && $0.pushKitToken == nil }, "disabling push deleted the tokens server-side")

            notifications.deviceToken = "not hex"
            await #expect(throws: CollabClientError.self) { try await notifications.registration() }
            try await events.wait(for: "registration error") {
                if case .error(let error) = $0 { return error.type == .notificationRegistration && !error.isFatal }
                return false
            }
            notifications.failedToRegisterForRemoteNotifications(error: CollabClientError(code: .transport, status: nil, message: "no network"))
            try await events.wait(for: "system registration error") {
                if case .error(let error) = $0 { return error.message.contains("no network") && !error.isFatal }
                return false
            }
        }
    }

    @Test("after a key rotation the client fetches the new key by itself and decrypts the push; foreign notifications throw")
    func automaticKeyRefresh() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "refreshing-phone", version: .encrypted)
            let oldKey = try #require(scenario.registration.keys.first)
            let rotated = try await server.control.transport.send(
                "POST", "/_mock/v1/devices/\(scenario.registration.device.id)/rotate-key", as: DeviceView.self
            )
            let newKeyId = try #require(rotated.keyId)
            #expect(newKeyId != oldKey.keyId)
            _ = try await scenario.agent.send("after the rotation", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("conversationId", scenario.conversationId)])
            #expect(push.keyId == newKeyId)
            #expect(try scenario.notifications.storage.load().map(\.keyId) == [oldKey.keyId], "the device holds only the old key")

            let content = try await scenario.notifications.handleRemoteNotification(userInfo: try userInfo(push))
            #expect(content.text == "after the rotation")
            #expect(try scenario.notifications.storage.load().contains { $0.keyId == newKeyId }, "the fetched key is stored")

            let called = CalledFlag()
            let again = try await scenario.notifications.handleRemoteNotification(userInfo: try userInfo(push)) { called.set() }
            #expect(again.text == "after the rotation")
            #expect(called.isSet)

            let foreign: [AnyHashable: Any] = ["aps": ["alert": "from another service"]]
            let notCalled = CalledFlag()
            await #expect(throws: NotificationProcessingError.foreignNotification) {
                try await scenario.notifications.handleRemoteNotification(userInfo: foreign) { notCalled.set() }
            }
            #expect(!notCalled.isSet, "a foreign notification is the app's own")
        }
    }

    @Test("a tapped notification that launched the app asks to show the UI, requested by the user")
    func launchNotification() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "launch-phone", version: .encryptedService)
            let events = ClientEventCollector(scenario.app.clientEvents)
            #expect(try await scenario.notifications.handleLaunchNotification(userInfo: nil) == nil)
            _ = try await scenario.agent.send("tap me", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("conversationId", scenario.conversationId)])
            let called = CalledFlag()
            let content = try await scenario.notifications.handleLaunchNotification(userInfo: try userInfo(push)) { called.set() }
            #expect(content?.text == "tap me")
            #expect(called.isSet)
            let conversationId = scenario.conversationId
            try await events.wait(for: "show UI requested by the user") {
                $0 == .showUIRequested(UIRequest(reason: .newMessage, requestedByUser: true, conversationId: conversationId))
            }
        }
    }
}
