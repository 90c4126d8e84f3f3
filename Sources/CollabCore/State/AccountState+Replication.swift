import Foundation

/// Applying changes another replica committed (see ``ReplicatedChange``).
///
/// A replica of a cluster keeps its shards as read models of the database's change log: each entry a
/// replica commits carries the records it put or deleted, and every other replica applies them here,
/// keeping the indexes, the deadline queue and the directory in step the way ``load(account:records:directory:)``
/// builds them. Applying is idempotent (a put replaces by id, a delete of something absent is nothing),
/// so an entry seen twice after a rebuild does no harm.
extension AccountState {
    /// A shard for an account another replica created; its records follow in the same log entry.
    public static func replica(of account: Account, directory: Directory) -> AccountState {
        directory.load(account)
        directory.load(.accountName(account.name), for: account.id)
        return AccountState(account: account, directory: directory)
    }

    /// Applies one change from the log.
    /// - Parameter effects: Collects what the change ends for live connections (sessions, users, the
    ///   account), as the replica that made it ended them.
    /// - Returns: `false` when the change removed the account itself (the caller drops the shard
    ///   unless the same entry puts the account back, as a reset does), else `true`.
    /// - Throws: When a record cannot be decoded.
    public mutating func applyReplicated(_ change: ReplicatedChange, effects: inout ReplicatedEffects) throws -> Bool {
        switch change {
        case .put(let record): try applyPut(record, effects: &effects)
        case .delete(let kind, let id): applyDelete(kind, id, effects: &effects)
        case .deleteAccountData(let id):
            guard id == accountId else { return true }
            unloadDirectoryEntries()
            let kept = AccountState(account: account, directory: directory)
            self = kept
            return false
        }
        return true
    }

    /// Removes the shard's names and tokens from the directory before it is rebuilt from storage.
    public func unloadReplicaDirectoryEntries() {
        unloadDirectoryEntries()
    }

    /// Removes the shard's names and tokens from the directory (a reset or deletion elsewhere).
    func unloadDirectoryEntries() {
        for key in declared.globalKeys { directory.unload(key) }
        for name in userIdByUsername.keys { directory.unload(.username(name)) }
        for token in sessions.keys { directory.unload(.session(token)) }
        for token in clientSessions.keys { directory.unload(.client(token)) }
    }

    /// Changes a declared entity as another replica did, moving its global keys in the directory.
    private mutating func replicate<Failure: Error>(
        declaredRecord recordId: String, _ change: (inout EntityTables) throws(Failure) -> Void
    ) throws(Failure) {
        let before = declared.globalKeys(ofRecord: recordId)
        try change(&declared)
        let after = declared.globalKeys(ofRecord: recordId)
        for key in before where !after.contains(key) { directory.unload(key) }
        for key in after where !before.contains(key) { directory.load(key, for: accountId) }
    }

    private mutating func applyPut(_ record: StoredRecord, effects: inout ReplicatedEffects) throws {
        switch record.kind {
        case .globalConfiguration: directory.load(try RecordCoding.decode(GlobalConfiguration.self, from: record))
        case .virtualClock: break  // server-wide, set from the log entry's clock
        case .account:
            let updated = try RecordCoding.decode(Account.self, from: record)
            if updated.name != account.name { directory.unload(.accountName(account.name)) }
            account = updated
            directory.load(updated)
            directory.load(.accountName(updated.name), for: updated.id)
        case .apiKey: try replicate(declaredRecord: DeclaredRecord<ApiKey>.recordId(record.id)) { _ = try $0.load(legacy: record) }
        case .namedArea: try declared.load(legacy: record)
        case .user:
            let user = try RecordCoding.decode(User.self, from: record)
            if let old = users[user.id], old.username != user.username { directory.unload(.username(old.username)) }
            // A changed role or password ends the user's live connections.
            if let old = users[user.id], old.authorizationRole != user.authorizationRole || old.passwordHash != user.passwordHash {
                effects.endedUserIds.append(user.id)
            }
            storeUser(user)
            directory.load(.username(user.username), for: accountId)
        case .person: storePerson(try RecordCoding.decode(Person.self, from: record))
        case .session:
            let session = try RecordCoding.decode(AuthSession.self, from: record)
            // A session switched to another account or identity ends its live connections.
            if let old = sessions[session.id],
                old.accountId != session.accountId || old.actingAccountId != session.actingAccountId
                    || old.impersonatedUserId != session.impersonatedUserId || old.role != session.role
            {
                effects.endedSessionKeys.append(session.id)
            }
            sessions[session.id] = session
            deadlines.schedule(.sessionExpiry(session.id), at: session.expiresAt)
            directory.load(.session(session.id), for: accountId)
        case .jwtSettings:
            let settings = try RecordCoding.decode(JWTValidationSettings.self, from: record)
            jwtSettings[settings.id] = settings
        case .conversation:
            let conversation = try RecordCoding.decode(Conversation.self, from: record)
            let old = conversations[conversation.id]
            conversations[conversation.id] = conversation
            indexConversation(old: old, new: conversation)
        case .message:
            let message = try RecordCoding.decode(ConversationMessage.self, from: record)
            if !replaceStoredMessage(message) {
                storeNewMessage(message, inSequence: true)
                files.add(message)
            }
        case .clientSession:
            var session = try RecordCoding.decode(ClientSession.self, from: record)
            // Activity this replica served since is newer than what another replica stored.
            if let local = clientSessions[session.id], local.lastSeenAt > session.lastSeenAt { session.lastSeenAt = local.lastSeenAt }
            clientSessions[session.id] = session
            scheduleDeadlines(of: session)
            directory.load(.client(session.id), for: accountId)
        case .presence:
            let presenceRecord = try RecordCoding.decode(PresenceRecord.self, from: record)
            presence[presenceRecord.id] = presenceRecord
        case .webhookRegistration: try declared.load(legacy: record)
        case .device: storeDevice(try RecordCoding.decode(Device.self, from: record))
        case .call: storeCall(try RecordCoding.decode(Call.self, from: record))
        case .pushSettings:
            let settings = try RecordCoding.decode(PushSettings.self, from: record)
            pushSettings[settings.id] = settings
        case .coBrowsingSession:
            let session = try RecordCoding.decode(CoBrowsingSession.self, from: record)
            coBrowsingSessions[session.id] = session
        case .invitation:
            let invitation = try RecordCoding.decode(Invitation.self, from: record)
            invitations[invitation.id] = invitation
        case .fileUploadInterceptor:
            let interceptor = try RecordCoding.decode(FileUploadInterceptor.self, from: record)
            fileUploadInterceptors[interceptor.id] = interceptor
        case .messageInterceptor:
            let interceptor = try RecordCoding.decode(MessageInterceptor.self, from: record)
            messageInterceptors[interceptor.id] = interceptor
        case .dialogBot: try declared.load(legacy: record)
        case .botDialog:
            let dialog = try RecordCoding.decode(BotDialog.self, from: record)
            botDialogs[dialog.id] = dialog
            if dialog.state == .offered { deadlines.schedule(.botOffer(dialog.id), at: dialog.offerExpiresAt ?? dialog.creationTimestamp) }
        case .declared: try replicate(declaredRecord: record.id) { _ = try $0.load(record) }
        }
    }

    private mutating func applyDelete(_ kind: EntityKind, _ id: String, effects: inout ReplicatedEffects) {
        switch kind {
        case .globalConfiguration, .virtualClock, .account, .jwtSettings, .presence, .pushSettings:
            // Never deleted one by one (they go with their account).
            break
        // Calls, co-browsing sessions, invitations and bot dialogs go with their conversation.
        case .call: _ = calls.removeValue(forKey: id)
        case .botDialog: _ = botDialogs.removeValue(forKey: id)
        case .invitation: _ = invitations.removeValue(forKey: id)
        case .coBrowsingSession: _ = coBrowsingSessions.removeValue(forKey: id)
        // A declared kind's write removes the record it had before it joined the layer; the entity
        // itself goes with its declared record.
        case .apiKey, .namedArea, .dialogBot, .webhookRegistration: break
        case .user:
            guard let old = users.removeValue(forKey: id) else { return }
            userIdByUsername[old.username] = nil
            directory.unload(.username(old.username))
            effects.endedUserIds.append(id)
        case .person:
            guard let old = persons.removeValue(forKey: id) else { return }
            personIdBySource[PersonSourceKey(source: old.personSource, sourceId: old.sourceId)] = nil
        case .session:
            guard sessions.removeValue(forKey: id) != nil else { return }
            directory.unload(.session(id))
            effects.endedSessionKeys.append(id)
        case .conversation:
            guard let removed = conversations.removeValue(forKey: id) else { return }
            indexConversation(old: removed, new: nil)
            files.removeConversation(id)
            removeMessages(ofConversation: id)
        case .message:
            // Messages go with their conversation, which removed them already.
            break
        case .clientSession:
            guard clientSessions.removeValue(forKey: id) != nil else { return }
            clientActivityStored[id] = nil
            directory.unload(.client(id))
            effects.endedSessionKeys.append(id)
        case .device: _ = devices.removeValue(forKey: id)
        case .fileUploadInterceptor: fileUploadInterceptors[id] = nil
        case .messageInterceptor: messageInterceptors[id] = nil
        case .declared: replicate(declaredRecord: id) { $0.remove(recordId: id) }
        }
    }
}

/// What applying another replica's changes ends for this replica's live connections.
public struct ReplicatedEffects: Sendable, Equatable {
    /// Login sessions and client tokens that ended or changed identity.
    public var endedSessionKeys: [String] = []
    /// Users deleted, or whose role or password changed.
    public var endedUserIds: [String] = []
    /// Accounts deleted.
    public var removedAccountIds: [String] = []

    public init() {}

    /// The login sessions and started clients that `changes` remove: whatever removed them, the live
    /// connections opened with them close. And `deletedAccounts`, the accounts the commit deleted (a
    /// reset, or a snapshot that replaces every account, removes their data too, but is no deletion).
    public init(endedBy changes: [StoreChange], deletedAccounts: [String] = []) {
        for case .delete(let kind, let id) in changes where kind == .session || kind == .clientSession { endedSessionKeys.append(id) }
        removedAccountIds = deletedAccounts
    }

    public var isEmpty: Bool { endedSessionKeys.isEmpty && endedUserIds.isEmpty && removedAccountIds.isEmpty }
}

/// One change in a replicated log entry: ``StoreChange`` with the entity already encoded.
public enum ReplicatedChange: Sendable, Codable, Equatable {
    case put(StoredRecord)
    case delete(EntityKind, id: String)
    case deleteAccountData(String)

    /// Encodes a store change for the log.
    public init(_ change: StoreChange) {
        switch change {
        case .put(let entity): self = .put(StoredRecord(encoding: entity))
        case .delete(let kind, let id): self = .delete(kind, id: id)
        case .deleteAccountData(let id): self = .deleteAccountData(id)
        }
    }
}

extension StoredRecord: Codable {
    private enum CodingKeys: String, CodingKey { case kind, id, accountId, body }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try container.decode(EntityKind.self, forKey: .kind), id: try container.decode(String.self, forKey: .id),
            accountId: try container.decodeIfPresent(String.self, forKey: .accountId),
            body: Data(try container.decode(String.self, forKey: .body).utf8)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(accountId, forKey: .accountId)
        // The body is JSON already: kept as text so the log stays readable.
        try container.encode(String(decoding: body, as: UTF8.self), forKey: .body)
    }
}
