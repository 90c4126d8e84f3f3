import CollabCore
import Crypto
import Foundation
import Synchronization

/// Remembers recently verified basic-auth credentials so bcrypt runs once per credential, not once
/// per request.
///
/// Entries are keyed by a SHA-256 of a random secret that lives only in this process, the username and
/// the password (one compression for usual lengths, where an HMAC takes four; the keys never leave the
/// process, so a secret prefix serves as well), and hold the password hash they were checked against: a
/// password change (new hash) invalidates them.
///
/// Each account has its own part, with its own lock and bound, and simply starts over when full. One
/// tenant that verifies many credentials (an admin can make thousands of users) empties only its own
/// part: the others' callers keep their cached checks, and never wait on its lock.
final class CredentialCache: Sendable {
    private struct Entry {
        var userId: String
        var passwordHash: String
    }

    private final class AccountPart: Sendable {
        let entries = Mutex<[SHA256.Digest: Entry]>([:])
    }

    private let secret: [UInt8] = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
    private let accounts = AccountShards { AccountPart() }
    private let capacityPerAccount: Int

    init(capacityPerAccount: Int = 1_000) {
        self.capacityPerAccount = capacityPerAccount
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

    /// The user id verified earlier for these credentials in the account, if the stored hash is still
    /// `currentHash`.
    func lookup(accountId: String, username: String, password: String, currentHash: String) -> String? {
        guard let part = accounts.existing(accountId) else { return nil }
        let fingerprint = fingerprint(username: username, password: password)
        return part.entries.withLock { entries in
            guard let entry = entries[fingerprint], entry.passwordHash == currentHash else { return nil }
            return entry.userId
        }
    }

    /// Forgets every credential verified in a deleted account.
    func accountDeleted(_ accountId: String) {
        accounts.remove(accountId)
    }

    /// Whether the cache keeps a part for the account (for tests).
    func holdsPart(of accountId: String) -> Bool {
        accounts.existing(accountId) != nil
    }

    /// Remembers credentials that just verified for a user of the account.
    func remember(accountId: String, username: String, password: String, userId: String, passwordHash: String) {
        let fingerprint = fingerprint(username: username, password: password)
        accounts.shard(accountId).entries.withLock { entries in
            if entries.count >= capacityPerAccount { entries.removeAll(keepingCapacity: true) }
            entries[fingerprint] = Entry(userId: userId, passwordHash: passwordHash)
        }
    }
}
