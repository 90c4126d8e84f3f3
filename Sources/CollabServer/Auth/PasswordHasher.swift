import HummingbirdBcrypt
import NIOPosix
import Synchronization

/// Hashes and checks passwords with bcrypt, off the cooperative thread pool (bcrypt is slow on
/// purpose and would otherwise stall every other request).
struct PasswordHasher: Sendable {
    /// Bcrypt work factor.
    var cost: UInt8
    /// A hash of nothing anyone knows, at ``cost``, made on first use: checking a password against it
    /// costs what checking a real one does.
    private let decoy = Decoy()

    private final class Decoy: Sendable {
        let hash = Mutex<String?>(nil)
        let checks = Atomic<Int>(0)
    }

    /// Password checks run so far, against real hashes and the decoy alike (the tests compare them).
    var checkCount: Int { decoy.checks.load(ordering: .relaxed) }

    /// A salted bcrypt hash of `password`.
    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`.
    func verify(_ password: String, against hash: String) async throws -> Bool {
        decoy.checks.add(1, ordering: .relaxed)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Spends what checking a password costs, for a username that is not there (or has no password), so
    /// a refusal takes as long whether the username exists or not. Never matches.
    func verifyAgainstDecoy(_ password: String) async {
        let cost = self.cost
        let decoy = self.decoy
        decoy.checks.add(1, ordering: .relaxed)
        _ = try? await NIOThreadPool.singleton.runIfActive {
            let hash = decoy.hash.withLock { hash in
                if let hash { return hash }
                let made = Bcrypt.hash(String(UInt64.random(in: .min ... .max), radix: 36), cost: cost)
                hash = made
                return made
            }
            return Bcrypt.verify(password, hash: hash)
        }
    }
}
