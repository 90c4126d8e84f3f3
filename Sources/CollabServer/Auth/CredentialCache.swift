import Crypto
import Foundation
import Synchronization

/// Remembers recently verified basic-auth credentials so bcrypt runs once per credential, not once
/// per request.
///
/// Entries are keyed by an HMAC of username and password under a key that lives only in this process,
/// and hold the password hash they were checked against: a password change (new hash) invalidates
/// them. The cache is bounded and simply starts over when full.
final class CredentialCache: Sendable {
    private struct Entry {
        var userId: String
        var passwordHash: String
    }

    /// An HMAC-SHA256 of the credentials, as four words (a dictionary key without an allocation).
    private struct Fingerprint: Hashable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    /// The keyed HMAC state before any message: copied for each fingerprint, so the key's pads are
    /// computed once.
    private let keyed: HMAC<SHA256>
    private let entries = Mutex<[Fingerprint: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
        self.keyed = HMAC<SHA256>(key: SymmetricKey(size: .bits256))
    }

    private func fingerprint(username: String, password: String) -> Fingerprint {
        var hmac = keyed
        var username = username
        var password = password
        username.withUTF8 { hmac.update(data: $0) }
        withUnsafeBytes(of: UInt8(0)) { hmac.update(data: $0) }
        password.withUTF8 { hmac.update(data: $0) }
        return hmac.finalize().withUnsafeBytes { bytes in
            Fingerprint(
                words: (
                    bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
            )
        }
    }

    /// The user id verified earlier for these credentials, if the stored hash is still `currentHash`.
    func lookup(username: String, password: String, currentHash: String) -> String? {
        let fingerprint = fingerprint(username: username, password: password)
        return entries.withLock { entries in
            guard let entry = entries[fingerprint], entry.passwordHash == currentHash else { return nil }
            return entry.userId
        }
    }

    /// Remembers credentials that just verified.
    func remember(username: String, password: String, userId: String, passwordHash: String) {
        let fingerprint = fingerprint(username: username, password: password)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[fingerprint] = Entry(userId: userId, passwordHash: passwordHash)
        }
    }
}
