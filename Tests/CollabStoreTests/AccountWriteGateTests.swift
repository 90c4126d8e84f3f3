import CollabCore
import Synchronization
import Testing

@testable import CollabStore

/// The per-account group commit of cluster writes on its own: who leads, who joins, what a batch
/// holds, and how failures reach every write.
@Suite("Account write gate")
struct AccountWriteGateTests {
    /// A commit with one deletion, named so a batch's content can be read back.
    static func changes(_ name: String) -> StagedCommit {
        StagedCommit(changes: [.delete(.namedArea, id: name)])
    }

    static func names(_ batch: StagedCommit) -> [String] {
        batch.changes.compactMap { change in
            if case .delete(_, let id) = change { return id }
            return nil
        }
    }

    @Test("the first write of a quiet account leads; writes arriving meanwhile join its batch, in order, and learn its outcome")
    func leaderAndJoiners() async throws {
        let gate = AccountWriteGate()
        guard case .leader = await gate.arrive() else { Issue.record("the first write did not lead"); return }
        // Three writes arrive while the leader is taking the lock: they wait for the batch to open.
        let joined = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for index in 1...3 {
                group.addTask {
                    guard case .joiner = await gate.arrive() else { return (index, .failure(CollabError(.conflict, "not a joiner"))) }
                    let outcome = await gate.joinAndWait { () throws(CollabError) -> (Int, StagedCommit) in
                        if index == 2 { throw CollabError(.badRequest, "write 2 is refused") }
                        return (index * 10, Self.changes("w\(index)"))
                    }
                    return (index, outcome)
                }
            }
            // The leader holds the lock and is caught up: it opens the batch with its own change,
            // which returns once every waiting write has run its operation.
            while await gate.waitingCountForTests() < 3 { await Task.yield() }
            await gate.open(with: Self.changes("leader"))
            let batch = await gate.close()
            #expect(Self.names(batch).first == "leader")
            #expect(Set(Self.names(batch).dropFirst()) == ["w1", "w3"], "a refused operation adds nothing")
            gate.finish(nil, opened: true)
            return await group.reduce(into: [Int: Result<Int, any Error>]()) { $0[$1.0] = $1.1 }
        }
        #expect((try? joined[1]?.get()) == 10)
        #expect((try? joined[3]?.get()) == 30)
        #expect((try? joined[2]?.get()) == nil, "the refused write gets its own error")
        // Quiet again: the next write leads at once.
        guard case .leader = await gate.arrive() else { Issue.record("the gate did not go idle"); return }
        gate.finish(nil, opened: false)
    }

    @Test(
        "a write arriving while the leader waits for the batch's last joiner goes to the next batch, never into a closed one",
        .timeLimit(.minutes(1))
    )
    func arrivalDuringClose() async throws {
        let gate = AccountWriteGate()
        guard case .leader = await gate.arrive() else { Issue.record("no leader"); return }
        await gate.open(with: Self.changes("leader"))
        // Let in while the batch is open, but not yet run.
        guard case .joiner = await gate.arrive() else { Issue.record("a write arriving in an open batch did not join"); return }
        let closing = Task { await gate.close() }
        while await !gate.isClosedForTests() { await Task.yield() }
        // The leader is waiting for the joiner: a write arriving now waits for the next batch.
        let late = Task { await gate.arrive() }
        while await gate.waitingCountForTests() < 1 { await Task.yield() }
        let joined = Task {
            await gate.joinAndWait { () throws(CollabError) -> (Int, StagedCommit) in (1, Self.changes("joined")) }
        }
        let batch = await closing.value
        #expect(Self.names(batch) == ["leader", "joined"])
        gate.finish(nil, opened: true)
        #expect((try? await joined.value.get()) == 1)
        // The late write leads the next batch, which starts empty.
        guard case .leader = await late.value else { Issue.record("the late write did not lead the next batch"); return }
        await gate.open(with: Self.changes("late"))
        #expect(Self.names(await gate.close()) == ["late"])
        gate.finish(nil, opened: true)
    }

    @Test("a batch that fails to commit fails every write in it; a transaction that never opened fails the waiting ones too")
    func failures() async throws {
        let gate = AccountWriteGate()
        guard case .leader = await gate.arrive() else { Issue.record("no leader"); return }
        let joiner = Task { () -> (any Error)? in
            guard case .joiner = await gate.arrive() else { return CollabError(.conflict, "not a joiner") }
            let outcome = await gate.joinAndWait { () throws(CollabError) -> (Int, StagedCommit) in (1, Self.changes("j")) }
            if case .failure(let error) = outcome { return error }
            return nil
        }
        while await gate.waitingCountForTests() < 1 { await Task.yield() }
        await gate.open(with: StagedCommit())
        _ = await gate.close()
        gate.finish(CollabError(.unavailable, "commit failed"), opened: true)
        #expect((await joiner.value as? CollabError)?.kind == .unavailable)

        // The database is gone before the batch opens: the waiting write fails at once instead of
        // leading its own doomed attempt.
        guard case .leader = await gate.arrive() else { Issue.record("no leader"); return }
        let waiting = Task { () -> Bool in
            if case .failed = await gate.arrive() { return true }
            return false
        }
        while await gate.waitingCountForTests() < 1 { await Task.yield() }
        gate.finish(CollabError(.unavailable, "no database"), opened: false)
        #expect(await waiting.value)
    }
}
