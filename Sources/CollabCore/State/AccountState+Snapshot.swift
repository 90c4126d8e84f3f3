import CollabWire

/// Snapshots of one shard: what it stores, and a shard built from a snapshot taking its place.
extension AccountState {
    /// Every entity the shard stores, the account record first (what the store holds for this account).
    public var storedEntities: [any StorableEntity] {
        var entities: [any StorableEntity] = [account]
        entities.append(contentsOf: users.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: persons.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: sessions.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: jwtSettings.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: conversations.values.sorted { $0.id < $1.id } as [any StorableEntity])
        for key in messages.keys.sorted() { entities.append(contentsOf: (messages[key] ?? []).map { $0 as any StorableEntity }) }
        entities.append(contentsOf: clientSessions.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: presence.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: devices.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: calls.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: pushSettings.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: coBrowsingSessions.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: invitations.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: fileUploadInterceptors.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: messageInterceptors.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: botDialogs.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: declared.storedEntities)
        return entities
    }

    /// The directory entries the shard owns: its name, API keys, usernames, session and client tokens.
    public var directoryKeys: [Directory.Key] {
        [.accountName(account.name)] + declared.globalKeys + userIdByUsername.keys.map { .username($0) }
            + sessions.keys.map { .session($0) } + clientSessions.keys.map { .client($0) }
    }

    /// Moves a shard built from a snapshot (``SnapshotReader``) into `directory`: registers its account and entries
    /// there without a log. The caller has checked that no other account holds them.
    public mutating func adopt(into directory: Directory) {
        self.directory = directory
        directory.load(account)
        for key in directoryKeys { directory.load(key, for: accountId) }
        directoryLog = DirectoryLog()
    }
}

extension AccountState {
    /// Checks the files a snapshot brought against the FILE messages of the shard built from it: each
    /// file is named by a FILE message of the same conversation and has its size and SHA-256 (the
    /// download's `ETag`), so a restored download serves exactly what was uploaded.
    /// - Throws: `badRequest` naming the first file that does not fit.
    func checkFileContents(_ files: [SnapshotReader.StagedFile], accountName: String) throws(CollabError) {
        for file in files {
            guard let attachment = fileMessage(file.fileId, conversationId: file.conversationId)?.file else {
                throw .badRequest(
                    "account '\(accountName)' of the snapshot holds the contents of file '\(file.fileId)', "
                        + "which no FILE message of conversation '\(file.conversationId)' names"
                )
            }
            guard attachment.size == file.size, attachment.sha256 == file.sha256 else {
                throw .badRequest(
                    "account '\(accountName)' of the snapshot holds contents of file '\(file.fileId)' "
                        + "that do not match its FILE message's size and sha256"
                )
            }
        }
    }
}
