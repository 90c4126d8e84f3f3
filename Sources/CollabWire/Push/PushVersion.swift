/// How a device wants its notifications: the SDK's push-notification versions.
public enum PushVersion: String, Sendable, Codable, CaseIterable, NamedCases {
    /// All content sealed; the SDK decrypts in the app (delivered as a background push).
    case encrypted = "ENCRYPTED"
    /// All content sealed; a Notification Service Extension decrypts (`mutable-content: 1` with a placeholder alert).
    case encryptedService = "ENCRYPTED_SERVICE"
    /// Plain title and text (legacy).
    case notEncrypted = "NOT_ENCRYPTED"
}
