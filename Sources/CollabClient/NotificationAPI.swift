public import CollabWire
import Crypto
import Foundation
import Synchronization

/// The SDK's push-notification versions.
public enum PushNotificationVersion: String, Sendable, CaseIterable {
    /// Sealed; the app decrypts.
    case encrypted = "ENCRYPTED"
    /// Sealed; a Notification Service Extension decrypts (placeholder alert with `mutable-content`).
    case encryptedService = "ENCRYPTED_SERVICE"
    /// Plain title and text.
    case notEncrypted = "NOT_ENCRYPTED"
}

/// Why a notification could not be handled.
public enum NotificationProcessingError: Error, Equatable, Sendable {
    /// Not a MockCollab notification: the app handles it itself.
    case foreignNotification
    /// Sealed with a key this device does not hold (rotated away, or never fetched).
    case unknownKey(String)
    /// Malformed payload.
    case malformed(String)
    /// The sealed data does not open with the named key.
    case decryptionFailed
    /// One of ours, but not what was asked for (e.g. a VoIP push that is not an incoming call).
    case unexpectedKind(String)
}

/// What the client should do with a new message or an incoming call, by app state: the SDK's
/// notification table, applied on the device.
public enum ClientNotificationDecision: Sendable, Equatable {
    /// Show a notification (the app is in the background, or a message arrived with the UI closed).
    case showNotification
    /// Bring the collaboration UI forward instead (an incoming call with the app on screen).
    case requestUIVisibility
    /// Nothing: the user already sees the conversation.
    case nothing

    /// The SDK's table: background → show; foreground with the UI closed → show a message, ask to show
    /// the UI for a call; foreground with the UI open → nothing.
    public static func decide(kind: String, appState: ClientAppState) -> ClientNotificationDecision {
        switch appState {
        case .background: .showNotification
        case .foregroundUIClosed: kind == "INCOMING_CALL" ? .requestUIVisibility : .showNotification
        case .foregroundUIOpen: .nothing
        }
    }
}

/// Push notifications for a started app — a visitor's or an agent's: token registration, notification
/// keys, handling and decrypting received notifications, and answering calls.
public final class NotificationAPI: Sendable {
    /// The app whose device registers.
    public let client: any AppClient
    /// Where the device's notification keys are kept.
    public let storage: any NotificationKeyStorage
    let tokens = Mutex(TokenState())

    /// The notification API of one client (one per client: there is no singleton).
    /// - Parameters:
    ///   - client: The app (``VisitorClient`` or ``AgentClient``), started before tokens are set.
    ///   - storage: Where the notification keys are kept; in memory by default.
    public init(client: any AppClient, storage: any NotificationKeyStorage = MemoryKeyStorage()) {
        self.client = client
        self.storage = storage
    }

    /// Registers the device's tokens (re-registration replaces them) and stores the notification keys
    /// the server shares for encrypted versions.
    /// - Parameters:
    ///   - apnsToken: The APNs device token (hex).
    ///   - pushKitToken: The PushKit (VoIP) token (hex).
    ///   - fcmToken: The FCM registration token.
    ///   - version: The push-notification version (the SDK's `unbluPushNotificationVersion`).
    ///   - apnsEnvironment: `sandbox` (the default) or `production`.
    ///   - nativeInboundCall: Whether the app rings natively (CallKit through PushKit; the SDK's
    ///     capability of that name); `false` makes calls ring by an alert push, never by VoIP. `nil`: as
    ///     the PushKit token says.
    @discardableResult
    public func register(
        apnsToken: String? = nil, pushKitToken: String? = nil, fcmToken: String? = nil, version: PushNotificationVersion,
        apnsEnvironment: String? = nil,
        nativeInboundCall: Bool? = nil
    ) async throws -> PushRegistrationResponse {
        let body = PushRegistrationRequest(
            apnsToken: apnsToken, pushKitToken: pushKitToken, fcmToken: fcmToken, version: version.rawValue, apnsEnvironment: apnsEnvironment,
            nativeInboundCall: nativeInboundCall
        )
        let response: PushRegistrationResponse = try await client.transport.send("PUT", "\(client.apiPrefix)/clients/current/push", body: body)
        try storage.save(response.keys)
        return response
    }

    /// Disables push: the server deletes the device's tokens.
    public func disable() async throws {
        try await client.transport.sendWithoutResult("DELETE", "\(client.apiPrefix)/clients/current/push")
        try storage.save([])
    }

    /// Fetches the current (and, during an overlap, previous) keys after a rotation.
    @discardableResult
    public func refreshKeys() async throws -> [NotificationKeyView] {
        let keys: [NotificationKeyView] = try await client.transport.send("GET", "\(client.apiPrefix)/clients/current/notification-keys")
        try storage.save(keys)
        return keys
    }

    /// Handles a received notification's `userInfo`: our content, decrypted if sealed. A push sealed
    /// with a key this device does not hold yet (the server rotated it) makes the client fetch the
    /// current keys once and try again, as the SDK updates its key from the server by itself.
    /// - Throws: ``NotificationProcessingError/foreignNotification`` for a notification that is not ours
    ///   (the app handles it itself); ``NotificationProcessingError/unknownKey(_:)`` when the key is not
    ///   among the server's current keys either.
    public func handleRemoteNotification(userInfo: [AnyHashable: Any]) async throws -> PushContent {
        let fields = Self.stringKeyed(userInfo)
        do {
            return try Self.content(of: fields, keys: storage.load())
        } catch NotificationProcessingError.unknownKey {
            try await refreshKeys()
            return try Self.content(of: fields, keys: storage.load())
        }
    }

    /// Handles a notification whose delivery needs a completion handler (background fetch): calls
    /// `completionHandler` once the notification is ours and handled.
    /// - Throws: ``NotificationProcessingError/foreignNotification`` without calling the handler.
    @discardableResult
    public func handleRemoteNotification(
        userInfo: [AnyHashable: Any], withCompletionHandler completionHandler: @Sendable () -> Void
    ) async throws -> PushContent {
        let content = try await handleRemoteNotification(userInfo: userInfo)
        completionHandler()
        return content
    }

    /// Handles the notification the user tapped to launch the app (`nil` when the app was launched
    /// otherwise): like the SDK, a tapped notification asks the app to show the collaboration UI — a
    /// ``ClientEvent/showUIRequested(_:)`` with `requestedByUser: true` on the client's
    /// ``VisitorClient/clientEvents``.
    /// - Returns: The notification's content, or `nil` without a notification.
    @discardableResult
    public func handleLaunchNotification(
        userInfo: [AnyHashable: Any]?, withCompletionHandler completionHandler: (@Sendable () -> Void)? = nil
    ) async throws -> PushContent? {
        guard let userInfo else { return nil }
        let content = try await handleRemoteNotification(userInfo: userInfo)
        let request = UIRequest(
            reason: UIRequestReason(pushType: content.type.rawValue), requestedByUser: true, conversationId: content.conversationId,
            callId: content.callId
        )
        client.report(.showUIRequested(request))
        completionHandler?()
        return content
    }

    /// The system could not register the app for remote notifications: reported as a non-fatal
    /// ``ClientEvent/error(_:)`` (the app keeps working, without pushes).
    public func failedToRegisterForRemoteNotifications(error: any Error) {
        let message = "registering for remote notifications failed: \(error)"
        client.report(.error(ClientError(type: .notificationRegistration, isFatal: false, message: message)))
    }

    static func stringKeyed(_ userInfo: [AnyHashable: Any]) -> [String: Any] {
        var fields: [String: Any] = [:]
        for (key, value) in userInfo {
            if let name = key.base as? String { fields[name] = value }
        }
        return fields
    }

    /// Answers a call from the device (after CallKit reported the user's answer).
    @discardableResult
    public func answer(callId: String) async throws(CollabClientError) -> CallView {
        try await client.transport.send("POST", "\(client.apiPrefix)/calls/\(callId)/answer")
    }

    /// Declines a call.
    @discardableResult
    public func decline(callId: String) async throws(CollabClientError) -> CallView {
        try await client.transport.send("POST", "\(client.apiPrefix)/calls/\(callId)/decline")
    }

    /// Reads a call's state.
    public func call(_ callId: String) async throws(CollabClientError) -> CallView {
        try await client.transport.send("GET", "\(client.apiPrefix)/calls/\(callId)")
    }

    /// The content of a notification payload (APNs `userInfo`, or an FCM data message's `unblu` string
    /// parsed into a dictionary), decrypting it with `keys` when sealed. Usable from a Notification
    /// Service Extension, like the SDK's encrypted-notification helper.
    public static func content(of userInfo: [String: Any], keys: [NotificationKeyView]) throws -> PushContent {
        var unblu = userInfo["unblu"]
        if let text = unblu as? String, let data = text.data(using: .utf8) {
            unblu = try? JSONSerialization.jsonObject(with: data)
        }
        guard let fields = unblu as? [String: Any] else { throw NotificationProcessingError.foreignNotification }
        if let sealed = fields["encryptedData"] as? String {
            guard let keyId = fields["keyId"] as? String else { throw NotificationProcessingError.malformed("encryptedData without keyId") }
            guard let key = keys.first(where: { $0.keyId == keyId }) else { throw NotificationProcessingError.unknownKey(keyId) }
            return try decrypt(sealed, key: key.key)
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: fields)
            return try JSONDecoder().decode(PushContent.self, from: data)
        } catch {
            throw NotificationProcessingError.malformed("\(error)")
        }
    }

    /// Opens sealed content: base64 of the AES-256-GCM combined box (nonce ‖ ciphertext ‖ tag).
    public static func decrypt(_ sealed: String, key: String) throws -> PushContent {
        guard let keyData = Data(base64Encoded: key), keyData.count == 32, let combined = Data(base64Encoded: sealed) else {
            throw NotificationProcessingError.malformed("key or sealed data is not valid base64")
        }
        let plaintext: Data
        do {
            plaintext = try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: SymmetricKey(data: keyData))
        } catch {
            throw NotificationProcessingError.decryptionFailed
        }
        do {
            return try JSONDecoder().decode(PushContent.self, from: plaintext)
        } catch {
            throw NotificationProcessingError.malformed("sealed content is not push content")
        }
    }
}
