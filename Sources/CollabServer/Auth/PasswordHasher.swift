import CollabCore
import HummingbirdBcrypt
import NIOCore
import NIOPosix
import Synchronization

/// Hashes and checks passwords with bcrypt, off the cooperative thread pool (bcrypt is slow on
/// purpose and would otherwise stall every other request).
struct PasswordHasher: Sendable {
    /// Bcrypt work factor.
    var cost: UInt8
    /// Admits the checks of a caller's password (``check(_:against:account:)``, ``checkAgainstDecoy(_:account:)``).
    let gate: PasswordCheckGate
    /// Lets callers checking the same password against the same hash at once share one check.
    let shared = SharedPasswordChecks()

    init(cost: UInt8, gate: PasswordCheckGate.Limits = .default(cores: System.coreCount)) {
        self.cost = cost
        self.gate = PasswordCheckGate(limits: gate)
    }
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

    /// Whether `password` matches `hash`, at once: for the operator's own checks (a seed's passwords).
    func verify(_ password: String, against hash: String) async throws -> Bool {
        decoy.checks.add(1, ordering: .relaxed)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Whether a caller's `password` matches `hash`, a user's of `account`, once the gate admits the check
    /// (callers asking the same at once share one).
    /// - Throws: `tooManyRequests` when the account (or the server) has its most checks admitted.
    func check(_ password: String, against hash: String, account: String) async throws(CollabError) -> Bool {
        try await shared.outcome(password: password, hash: hash) { () async throws(CollabError) -> Bool in
            try await gate.run(key: account) { () async -> Bool in (try? await verify(password, against: hash)) ?? false }
        }
    }

    /// Spends what checking a password costs, for a username that is not there (or has no password), so
    /// a refusal takes as long whether the username exists or not. Never matches. Admitted by the gate
    /// as a check of `account`, the one the username is counted with.
    /// - Throws: `tooManyRequests` when that account's checks (or the server's) are at their most.
    func checkAgainstDecoy(_ password: String, account: String) async throws(CollabError) {
        try await gate.run(key: account) { await spendOnDecoy(password) }
    }

    private func spendOnDecoy(_ password: String) async {
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
