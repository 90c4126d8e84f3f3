import CollabCore
import Synchronization

extension PushPipeline {
    /// A push on its way through the pipeline, numbered when it was queued, so a reset can tell the
    /// pushes it made history of from those that came after it.
    struct Queued: Sendable {
        var push: ResolvedPush
        var sequence: Int64
    }

    /// How far each account's pushes (or all) were forgotten: every push numbered at or below the mark
    /// is dropped before composition and makes no further delivery attempt.
    struct ForgetMarks: Sendable {
        var next: Int64 = 1
        var all: Int64 = 0
        var byAccount: [String: Int64] = [:]

        /// Numbers the next push.
        mutating func number() -> Int64 {
            defer { next += 1 }
            return next
        }

        func isForgotten(_ sequence: Int64, accountId: String) -> Bool {
            sequence <= all || sequence <= byAccount[accountId] ?? 0
        }
    }

    /// Forgets the pushes of an account (`nil`: every account) as a reset does: its outbox entries, and
    /// every push queued before the call, whether still to be composed, waiting to be sent or between
    /// two attempts. None of them reaches a push service afterwards, so one test's pushes never arrive
    /// in the next test's sink.
    public func forget(accountId: String?) {
        forgetMarks.withLock { marks in
            if let accountId { marks.byAccount[accountId] = marks.next - 1 } else { marks = ForgetMarks(next: marks.next, all: marks.next - 1) }
        }
        _ = sending.removeWaiting(account: accountId)
        if let accountId { outbox.removeAll(accountId: accountId) } else { outbox.clear() }
    }

    /// Whether the push numbered `sequence` was forgotten by a reset since it was queued.
    func isForgotten(_ sequence: Int64, accountId: String) -> Bool {
        forgetMarks.withLock { $0.isForgotten(sequence, accountId: accountId) }
    }
}
