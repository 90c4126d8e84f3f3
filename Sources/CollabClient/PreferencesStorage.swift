public import Crypto
public import Foundation
import Synchronization

/// Where a client keeps small values across starts — the SDK's preferences storage. The device
/// identity secret lives here: an anonymous device presents it on every start after the first.
public protocol PreferencesStorage: Sendable {
    /// The value stored under `key`.
    func string(forKey key: String) throws -> String?
    /// Stores `value` under `key` (`nil` removes it).
    func set(_ value: String?, forKey key: String) throws
}

/// Preferences in memory. ``shared`` is the default of every ``ClientConfiguration``: within one
/// process, clients for the same device id behave as one installation (as apps on one phone do).
public final class MemoryPreferencesStorage: PreferencesStorage {
    private let values = Mutex<[String: String]>([:])

    /// The process-wide default.
    public static let shared = MemoryPreferencesStorage()

    /// An empty store of its own.
    public init() {}

    public func string(forKey key: String) throws -> String? { values.withLock { $0[key] } }
    public func set(_ value: String?, forKey key: String) throws { values.withLock { $0[key] = value } }
}

/// Preferences in a JSON file, readable by whoever can read the file (`mock-collab visitor` uses one so
/// a device id keeps working across runs).
public final class FilePreferencesStorage: PreferencesStorage {
    /// The JSON file.
    public let url: URL
    private let lock = Mutex(())

    /// Preferences in `url` (created on the first save).
    public init(url: URL) { self.url = url }

    public func string(forKey key: String) throws -> String? {
        try lock.withLock { _ in try read()[key] }
    }

    public func set(_ value: String?, forKey key: String) throws {
        try lock.withLock { _ in
            var values = try read()
            values[key] = value
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encode(values).write(to: url, options: .atomic)
        }
    }

    func read() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        return try decode(Data(contentsOf: url))
    }

    func decode(_ data: Data) throws -> [String: String] { try JSONDecoder().decode([String: String].self, from: data) }
    func encode(_ values: [String: String]) throws -> Data { try JSONEncoder().encode(values) }
}

/// Preferences in a file sealed with AES-256-GCM under a key the app keeps elsewhere (the keychain) —
/// the SDK's "encrypting stored preferences".
public final class EncryptedFilePreferencesStorage: PreferencesStorage {
    private let file: FilePreferencesStorage
    private let key: SymmetricKey
    private let lock = Mutex(())

    /// Preferences sealed in `url`.
    /// - Parameters:
    ///   - url: The file.
    ///   - key: A 256-bit key that seals the file.
    public init(url: URL, key: SymmetricKey) {
        self.file = FilePreferencesStorage(url: url)
        self.key = key
    }

    public func string(forKey key: String) throws -> String? {
        try lock.withLock { _ in try values()[key] }
    }

    public func set(_ value: String?, forKey key: String) throws {
        try lock.withLock { _ in
            var values = try values()
            values[key] = value
            guard let sealed = try AES.GCM.seal(file.encode(values), using: self.key).combined else { throw CocoaError(.fileWriteUnknown) }
            try FileManager.default.createDirectory(at: file.url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try sealed.write(to: file.url, options: .atomic)
        }
    }

    private func values() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: file.url.path) else { return [:] }
        let box = try AES.GCM.SealedBox(combined: Data(contentsOf: file.url))
        return try file.decode(AES.GCM.open(box, using: key))
    }
}
