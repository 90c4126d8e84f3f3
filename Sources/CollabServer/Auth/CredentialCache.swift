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

    private let key = SymmetricKey(size: .bits256)
    private let entries = Mutex<[Data: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    private func fingerprint(username: String, password: String) -> Data {
        var message = Data(username.utf8)
        message.append(0)
        message.append(contentsOf: password.utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key))
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
