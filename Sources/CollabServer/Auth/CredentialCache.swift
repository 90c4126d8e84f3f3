import Crypto
import Foundation
import Synchronization

/// Remembers recently verified basic-auth credentials so bcrypt runs once per credential, not once
/// per request.
///
/// Entries are keyed by a SHA-256 of a random secret that lives only in this process, the username and
/// the password (one compression for usual lengths, where an HMAC takes four; the keys never leave the
/// process, so a secret prefix serves as well), and hold the password hash they were checked against: a password change (new hash) invalidates
/// them. The cache is bounded and simply starts over when full.
final class CredentialCache: Sendable {
    private struct Entry {
        var userId: String
        var passwordHash: String
    }

    private let secret: [UInt8] = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
    private let entries = Mutex<[SHA256.Digest: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    private func fingerprint(username: String, password: String) -> SHA256.Digest {
        var hash = SHA256()
        hash.update(data: secret)
        // The username's length first, so no two (username, password) pairs hash the same bytes.
        withUnsafeBytes(of: UInt32(username.utf8.count).littleEndian) { hash.update(bufferPointer: $0) }
        var username = username
        username.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        var password = password
        password.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return hash.finalize()
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
