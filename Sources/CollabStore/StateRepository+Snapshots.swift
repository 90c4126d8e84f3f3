public import CollabCore
import CollabWire
import Synchronization

/// Snapshots: one account's records copied out, and accounts replaced by a snapshot's.
extension StateRepository {
    /// One account's stored records, with or without credentials. Locks the account's shard while its
    /// entities are copied; they are redacted and encoded after the lock is released.
    public func snapshot(account accountId: String, secrets: SnapshotSecrets = .included) throws(CollabError) -> Snapshot.AccountData {
        let (account, entities) = try read(account: accountId) { state in (state.account, state.storedEntities) }
        return Snapshot.AccountData(account: account, records: Self.records(entities.dropFirst(), secrets: secrets))
    }

    /// One account's stored records (with or without credentials) and, read under the same lock, the
    /// files its FILE messages name (conversation, file id, size), so the contents added later match the
    /// records exactly.
    public func snapshotWithFiles(
        account accountId: String, secrets: SnapshotSecrets = .included
    ) throws(CollabError) -> (Snapshot.AccountData, [(conversationId: String, fileId: String, size: Int64)]) {
        let (account, entities, files) = try read(account: accountId) { state in
            let files = state.files.byId.compactMap { fileId, location -> (conversationId: String, fileId: String, size: Int64)? in
                guard let attachment = state.fileMessage(fileId, conversationId: location.conversationId)?.file else { return nil }
                return (location.conversationId, fileId, attachment.size)
            }
            return (state.account, state.storedEntities, files)
        }
        let sorted = files.sorted { ($0.conversationId, $0.fileId) < ($1.conversationId, $1.fileId) }
        return (Snapshot.AccountData(account: account, records: Self.records(entities.dropFirst(), secrets: secrets)), sorted)
    }

    private static func records(_ entities: ArraySlice<any StorableEntity>, secrets: SnapshotSecrets) -> [StoredRecord] {
        entities.compactMap { SecretRedaction.apply(secrets, to: $0).map { StoredRecord(encoding: $0) } }
    }

    /// Replaces an account with a snapshot's: the account with the snapshot account's id and the one with
    /// its name (if another) lose their data, names and tokens, and the snapshot's account takes their
    /// place. Costs the accounts it replaces only; one durable batch.
    /// - Parameters:
    ///   - incoming: The snapshot's account, built by ``SnapshotReader`` in a directory of its own.
    ///   - confinement: When set, the only account the caller may replace.
    /// - Returns: The ids of the accounts replaced.
    /// - Throws: `conflict` when another account holds one of the snapshot's names, keys or tokens,
    ///   `notFound` when a confined caller would replace another account. Nothing changes then.
    @discardableResult
    public func replaceAccount(with incoming: AccountState, confinedTo confinement: String? = nil) async throws -> Set<String> {
        var incoming = incoming
        let account = incoming.account
        let newId = account.id
        let entities = incoming.storedEntities
        let keys = incoming.directoryKeys
        let directory = self.directory
        return try await committer.commit(.everything, accounts: [], in: self) { stage throws(CollabError) in
            // Looked up inside the commit: on a replica, after catching up with the other replicas.
            var ids: Set<String> = []
            if shards.withLock({ $0[newId] }) != nil { ids.insert(newId) }
            if let named = directory.accountId(for: .accountName(account.name)) { ids.insert(named) }
            if let confinement {
                guard newId == confinement else { throw CollabError.notFound("Account", newId) }
                for id in ids where id != confinement { throw CollabError.conflict("another account is named '\(account.name)'") }
            }
            let involved = ids.sorted().compactMap { id in shards.withLock { $0[id] } }
            var replaced: Set<String> = []
            try withLocks(involved[...], collected: [:]) { boxes throws(CollabError) in
                replaced = Set(boxes.keys)
                for key in keys {
                    if let owner = directory.accountId(for: key), !replaced.contains(owner) {
                        throw .conflict("another account already holds \(Self.describe(key)) of the snapshot's account '\(account.name)'")
                    }
                }
                var changes = ChangeSet()
                var updated: [String: Shard.Box] = [:]
                for (id, var box) in boxes {
                    box.state.resetDirectoryLog()
                    box.state.removeAccountData(keepAccount: false, changes: &changes)
                    directory.commit(box.state.directoryLog)
                    box.state.resetDirectoryLog()
                    updated[id] = box
                }
                incoming.adopt(into: directory)
                for entity in entities { changes.put(entity) }
                updated[newId] = install(incoming, replacing: updated[newId])
                shards.withLock { map in for id in replaced where id != newId { map[id] = nil } }
                // Another account the snapshot's takes the place of (by name) is gone for good.
                stage(
                    StagedCommit(
                        changes: changes.changes, accountIds: replaced.union([newId]).sorted(),
                        deletedAccountIds: replaced.subtracting([newId]).sorted()
                    ))
                return updated
            }
            return replaced
        }
    }

    /// Replaces everything with a server snapshot: every account goes, the GLOBAL configuration and the
    /// snapshot's accounts take their place. The whole snapshot is checked (no name, key or token given
    /// to two accounts) before anything changes.
    /// - Parameters:
    ///   - accounts: The snapshot's accounts, built by ``SnapshotReader``.
    ///   - globalConfiguration: The snapshot's GLOBAL configuration.
    public func replaceAll(with accounts: [AccountState], globalConfiguration: GlobalConfiguration?) async throws {
        var owners: [Directory.Key: String] = [:]
        for state in accounts {
            for key in state.directoryKeys {
                if let owner = owners[key], owner != state.accountId {
                    throw CollabError.badRequest("the snapshot gives \(Self.describe(key)) to two accounts")
                }
                owners[key] = state.accountId
            }
        }
        try await removeAll()
        if let global = globalConfiguration, global != GlobalConfiguration() {
            try await committer.commit(.everything, accounts: [], in: self) { stage throws(CollabError) in
                var log = DirectoryLog()
                var changes = ChangeSet()
                try AccountState.replaceGlobal(global, directory: directory, log: &log, changes: &changes)
                directory.commit(log)
                stage(StagedCommit(changes: changes.changes))
            }
        }
        for state in accounts { try await replaceAccount(with: state) }
    }

    /// A directory entry as an error message names it (secrets are not repeated).
    static func describe(_ key: Directory.Key) -> String {
        switch key {
        case .accountName(let name): "the account name '\(name)'"
        case .apiKey: "an API key"
        case .username(let name): "the username '\(name)'"
        case .session: "a session token"
        case .client: "a client token"
        }
    }
}
