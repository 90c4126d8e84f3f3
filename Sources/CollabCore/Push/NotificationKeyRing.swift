/// A device's notification key: 256 bits for AES-GCM, with an id pushes name.
public struct NotificationKey: Sendable, Codable, Equatable {
    public var id: String
    /// The key material, base64.
    public var material: String
    public var createdAt: Timestamp

    public init(id: String, material: String, createdAt: Timestamp) {
        self.id = id
        self.material = material
        self.createdAt = createdAt
    }
}

/// A device's current notification key and, during the overlap after a rotation, the previous one.
///
/// Pushes are always sealed with the current key and name its id; a device that has not fetched the
/// new key yet can still decrypt pushes until the overlap ends, and the server still accepts the
/// previous key id until then.
public struct NotificationKeyRing: Sendable, Codable, Equatable {
    public var current: NotificationKey
    public var previous: NotificationKey?
    /// When the previous key stops being valid.
    public var previousValidUntil: Timestamp?

    public init(current: NotificationKey) {
        self.current = current
    }

    /// Replaces the current key; the old one stays valid for `overlap` milliseconds.
    public mutating func rotate(to key: NotificationKey, now: Timestamp, overlap: Int64) {
        previous = current
        previousValidUntil = now + max(0, overlap)
        current = key
    }

    /// The key with `id`, if it is valid at `now`.
    public func key(id: String, now: Timestamp) -> NotificationKey? {
        if current.id == id { return current }
        if let previous, previous.id == id, let until = previousValidUntil, now < until { return previous }
        return nil
    }

    /// Keys valid at `now`, current first.
    public func validKeys(now: Timestamp) -> [NotificationKey] {
        [current] + [previous].compactMap { $0 }.filter { _ in (previousValidUntil ?? 0) > now }
    }
}
