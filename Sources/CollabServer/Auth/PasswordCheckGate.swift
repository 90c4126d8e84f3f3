import CollabCore
import Synchronization

/// Admits password checks (bcrypt, slow on purpose) so that guessing cannot take the machine: at most
/// ``Limits/running`` run at once, leaving the rest of the thread pool they share to file reads and
/// writes; the others wait, handed the next free slot in turn by key (an account, which a username no
/// account has is counted with too), so one account's flood delays another's check by one check at most.
/// Checks admitted (running or waiting) are bounded per key and for the server: beyond either, a check
/// is refused at once with a 429, and only the key at its bound is refused while the server has room.
final class PasswordCheckGate: Sendable {
    /// How much may run and wait.
    struct Limits: Sendable, Equatable {
        /// Checks running at once.
        var running: Int
        /// Checks admitted at once (running or waiting), all keys together.
        var admitted: Int
        /// Checks of one key admitted at once.
        var admittedPerKey: Int

        /// Half the cores run checks (at least one); 32 admitted, 8 of one key.
        static func `default`(cores: Int) -> Limits {
            Limits(running: max(1, cores / 2), admitted: 32, admittedPerKey: 8)
        }
    }

    /// The key of checks for usernames no account has while the server has no account.
    static let unknownKey = ""

    private struct State {
        var running = 0
        var admitted = 0
        var admittedByKey: [String: Int] = [:]
        /// Checks waiting for a slot, oldest first, by key; `order` gives the keys their turns.
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
        var order: [String] = []
        var turn = 0

        /// The oldest waiting check of the next key in turn, taken out of the queue.
        mutating func nextWaiting() -> CheckedContinuation<Void, Never>? {
            guard !order.isEmpty else { return nil }
            let index = turn % order.count
            let key = order[index]
            guard var queue = waiting[key], !queue.isEmpty else { return nil }
            let next = queue.removeFirst()
            if queue.isEmpty {
                waiting[key] = nil
                order.remove(at: index)
                turn = order.isEmpty ? 0 : index % order.count
            } else {
                waiting[key] = queue
                turn = (index + 1) % order.count
            }
            return next
        }
    }

    let limits: Limits
    private let state = Mutex(State())

    init(limits: Limits) {
        self.limits = limits
    }

    /// Runs `check` once a slot is free.
    /// - Throws: `tooManyRequests` (429, `Retry-After`) when `key` or the server has its most checks
    ///   admitted; `check` does not run.
    func run<Result: Sendable>(key: String, _ check: () async -> Result) async throws(CollabError) -> Result {
        try admit(key)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.running < limits.running else {
                    if state.waiting[key] == nil { state.order.append(key) }
                    state.waiting[key, default: []].append(continuation)
                    return false
                }
                state.running += 1
                return true
            }
            if now { continuation.resume() }
        }
        let result = await check()
        leave(key)
        return result
    }

    /// Checks of `key` admitted (running or about to wait or waiting) and waiting for a slot, and checks
    /// running, all keys together.
    func counts(key: String) -> (admitted: Int, waiting: Int, running: Int) {
        state.withLock { ($0.admittedByKey[key] ?? 0, $0.waiting[key]?.count ?? 0, $0.running) }
    }

    private func admit(_ key: String) throws(CollabError) {
        try state.withLock { state throws(CollabError) in
            guard state.admitted < limits.admitted else {
                throw .tooManyRequests(
                    "the server's password checks are at their most at once (\(limits.admitted)); retry shortly", retryAfterSeconds: 1)
            }
            guard state.admittedByKey[key, default: 0] < limits.admittedPerKey else {
                throw .tooManyRequests(
                    "this account's password checks are at their most at once (\(limits.admittedPerKey)); retry shortly", retryAfterSeconds: 1)
            }
            state.admitted += 1
            state.admittedByKey[key, default: 0] += 1
        }
    }

    /// A check ended: its slot goes to the next waiting check in turn.
    private func leave(_ key: String) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.admitted -= 1
            let left = state.admittedByKey[key, default: 1] - 1
            state.admittedByKey[key] = left > 0 ? left : nil
            guard let next = state.nextWaiting() else {
                state.running -= 1
                return nil
            }
            return next
        }
        next?.resume()
    }
}
