import CollabCore
import Synchronization

/// Writes change batches to a store in the order they were submitted, several batches per
/// transaction when they queue up (group commit), and reports each batch's outcome.
///
/// Submission is synchronous so callers can submit while holding the state lock: the order of
/// batches on disk is then exactly the order the in-memory state changed in.
final class GroupCommitWriter: Sendable {
    typealias Completion = @Sendable ((any Error)?) -> Void

    private struct Batch {
        var changes: [StoreChange]
        var completion: Completion
    }

    private struct Queue {
        var pending: [Batch] = []
        var draining = false
        var failure: (any Error)?
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let store: any Store
    private let queue = Mutex(Queue())
    /// The largest number of changes written in one transaction.
    private let maxChangesPerTransaction: Int

    init(store: any Store, maxChangesPerTransaction: Int = 4096) {
        self.store = store
        self.maxChangesPerTransaction = maxChangesPerTransaction
    }

    /// The first storage failure, after which every write fails.
    var failure: (any Error)? { queue.withLock { $0.failure } }

    /// Queues a batch; `completion` runs once it is durable or has failed.
    func submit(_ changes: [StoreChange], completion: @escaping Completion) {
        let startDrain: Bool = queue.withLock { queue in
            if let failure = queue.failure {
                completion(failure)
                return false
            }
            queue.pending.append(Batch(changes: changes, completion: completion))
            guard !queue.draining else { return false }
            queue.draining = true
            return true
        }
        if startDrain {
            Task { await self.drain() }
        }
    }

    /// Waits until every submitted batch has been written (or failed).
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = queue.withLock { queue in
                if !queue.draining && queue.pending.isEmpty { return true }
                queue.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func drain() async {
        while true {
            let batches: [Batch] = queue.withLock { queue in
                var taken: [Batch] = []
                var count = 0
                while let next = queue.pending.first, taken.isEmpty || count + next.changes.count <= maxChangesPerTransaction {
                    taken.append(queue.pending.removeFirst())
                    count += next.changes.count
                }
                return taken
            }
            guard !batches.isEmpty else {
                let waiters: [CheckedContinuation<Void, Never>]? = queue.withLock { queue in
                    // A batch may have arrived after the take above; keep draining if so.
                    guard queue.pending.isEmpty else { return nil }
                    queue.draining = false
                    defer { queue.idleWaiters = [] }
                    return queue.idleWaiters
                }
                guard let waiters else { continue }
                for waiter in waiters { waiter.resume() }
                return
            }
            var error: (any Error)?
            do {
                try await store.apply(batches.flatMap(\.changes))
            } catch let failure {
                error = failure
                queue.withLock { $0.failure = $0.failure ?? failure }
            }
            for batch in batches { batch.completion(error) }
        }
    }
}
