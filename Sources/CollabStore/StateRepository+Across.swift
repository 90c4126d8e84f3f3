public import CollabCore
import Synchronization

/// Changes that span accounts: seeds, resets.
extension StateRepository {
    /// Applies a change across accounts atomically: the shards of the accounts `names` refers to are
    /// locked (in id order), copied into a ``ShardSet``, changed by `body`, and swapped in — with the new
    /// accounts' shards — only if `body` succeeds. Costs the accounts it touches, not the whole state.
    public func writeAcross<Result: Sendable>(
        accountNames names: [String], _ body: (inout ShardSet, inout ChangeSet) throws(CollabError) -> Result
    ) async throws -> Result {
        try await committer.commit(.everything, accounts: [], in: self) { stage throws(CollabError) in
            // Looked up inside the commit: on a replica, after catching up with the other replicas.
            let ids = Set(names.compactMap { directory.accountId(for: .accountName($0)) })
            let involved = try ids.sorted().map { id throws(CollabError) in try shard(id) }
            var result: Result?
            try withLocks(involved[...], collected: [:]) { boxes throws(CollabError) in
                let (outcome, staged, updated) = try changeAcross(boxes, body)
                result = outcome
                stage(staged)
                return updated
            }
            guard let result else { throw CollabError(.internalError, "the change across accounts did not run") }
            return result
        }
    }

    /// The core of ``writeAcross(accountNames:_:)``: runs `body` on copies of the locked shards and
    /// returns its result, its commit (effects resolved against the new states) and the boxes to swap in
    /// (new accounts' shards are added).
    private func changeAcross<Result>(
        _ boxes: [String: Shard.Box], _ body: (inout ShardSet, inout ChangeSet) throws(CollabError) -> Result
    ) throws(CollabError) -> (Result, StagedCommit, [String: Shard.Box]) {
        var set = ShardSet(directory: directory, states: boxes.mapValues { $0.state })
        for id in set.states.keys { set.states[id]?.resetDirectoryLog() }
        var changes = ChangeSet()
        let result: Result
        do throws(CollabError) {
            result = try body(&set, &changes)
        } catch {
            for log in set.logs { directory.revert(log) }
            throw error
        }
        for log in set.logs { directory.commit(log) }
        var staged = StagedCommit(changes: changes.changes, events: changes.events, accountIds: set.states.keys.sorted())
        var updated: [String: Shard.Box?] = [:]
        for (id, var state) in set.states {
            state.resetDirectoryLog()
            staged.events = resolver.named(staged.events, in: state)
            staged.effects.append(contentsOf: resolver.resolve(changes, in: state))
            updated[id] = install(state, replacing: boxes[id])
        }
        return (result, staged, updated.compactMapValues { $0 })
    }

    /// Stores the virtual clock's setting, durably (a restart starts from it, see ``storedClock``), and on
    /// every replica of a cluster: an entry of its own in the log.
    public func storeClock(_ setting: ClockSetting) async throws {
        try await committer.commit(.everything, accounts: [], in: self) { stage throws(CollabError) in
            stage(StagedCommit(changes: [.put(setting)], clock: setting))
        }
    }

    /// Removes every account (a full reset): every shard is locked in turn and emptied.
    public func removeAll() async throws {
        try await committer.commit(.everything, accounts: [], in: self) { stage throws(CollabError) in
            let all = shards.withLock { $0.values.sorted { $0.accountId < $1.accountId } }
            var changes = ChangeSet()
            for shard in all {
                shard.withLock { box in
                    box.state.resetDirectoryLog()
                    box.state.removeAccountData(keepAccount: false, changes: &changes)
                    directory.commit(box.state.directoryLog)
                    box.state.resetDirectoryLog()
                }
            }
            shards.withLock { shards in for shard in all { shards[shard.accountId] = nil } }
            var log = DirectoryLog()
            if directory.globalConfiguration != GlobalConfiguration() {
                try AccountState.replaceGlobal(GlobalConfiguration(), directory: directory, log: &log, changes: &changes)
            }
            stage(StagedCommit(changes: changes.changes, events: changes.events, accountIds: all.map(\.accountId)))
        }
    }

    /// Puts `state` in place of a locked shard's (the new box to swap in), or, for an account that had no
    /// shard, in a shard of its own (`nil`: nothing to swap).
    func install(_ state: AccountState, replacing box: Shard.Box?) -> Shard.Box? {
        guard var box else {
            let shard = Shard(state)
            shard.withLock { scheduleNext(&$0, accountId: state.accountId) }
            shards.withLock { $0[state.accountId] = shard }
            return nil
        }
        box.state = state
        scheduleNext(&box, accountId: state.accountId)
        return box
    }

    /// Locks `shards` one after another and runs `body` with all their boxes; the boxes `body` returns
    /// replace the locked ones.
    func withLocks(
        _ remaining: ArraySlice<Shard>, collected: [String: Shard.Box], _ body: ([String: Shard.Box]) throws(CollabError) -> [String: Shard.Box]
    ) throws(CollabError) {
        guard let first = remaining.first else {
            _ = try body(collected)
            return
        }
        var error: CollabError?
        first.withLock { box in
            var collected = collected
            collected[first.accountId] = box
            do throws(CollabError) {
                try withLocks(remaining.dropFirst(), collected: collected) { boxes throws(CollabError) in
                    let updated = try body(boxes)
                    if let mine = updated[first.accountId] { box = mine }
                    return updated
                }
            } catch let thrown {
                error = thrown
            }
        }
        if let error { throw error }
    }
}
