import CollabCore
import Crypto
import Foundation
import Synchronization

/// Checks of the same password against the same hash made at once share one bcrypt run: a fleet of
/// agents logging in together as one user (the load tool's sessions, a team's apps after a restart)
/// costs one check and one place at the ``PasswordCheckGate``, not one each. Checks are told apart by a
/// digest of the hash and the password; no password is kept.
final class SharedPasswordChecks: Sendable {
    typealias Outcome = Result<Bool, CollabError>

    /// The checks under way, each with the callers waiting for its outcome.
    private let running = Mutex<[SHA256Digest: [CheckedContinuation<Outcome?, Never>]]>([:])

    /// The outcome of `check` for `password` against `hash`, shared with every caller that asks for the
    /// same while it runs.
    func outcome(password: String, hash: String, _ check: () async throws(CollabError) -> Bool) async throws(CollabError) -> Bool {
        let key = Self.key(password: password, hash: hash)
        let leads = running.withLock { running in
            guard running[key] == nil else { return false }
            running[key] = []
            return true
        }
        if !leads {
            let shared = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
                let joined = running.withLock { running -> Bool in
                    guard running[key] != nil else { return false }
                    running[key]?.append(continuation)
                    return true
                }
                // The check ended in between: this caller asks again (and leads, or joins the next).
                if !joined { continuation.resume(returning: nil) }
            }
            if let shared { return try shared.get() }
            return try await outcome(password: password, hash: hash, check)
        }
        let outcome: Outcome
        do throws(CollabError) {
            outcome = .success(try await check())
        } catch {
            outcome = .failure(error)
        }
        for waiting in running.withLock({ $0.removeValue(forKey: key) }) ?? [] { waiting.resume(returning: outcome) }
        return try outcome.get()
    }

    /// Callers waiting on the check of `password` against `hash` under way; `nil` when none is (for tests).
    func waiting(password: String, hash: String) -> Int? {
        running.withLock { $0[Self.key(password: password, hash: hash)]?.count }
    }

    /// What tells a check from another: a digest of the hash and the password.
    private static func key(password: String, hash: String) -> SHA256Digest {
        SHA256.hash(data: Data((hash + "\u{0}" + password).utf8))
    }
}
