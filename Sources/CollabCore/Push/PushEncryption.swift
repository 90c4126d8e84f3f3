import Crypto
public import Foundation

/// Seals push content with a device's notification key: AES-256-GCM, the combined sealed box
/// (12-byte nonce ‖ ciphertext ‖ 16-byte tag) in standard base64. Any AES-GCM implementation opens it
/// (the tests use Python's `cryptography` as well as swift-crypto).
public enum PushEncryption {
    /// A fresh 256-bit key, base64.
    public static func makeKeyMaterial() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// Seals `plaintext` with the base64 key material.
    public static func seal(_ plaintext: Data, keyMaterial: String) throws(CollabError) -> String {
        guard let keyData = Data(base64Encoded: keyMaterial), keyData.count == 32 else {
            throw CollabError(.internalError, "notification key is not 256 bits")
        }
        do {
            guard let combined = try AES.GCM.seal(plaintext, using: SymmetricKey(data: keyData)).combined else {
                throw CollabError(.internalError, "sealing produced no combined box")
            }
            return combined.base64EncodedString()
        } catch let error as CollabError {
            throw error
        } catch {
            throw CollabError(.internalError, "sealing failed")
        }
    }

    /// Opens a sealed box made by ``seal(_:keyMaterial:)``.
    public static func open(_ sealed: String, keyMaterial: String) throws(CollabError) -> Data {
        guard let keyData = Data(base64Encoded: keyMaterial), keyData.count == 32 else { throw .badRequest("notification key is not 256 bits") }
        guard let combined = Data(base64Encoded: sealed) else { throw .badRequest("encrypted data is not base64") }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: SymmetricKey(data: keyData))
        } catch {
            throw .badRequest("encrypted data does not open with this key")
        }
    }
}
