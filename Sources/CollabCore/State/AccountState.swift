/// One account's state — a shard — as plain values, with the rules that change it.
///
/// Each account's entities, their indexes and (in the repository) its lock live together, so an
/// operation in one account never waits on another and costs what it reads, not what the server holds.
/// What spans accounts (names, keys, tokens, the GLOBAL configuration) is in the shared ``Directory``.
///
/// `AccountState` does no I/O and reads no clock: operations take an ``OperationContext`` and report
/// the durable changes they made into a ``ChangeSet``, which the caller persists. Reads are scoped by
/// a ``Principal`` so one account never sees another's data (another account's id is "not found").
public struct AccountState: Sendable {
    /// Names, keys and tokens across accounts.
    public internal(set) var directory: Directory
    /// The account this shard holds.
    public internal(set) var account: Account
    public internal(set) var apiKeys: [String: ApiKey] = [:]
    public internal(set) var namedAreas = IndexedTable<NamedArea>(indexes: [Indexes.areaBySiteId])
    public internal(set) var users: [String: User] = [:]
    public internal(set) var persons: [String: Person] = [:]
    public internal(set) var sessions = IndexedTable<AuthSession>(indexes: [Indexes.sessionByUser, Indexes.sessionByPerson])
    public internal(set) var jwtSettings: [String: JWTValidationSettings] = [:]
    public internal(set) var conversations = IndexedTable<Conversation>(
        indexes: [Indexes.conversationByParticipant, Indexes.conversationWithRecordings]
    )
    /// Messages per conversation, in sequence order.
    public internal(set) var messages: [String: [ConversationMessage]] = [:]
    /// FILE messages' files by id and per conversation.
    public internal(set) var files = FileIndex()
    public internal(set) var fileUploadInterceptors: [String: FileUploadInterceptor] = [:]
    public internal(set) var messageInterceptors: [String: MessageInterceptor] = [:]
    public internal(set) var clientSessions = IndexedTable<ClientSession>(
        indexes: [Indexes.clientByPerson, Indexes.clientByForegroundPerson, Indexes.clientByAccessToken, Indexes.clientByPublicId]
    )
    public internal(set) var presence = IndexedTable<PresenceRecord>(indexes: [Indexes.presenceByValue])
    public internal(set) var webhooks = IndexedTable<WebhookRegistration>(indexes: [Indexes.webhookByEvent, Indexes.webhookByName])
    public internal(set) var devices = IndexedTable<Device>(indexes: [Indexes.deviceByPerson, Indexes.deviceByToken, Indexes.deviceOfAgent])
    public internal(set) var calls = IndexedTable<Call>(indexes: [Indexes.callByOpenConversation])
    public internal(set) var pushSettings: [String: PushSettings] = [:]
    public internal(set) var coBrowsingSessions = IndexedTable<CoBrowsingSession>(indexes: [Indexes.coBrowsingByOpenConversation])
    public internal(set) var invitations = IndexedTable<Invitation>(indexes: [Indexes.invitationByOpenToken, Indexes.invitationByConversation, Indexes.invitationByOpenAgentTarget])
    public internal(set) var bots = IndexedTable<DialogBot>(indexes: [Indexes.botByName, Indexes.botForOnboarding])
    public internal(set) var botDialogs = IndexedTable<BotDialog>(indexes: [Indexes.dialogByOpenConversation])
    /// The entities of every declared kind (``EntityRegistry``), with their indexes.
    public internal(set) var declared = EntityTables()

    // Secondary indexes that are not per-table, rebuilt on load and kept in step by every operation.
    var apiKeyIdByKey: [String: String] = [:]
    var userIdByUsername: [String: String] = [:]
    var personIdBySource: [PersonSourceKey: String] = [:]
    /// A client's last activity as last stored, for clients active since (memory only; see
    /// ``touchClient(token:now:)``).
    var clientActivityStored: [String: Timestamp] = [:]
    /// Queued conversations per recipient, first queued first.
    public internal(set) var queue = QueueIndex()
    /// Work that falls due with time (missed calls, key rotation, expiring sessions and idle clients).
    public internal(set) var deadlines = DeadlineQueue()
    /// What the current operation changed in the directory (committed or reverted by the caller).
    public internal(set) var directoryLog = DirectoryLog()

    struct PersonSourceKey: Hashable, Sendable {
        var source: Person.Source
        var sourceId: String
    }

    /// The account this shard holds.
    public var accountId: String { account.id }

    /// A shard for a new account; the caller stores the account record.
    init(account: Account, directory: Directory) {
        self.account = account
        self.directory = directory
    }

    /// Rebuilds an account's shard from its stored records, registering its names and tokens in the
    /// directory.
    /// - Throws: When a record cannot be decoded (a corrupt or foreign database).
    public static func load(account: Account, records: some Sequence<StoredRecord>, directory: Directory) throws -> AccountState {
        var state = AccountState(account: account, directory: directory)
        directory.load(account)
        directory.load(.accountName(account.name), for: account.id)
        for record in records {
            switch record.kind {
            case .globalConfiguration, .account: break
            case .apiKey: state.storeApiKey(try RecordCoding.decode(ApiKey.self, from: record))
            case .namedArea:
                let area = try RecordCoding.decode(NamedArea.self, from: record)
                state.namedAreas[area.id] = area
            case .user: state.storeUser(try RecordCoding.decode(User.self, from: record))
            case .person: state.storePerson(try RecordCoding.decode(Person.self, from: record))
            case .session:
                let session = try RecordCoding.decode(AuthSession.self, from: record)
                state.sessions[session.id] = session
                state.deadlines.schedule(.sessionExpiry(session.id), at: session.expiresAt)
            case .jwtSettings:
                let settings = try RecordCoding.decode(JWTValidationSettings.self, from: record)
                state.jwtSettings[settings.id] = settings
            case .conversation:
                let conversation = try RecordCoding.decode(Conversation.self, from: record)
                state.conversations[conversation.id] = conversation
                state.queue.update(old: nil, new: conversation)
            case .message:
                let message = try RecordCoding.decode(ConversationMessage.self, from: record)
                state.messages[message.conversationId, default: []].append(message)
            case .clientSession:
                let session = try RecordCoding.decode(ClientSession.self, from: record)
                state.clientSessions[session.id] = session
                state.scheduleDeadlines(of: session)
            case .presence:
                let record = try RecordCoding.decode(PresenceRecord.self, from: record)
                state.presence[record.id] = record
            case .webhookRegistration:
                let registration = try RecordCoding.decode(WebhookRegistration.self, from: record)
                state.webhooks[registration.id] = registration
            case .device:
                let device = try RecordCoding.decode(Device.self, from: record)
                state.storeDevice(device)
            case .call:
                let call = try RecordCoding.decode(Call.self, from: record)
                state.storeCall(call)
            case .pushSettings:
                let settings = try RecordCoding.decode(PushSettings.self, from: record)
                state.pushSettings[settings.id] = settings
            case .coBrowsingSession:
                let session = try RecordCoding.decode(CoBrowsingSession.self, from: record)
                state.coBrowsingSessions[session.id] = session
            case .invitation:
                let invitation = try RecordCoding.decode(Invitation.self, from: record)
                state.invitations[invitation.id] = invitation
            case .fileUploadInterceptor:
                let interceptor = try RecordCoding.decode(FileUploadInterceptor.self, from: record)
                state.fileUploadInterceptors[interceptor.id] = interceptor
            case .messageInterceptor:
                let interceptor = try RecordCoding.decode(MessageInterceptor.self, from: record)
                state.messageInterceptors[interceptor.id] = interceptor
            case .dialogBot:
                let bot = try RecordCoding.decode(DialogBot.self, from: record)
                state.bots[bot.id] = bot
            case .botDialog:
                let dialog = try RecordCoding.decode(BotDialog.self, from: record)
                state.botDialogs[dialog.id] = dialog
                if dialog.state == .offered { state.deadlines.schedule(.botOffer(dialog.id), at: dialog.offerExpiresAt ?? dialog.creationTimestamp) }
            case .declared: try state.declared.load(record)
            }
        }
        for key in state.messages.keys { state.messages[key]?.sort { $0.sequence < $1.sequence } }
        for list in state.messages.values { for message in list where message.file != nil { state.files.add(message) } }
        for key in state.apiKeyIdByKey.keys { directory.load(.apiKey(key), for: account.id) }
        for name in state.userIdByUsername.keys { directory.load(.username(name), for: account.id) }
        for token in state.sessions.keys { directory.load(.session(token), for: account.id) }
        for token in state.clientSessions.keys { directory.load(.client(token), for: account.id) }
        state.directoryLog = DirectoryLog()
        return state
    }

    // MARK: index maintenance

    mutating func storeAccount(_ account: Account) throws(CollabError) {
        if account.name != self.account.name || directory.account(account.id) == nil {
            try directory.claim(.accountName(account.name), for: account.id, log: &directoryLog,
                                conflict: .conflict("an account named '\(account.name)' already exists"))
            if account.name != self.account.name { directory.release(.accountName(self.account.name), log: &directoryLog) }
        }
        self.account = account
        directory.put(account, log: &directoryLog)
    }

    mutating func storeApiKey(_ key: ApiKey) {
        if let old = apiKeys[key.id], old.key != key.key { apiKeyIdByKey[old.key] = nil }
        apiKeys[key.id] = key
        apiKeyIdByKey[key.key] = key.id
    }

    mutating func storeUser(_ user: User) {
        if let old = users[user.id], old.username != user.username { userIdByUsername[old.username] = nil }
        users[user.id] = user
        userIdByUsername[user.username] = user.id
    }

    mutating func storePerson(_ person: Person) {
        if let old = persons[person.id] {
            personIdBySource[PersonSourceKey(source: old.personSource, sourceId: old.sourceId)] = nil
        }
        persons[person.id] = person
        personIdBySource[PersonSourceKey(source: person.personSource, sourceId: person.sourceId)] = person.id
    }

    mutating func storeDevice(_ device: Device) {
        devices[device.id] = device
        if let keys = device.keys { deadlines.schedule(.keyRotation(device.id), at: keys.current.createdAt) }
    }

    mutating func storeCall(_ call: Call) {
        calls[call.id] = call
        if call.state == .ringing { deadlines.schedule(.callTimeout(call.id), at: call.timeoutAt) }
    }

    // MARK: scoping

    /// The account the caller acts in, which must be this shard's.
    func callerAccountId(_ principal: Principal) throws(CollabError) -> String {
        guard let accountId = principal.accountId else { throw .unauthorized("this operation needs a caller that belongs to an account") }
        guard accountId == self.accountId else { throw .notFound("Account", accountId) }
        return accountId
    }

    /// Checks that an id names this shard's account.
    func checkAccount(_ accountId: String) throws(CollabError) {
        guard accountId == self.accountId else { throw .notFound("Account", accountId) }
    }

    /// Checks that an update names the version the caller last saw.
    static func checkVersion(_ given: Int64?, current: Int64, entity: String) throws(CollabError) {
        guard let given else { throw .badRequest("\(entity) update requires the current 'version'") }
        guard given == current else {
            throw .conflict("\(entity) was modified concurrently: version \(given) is stale, the current version is \(current)")
        }
    }
}

/// The secondary indexes of the account tables.
enum Indexes {
    static let areaBySiteId = TableIndex<NamedArea>(0) { [$0.siteId] }
    static let sessionByUser = TableIndex<AuthSession>(0) { $0.userId.map { [$0] } ?? [] }
    /// Sessions by person (visitors' sessions have no user).
    static let sessionByPerson = TableIndex<AuthSession>(1) { [$0.personId] }
    static let conversationByParticipant = TableIndex<Conversation>(0) { Array(Set($0.participants.map(\.personId))).sorted() }
    /// Conversations with recordings, under one key (recorded minutes).
    static let conversationWithRecordings = TableIndex<Conversation>(1) { ($0.recordings ?? []).isEmpty ? [] : ["recorded"] }
    static let clientByPerson = TableIndex<ClientSession>(0) { [$0.personId] }
    /// Clients in the foreground with the collaboration UI closed, by person (UI visibility requests).
    static let clientByForegroundPerson = TableIndex<ClientSession>(1) { $0.appState == .foregroundUIClosed ? [$0.personId] : [] }
    /// Clients by the digest of the access token they started with (revoking the token stops them).
    static let clientByAccessToken = TableIndex<ClientSession>(2) { $0.accessTokenDigest.map { [$0] } ?? [] }
    /// Clients by their public id (a person presence in the Web API).
    static let clientByPublicId = TableIndex<ClientSession>(3) { [$0.clientId] }
    static let presenceByValue = TableIndex<PresenceRecord>(0) { [$0.presence.rawValue] }
    static let webhookByEvent = TableIndex<WebhookRegistration>(0) { Array(Set($0.events)).sorted() }
    static let webhookByName = TableIndex<WebhookRegistration>(1) { [$0.name] }
    static let deviceByPerson = TableIndex<Device>(0) { [$0.personId] }
    static let deviceByToken = TableIndex<Device>(1) { [$0.apnsToken, $0.pushKitToken, $0.fcmToken].compactMap { $0 } }
    /// Agents' devices with push tokens, under one key (inbound requests go to them).
    static let deviceOfAgent = TableIndex<Device>(2) { $0.agent == true && $0.hasTokens ? ["agent"] : [] }
    static let callByOpenConversation = TableIndex<Call>(0) { $0.state == .ended ? [] : [$0.conversationId] }
    static let coBrowsingByOpenConversation = TableIndex<CoBrowsingSession>(0) { $0.state == .ended ? [] : [$0.conversationId] }
    /// Open invitations by the token a visitor redeems (PINs are unique among open ones).
    static let invitationByOpenToken = TableIndex<Invitation>(0) { $0.state == .open ? [$0.token] : [] }
    static let invitationByConversation = TableIndex<Invitation>(1) { [$0.conversationId] }
    /// Open agent invitations and forwardings by the agent they are addressed to.
    static let invitationByOpenAgentTarget = TableIndex<Invitation>(2) { $0.state == .open && $0.targetType == "AGENT" ? $0.targetId.map { [$0] } ?? [] : [] }
    /// Dialog bots by name (unique within an account).
    static let botByName = TableIndex<DialogBot>(0) { [$0.name] }
    /// Active bots that onboard visitors, under one key.
    static let botForOnboarding = TableIndex<DialogBot>(1) {
        $0.webhookStatus == .active && ($0.onboardingFilter == .visitors || $0.onboardingFilter == .both) ? ["ONBOARDING"] : []
    }
    /// Offered and open bot dialogs by conversation.
    static let dialogByOpenConversation = TableIndex<BotDialog>(0) { $0.state == .finished ? [] : [$0.conversationId] }
}
