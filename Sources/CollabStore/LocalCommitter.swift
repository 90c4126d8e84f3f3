import CollabCore
import Synchronization

/// The commit path of a process that owns its store (memory, SQLite, a lone PostgreSQL): staged commits
/// go to the group-commit writer from inside their operation's locks, and each one, once durable, is
/// numbered and handed to the sink in the writer's order — which is the order the shards changed in.
final class LocalCommitter: Committer {
    private struct Numbering {
        var sequence: Int64 = 0
        var nextEventId: Int64
    }

    private let store: any Store
    private let writer: GroupCommitWriter
    private let sink: any CommitSink
    /// Numbers commits and live events; the sink is called under it, so batches reach it in order.
    private let numbering: Mutex<Numbering>

    /// - Parameter firstEventId: The first live event id (derived from the start time by the server, so
    ///   ids keep increasing across restarts).
    init(store: any Store, sink: any CommitSink, firstEventId: Int64) {
        self.store = store
        self.writer = GroupCommitWriter(store: store)
        self.sink = sink
        self.numbering = Mutex(Numbering(nextEventId: firstEventId))
        sink.opened(at: CommitPosition(sequence: 0, nextEventId: firstEventId))
    }

    var isHealthy: Bool { writer.failure == nil }

    func storageProblem() async -> String? {
        if let failure = writer.failure { return "storage failed (\(failure)); the server accepts no writes" }
        return await store.checkHealth().map { "storage is unreachable: \($0)" }
    }

    func runsTimedWork() async -> Bool { true }

    func commit<Result: Sendable>(
        _ scope: ChangeLogScope, accounts: [String], in repository: StateRepository, _ operation: (CommitStage) throws(CollabError) -> Result
    ) async throws -> Result {
        if let failure = writer.failure {
            throw CollabError(.unavailable, "storage failed earlier and accepts no more writes: \(failure)")
        }
        let ticket = CommitTicket()
        let result = try operation(CommitStage { staged in self.submit(staged, ticket: ticket) })
        try await ticket.wait()
        return result
    }

    /// Called under the operation's locks. Event-only commits go through the writer too, so events keep
    /// commit order.
    private func submit(_ staged: StagedCommit, ticket: CommitTicket) {
        guard !staged.changes.isEmpty || !staged.events.isEmpty || !staged.effects.isEmpty else { return }
        ticket.stage()
        writer.submit(staged.changes) { [self] error in
            if let error {
                ticket.finish(CollabError(.unavailable, "storage failed: \(error)"))
                return
            }
            numbering.withLock { numbering in
                numbering.sequence += 1
                let events = CommittedEvent.numbering(staged.events, from: &numbering.nextEventId)
                sink.committed(
                    CommittedBatch(
                        sequence: numbering.sequence, accountIds: staged.accountIds, events: events, effects: staged.effects, isLocal: true,
                        endedConnections: ReplicatedEffects(endedBy: staged.changes, deletedAccounts: staged.deletedAccountIds)
                    )
                )
            }
            ticket.finish(nil)
        }
    }

    func close() async throws {
        await writer.waitUntilIdle()
        try await store.close()
    }
}
