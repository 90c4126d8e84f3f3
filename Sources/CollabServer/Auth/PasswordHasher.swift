import HummingbirdBcrypt
import NIOPosix

/// Hashes and checks passwords with bcrypt, off the cooperative thread pool (bcrypt is slow on
/// purpose and would otherwise stall every other request).
struct PasswordHasher: Sendable {
    /// Bcrypt work factor.
    var cost: UInt8

    /// A salted bcrypt hash of `password`.
    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`.
    func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
