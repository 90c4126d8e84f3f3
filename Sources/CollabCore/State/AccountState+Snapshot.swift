/// Snapshots of one shard: what it stores, and a shard built from a snapshot taking its place.
extension AccountState {
    /// Every entity the shard stores, the account record first (what the store holds for this account).
    public var storedEntities: [any StorableEntity] {
        var entities: [any StorableEntity] = [account]
        entities.append(contentsOf: apiKeys.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: namedAreas.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: users.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: persons.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: sessions.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: jwtSettings.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: conversations.values.sorted { $0.id < $1.id } as [any StorableEntity])
        for key in messages.keys.sorted() { entities.append(contentsOf: (messages[key] ?? []) as [any StorableEntity]) }
        entities.append(contentsOf: clientSessions.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: presence.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: webhooks.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: devices.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: calls.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: pushSettings.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: coBrowsingSessions.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: invitations.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: fileUploadInterceptors.values.sorted { $0.id < $1.id } as [any StorableEntity])
        entities.append(contentsOf: messageInterceptors.values.sorted { $0.id < $1.id } as [any StorableEntity])
        return entities
    }

    /// The directory entries the shard owns: its name, API keys, usernames, session and client tokens.
    public var directoryKeys: [Directory.Key] {
        [.accountName(account.name)] + apiKeyIdByKey.keys.map { .apiKey($0) } + userIdByUsername.keys.map { .username($0) }
            + sessions.keys.map { .session($0) } + clientSessions.keys.map { .client($0) }
    }

    /// Builds a shard from a snapshot's records without touching the live directory (it loads into a
    /// scratch one), checking that every record decodes and belongs to the account.
    /// - Throws: `badRequest` naming the first record that does not fit.
    public static func fromSnapshot(_ data: Snapshot.AccountData) throws(CollabError) -> AccountState {
        let state: AccountState
        do {
            state = try AccountState.load(account: data.account, records: data.records, directory: Directory())
        } catch {
            throw .badRequest("account '\(data.account.name)' of the snapshot has a record that does not decode: \(error)")
        }
        for entity in state.storedEntities where entity.storageAccountId != data.account.id {
            throw .badRequest("account '\(data.account.name)' of the snapshot holds a \(type(of: entity).kind.rawValue) '\(entity.id)' of another account")
        }
        return state
    }

    /// Moves a shard built by ``fromSnapshot(_:)`` into `directory`: registers its account and entries
    /// there without a log. The caller has checked that no other account holds them.
    public mutating func adopt(into directory: Directory) {
        self.directory = directory
        directory.load(account)
        for key in directoryKeys { directory.load(key, for: accountId) }
        directoryLog = DirectoryLog()
    }
}
