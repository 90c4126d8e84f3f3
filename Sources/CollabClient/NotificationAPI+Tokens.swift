import CollabWire
import Synchronization

/// The tokens a device registers, and the registration their last change started.
struct TokenState: Sendable {
    struct Tokens: Sendable, Equatable {
        var deviceToken: String?
        var pushKitToken: String?
        var fcmToken: String?
        var version: PushNotificationVersion = .encrypted
        var pushKitEnabled = true
        var isEmpty: Bool { deviceToken == nil && (pushKitToken == nil || !pushKitEnabled) && fcmToken == nil }
    }

    var tokens = Tokens()
    var registration: Task<PushRegistrationResponse?, any Error>?
}

/// Token properties that register on change, as the SDK's notification API does: the app sets
/// ``deviceToken`` when the system hands it a new APNs token, ``pushKitToken`` for PushKit (VoIP) and
/// ``fcmToken`` for Firebase; each change registers all of them (in order, one at a time) with the
/// server. Clearing every token disables push (the server deletes them). A failed registration is
/// reported as a non-fatal ``ClientEvent/error(_:)`` and by ``registration()``.
extension NotificationAPI {
    /// The APNs device token (hex). Setting a new value registers it.
    public var deviceToken: String? {
        get { tokens.withLock { $0.tokens.deviceToken } }
        set { update { $0.deviceToken = newValue } }
    }

    /// The PushKit (VoIP) token (hex). Setting a new value registers it.
    public var pushKitToken: String? {
        get { tokens.withLock { $0.tokens.pushKitToken } }
        set { update { $0.pushKitToken = newValue } }
    }

    /// The FCM registration token. Setting a new value registers it.
    public var fcmToken: String? {
        get { tokens.withLock { $0.tokens.fcmToken } }
        set { update { $0.fcmToken = newValue } }
    }

    /// The push-notification version tokens register with (the SDK's `unbluPushNotificationVersion`).
    public var version: PushNotificationVersion {
        get { tokens.withLock { $0.tokens.version } }
        set { update { $0.version = newValue } }
    }

    /// Whether the app rings calls natively through PushKit and CallKit (the SDK's `pushKitEnabled`,
    /// `false` when its CallKit provider is disabled or CallKit is not supported, as in China). When
    /// `false` the PushKit token is not registered and the device stops advertising the
    /// `nativeInboundCall` capability: calls ring by an alert push, or a UI request in the foreground.
    public var pushKitEnabled: Bool {
        get { tokens.withLock { $0.tokens.pushKitEnabled } }
        set { update { $0.pushKitEnabled = newValue } }
    }

    /// Waits for the registration the last change started.
    /// - Returns: The server's answer (with the notification keys), or `nil` when push was disabled or
    ///   nothing has changed yet.
    /// - Throws: What the registration failed with.
    @discardableResult
    public func registration() async throws -> PushRegistrationResponse? {
        let task = tokens.withLock { $0.registration }
        return try await task?.value
    }

    private func update(_ change: (inout TokenState.Tokens) -> Void) {
        tokens.withLock { state in
            var next = state.tokens
            change(&next)
            guard next != state.tokens else { return }
            let nothingRegistered = state.tokens.isEmpty
            state.tokens = next
            // Only the version changed while no token is set: nothing to tell the server yet.
            if next.isEmpty && nothingRegistered { return }
            let previous = state.registration
            state.registration = Task { [self] in
                _ = try? await previous?.value
                do {
                    if next.isEmpty {
                        try await disable()
                        return nil
                    }
                    return try await register(
                        apnsToken: next.deviceToken, pushKitToken: next.pushKitEnabled ? next.pushKitToken : nil, fcmToken: next.fcmToken,
                        version: next.version, nativeInboundCall: next.pushKitEnabled
                    )
                } catch {
                    let message = "registering push tokens failed: \(error)"
                    client.report(.error(ClientError(type: .notificationRegistration, isFatal: false, message: message)))
                    throw error
                }
            }
        }
    }
}
