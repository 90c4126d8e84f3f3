public import CollabWire
public import Crypto
public import Foundation
import Synchronization

/// Where a device keeps its notification keys (the SDK keeps them in the keychain).
public protocol NotificationKeyStorage: Sendable {
    /// The stored keys, current first.
    func load() throws -> [NotificationKeyView]
    /// Replaces the stored keys.
    func save(_ keys: [NotificationKeyView]) throws
}

/// Keys in memory only.
public final class MemoryKeyStorage: NotificationKeyStorage {
    private let keys = Mutex<[NotificationKeyView]>([])
    /// An empty store.
    public init() {}
    public func load() throws -> [NotificationKeyView] { keys.withLock { $0 } }
    public func save(_ keys: [NotificationKeyView]) throws { self.keys.withLock { $0 = keys } }
}

/// Keys in a JSON file (readable by whoever can read the file).
public final class FileKeyStorage: NotificationKeyStorage {
    /// The JSON file.
    public let url: URL
    /// Keys in `url` (created on the first save).
    public init(url: URL) { self.url = url }

    public func load() throws -> [NotificationKeyView] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try JSONDecoder().decode([NotificationKeyView].self, from: Data(contentsOf: url))
    }

    public func save(_ keys: [NotificationKeyView]) throws {
        try JSONEncoder().encode(keys).write(to: url, options: .atomic)
    }
}

/// Keys in a file sealed with AES-256-GCM under a key the app keeps elsewhere (e.g. the keychain).
public final class EncryptedFileKeyStorage: NotificationKeyStorage {
    /// The sealed file.
    public let url: URL
    private let key: SymmetricKey

    /// Keys sealed in `url`.
    /// - Parameters:
    ///   - url: The file.
    ///   - key: A 256-bit key that seals the file.
    public init(url: URL, key: SymmetricKey) {
        self.url = url
        self.key = key
    }

    public func load() throws -> [NotificationKeyView] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        let sealed = try AES.GCM.SealedBox(combined: Data(contentsOf: url))
        return try JSONDecoder().decode([NotificationKeyView].self, from: AES.GCM.open(sealed, using: key))
    }

    public func save(_ keys: [NotificationKeyView]) throws {
        guard let combined = try AES.GCM.seal(JSONEncoder().encode(keys), using: key).combined else { throw CocoaError(.fileWriteUnknown) }
        try combined.write(to: url, options: .atomic)
    }
}
