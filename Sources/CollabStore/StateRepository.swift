public import CollabCore
import Synchronization

/// The server's working state in memory, written through to a ``Store``.
///
/// Reads take a lock and copy out what they need. Writes change the in-memory state under the lock,
/// submit their changes to the group-commit writer in the same critical section, and return only once
/// the changes are durable, so a 2xx always means "stored". A later reader may see a change a few
/// milliseconds before it is durable; if storage fails, every later write fails with `unavailable`.
public final class StateRepository: Sendable {
    private let state: Mutex<CollabState>
    private let writer: GroupCommitWriter
    private let store: any Store
    private let publish: @Sendable ([DomainEvent], [PushIntent]) -> Void

    /// Loads the state from `store`.
    /// - Parameters:
    ///   - store: Where changes are written.
    ///   - publish: Receives the events and push intents of each write once it is durable, in commit order.
    public init(store: any Store, publish: @escaping @Sendable ([DomainEvent], [PushIntent]) -> Void = { _, _ in }) async throws {
        self.store = store
        self.publish = publish
        self.state = Mutex(try CollabState(records: try await store.loadAll()))
        self.writer = GroupCommitWriter(store: store)
    }

    /// Whether storage still accepts writes.
    public var isHealthy: Bool { writer.failure == nil }

    /// Runs `body` against the current state.
    public func read<Result: Sendable>(_ body: (borrowing CollabState) throws(CollabError) -> Result) throws(CollabError) -> Result {
        try state.withLock { state throws(CollabError) -> Result in try body(state) }
    }

    /// Changes the state and waits until the change is durable.
    ///
    /// `body` must check everything before it changes anything (the operations on ``CollabState`` do):
    /// when it throws, nothing it did is persisted. Use ``writeAtomically(_:)`` for multi-step changes.
    public func write<Result: Sendable>(
        _ body: (inout CollabState, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        try await commit { state throws(CollabError) in
            var changes = ChangeSet()
            let result = try body(&state, &changes)
            return (result, changes)
        }
    }

    /// Changes a copy of the state and swaps it in only if `body` succeeds, then waits until durable.
    public func writeAtomically<Result: Sendable>(
        _ body: (inout CollabState, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        try await commit { state throws(CollabError) in
            var copy = state
            var changes = ChangeSet()
            let result = try body(&copy, &changes)
            state = copy
            return (result, changes)
        }
    }

    private func commit<Result: Sendable>(
        _ body: (inout CollabState) throws(CollabError) -> (Result, ChangeSet)
    ) async throws -> Result {
        if let failure = writer.failure {
            throw CollabError(.unavailable, "storage failed earlier and accepts no more writes: \(failure)")
        }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            do {
                try state.withLock { state throws(CollabError) in
                    let (result, changes) = try body(&state)
                    if changes.isEmpty {
                        continuation.resume(returning: result)
                    } else {
                        // Event-only writes go through the writer too, so events keep commit order.
                        let events = changes.events
                        let pushes = changes.pushes
                        let publish = self.publish
                        writer.submit(changes.changes) { error in
                            if let error {
                                continuation.resume(throwing: CollabError(.unavailable, "storage failed: \(error)"))
                            } else {
                                if !events.isEmpty || !pushes.isEmpty { publish(events, pushes) }
                                continuation.resume(returning: result)
                            }
                        }
                    }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Waits for pending writes, then closes the store.
    public func close() async throws {
        await writer.waitUntilIdle()
        try await store.close()
    }
}
