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
    public internal(set) var users = IndexedTable<User>(
        indexes: [Indexes.userByTeam],
        orders: [Indexes.userById, Indexes.userByCreation, Indexes.userByUsername, Indexes.userByFirstName, Indexes.userByLastName])
    public internal(set) var persons = IndexedTable<Person>(
        indexes: [Indexes.personByType],
        orders: [
            Indexes.personById, Indexes.personByCreation, Indexes.personByUsername, Indexes.personByFirstName, Indexes.personByLastName,
            Indexes.personByNickname,
        ])
    public internal(set) var sessions = IndexedTable<AuthSession>(
        indexes: [Indexes.sessionByUser, Indexes.sessionByPerson, Indexes.sessionByAccessToken])
    public internal(set) var jwtSettings: [String: JWTValidationSettings] = [:]
    public internal(set) var conversations = IndexedTable<Conversation>(
        indexes: [
            Indexes.conversationByParticipant, Indexes.conversationByOpenSource, Indexes.conversationByOpenParticipant,
            Indexes.conversationByState,
        ],
        orders: [Indexes.conversationById, Indexes.conversationByCreation, Indexes.conversationByEnd]
    )
    /// Messages per conversation, in sequence order.
    public internal(set) var messages: [String: MessageLog] = [:]
    /// What the messages count for against ``StoredRecordLimits/messageBytesPerAccount``.
    public internal(set) var storedMessageBytes = 0
    /// How many messages the account's conversations hold (the control API's stats), kept with the bytes.
    public internal(set) var storedMessageCount = 0
    /// FILE messages' files by id and per conversation.
    public internal(set) var files = FileIndex()
    public internal(set) var fileUploadInterceptors: [String: FileUploadInterceptor] = [:]
    public internal(set) var messageInterceptors: [String: MessageInterceptor] = [:]
    public internal(set) var clientSessions = IndexedTable<ClientSession>(
        indexes: [Indexes.clientByPerson, Indexes.clientByForegroundPerson, Indexes.clientByAccessToken, Indexes.clientByPublicId],
        orders: [Indexes.clientById, Indexes.clientByStart]
    )
    public internal(set) var presence = IndexedTable<PresenceRecord>(indexes: [Indexes.presenceByValue])
    public internal(set) var devices = IndexedTable<Device>(
        indexes: [Indexes.deviceByPerson, Indexes.deviceByToken, Indexes.deviceOfAgent], orders: [Indexes.deviceById])
    public internal(set) var calls = IndexedTable<Call>(
        indexes: [Indexes.callByOpenConversation, Indexes.callByConversation],
        orders: [Indexes.callById, Indexes.callByInitiation, Indexes.callByEnd])
    public internal(set) var pushSettings: [String: PushSettings] = [:]
    public internal(set) var coBrowsingSessions = IndexedTable<CoBrowsingSession>(
        indexes: [Indexes.coBrowsingByOpenConversation, Indexes.coBrowsingByOpenVisitor, Indexes.coBrowsingByConversation])
    public internal(set) var invitations = IndexedTable<Invitation>(indexes: [
        Indexes.invitationByOpenToken, Indexes.invitationByConversation, Indexes.invitationByOpenAgentTarget, Indexes.invitationByOpenTeamTarget,
        Indexes.invitationByOpenSecondaryTarget, Indexes.invitationByStoredState,
    ], orders: [Indexes.invitationById, Indexes.invitationByCreation])
    public internal(set) var botDialogs = IndexedTable<BotDialog>(indexes: [Indexes.dialogByOpenConversation, Indexes.dialogByConversation])
    /// The entities of every declared kind (``EntityRegistry``), with their indexes.
    public internal(set) var declared = EntityTables()

    // Secondary indexes that are not per-table, rebuilt on load and kept in step by every operation.
    var userIdByUsername: [String: String] = [:]
    var personIdBySource: [PersonSourceKey: String] = [:]
    /// A client's last activity as last stored, for clients active since (memory only; see
    /// ``touchClient(token:now:)``).
    var clientActivityStored: [String: Timestamp] = [:]
    /// Queued conversations per recipient, first queued first.
    public internal(set) var queue = QueueIndex()
    /// Each person's conversations in list order, whole and per state.
    public internal(set) var conversationHistory = ConversationHistoryIndex()
    /// Finished recordings' minutes by the day they started (`getRecordedMinutes`).
    public internal(set) var recordedMinutesByDay = RecordedMinutesIndex()
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
        var loader = Loader(account: account, directory: directory)
        for record in records { try loader.add(record) }
        return loader.finish()
    }

    /// Builds a shard record by record (a store's rows, or a snapshot as it streams in), holding each
    /// entity once: decoded from its record and kept in the shard's tables.
    public struct Loader: Sendable {
        private var state: AccountState

        /// Starts a shard for `account`, registering its name in `directory`.
        public init(account: Account, directory: Directory) {
            state = AccountState(account: account, directory: directory)
            directory.load(account)
            directory.load(.accountName(account.name), for: account.id)
        }

        /// The account the shard holds.
        public var account: Account { state.account }

        /// Decodes a record into the shard.
        /// - Returns: The entity's owning account, as the entity says.
        /// - Throws: When the record does not decode.
        @discardableResult
        public mutating func add(_ record: StoredRecord) throws -> String? {
            switch record.kind {
            case .globalConfiguration, .virtualClock, .account: return state.accountId
            case .apiKey: return try state.declared.load(legacy: record)
            case .namedArea: return try state.declared.load(legacy: record)
            case .user: return try stored(record, User.self) { $0.storeUser($1) }
            case .person: return try stored(record, Person.self) { $0.storePerson($1) }
            case .session:
                return try stored(record, AuthSession.self) { state, session in
                    state.sessions[session.id] = session
                    state.deadlines.schedule(.sessionExpiry(session.id), at: session.expiresAt)
                }
            case .jwtSettings: return try stored(record, JWTValidationSettings.self) { $0.jwtSettings[$1.id] = $1 }
            case .conversation:
                return try stored(record, Conversation.self) { state, conversation in
                    state.conversations[conversation.id] = conversation
                    state.indexConversation(old: nil, new: conversation)
                }
            case .message:
                return try stored(record, ConversationMessage.self) { state, message in state.storeNewMessage(message) }
            case .clientSession:
                return try stored(record, ClientSession.self) { state, session in
                    state.clientSessions[session.id] = session
                    state.scheduleDeadlines(of: session)
                }
            case .presence: return try stored(record, PresenceRecord.self) { $0.presence[$1.id] = $1 }
            case .webhookRegistration: return try state.declared.load(legacy: record)
            case .device: return try stored(record, Device.self) { $0.storeDevice($1) }
            case .call: return try stored(record, Call.self) { $0.storeCall($1) }
            case .pushSettings: return try stored(record, PushSettings.self) { $0.pushSettings[$1.id] = $1 }
            case .coBrowsingSession: return try stored(record, CoBrowsingSession.self) { $0.coBrowsingSessions[$1.id] = $1 }
            case .invitation: return try stored(record, Invitation.self) { $0.invitations[$1.id] = $1 }
            case .fileUploadInterceptor: return try stored(record, FileUploadInterceptor.self) { $0.fileUploadInterceptors[$1.id] = $1 }
            case .messageInterceptor: return try stored(record, MessageInterceptor.self) { $0.messageInterceptors[$1.id] = $1 }
            case .dialogBot: return try state.declared.load(legacy: record)
            case .botDialog:
                return try stored(record, BotDialog.self) { state, dialog in
                    state.botDialogs[dialog.id] = dialog
                    if dialog.state == .offered {
                        state.deadlines.schedule(.botOffer(dialog.id), at: dialog.offerExpiresAt ?? dialog.creationTimestamp)
                    }
                }
            case .declared: return try state.declared.load(record)
            }
        }

        private mutating func stored<E: StorableEntity>(
            _ record: StoredRecord, _ type: E.Type, _ keep: (inout AccountState, E) -> Void
        ) throws -> String? {
            let entity = try RecordCoding.decode(E.self, from: record)
            keep(&state, entity)
            return entity.storageAccountId
        }

        /// The shard, its messages in order and its tokens registered in the directory.
        public consuming func finish() -> AccountState {
            for key in state.messages.keys { state.messages[key]?.sortBySequence() }
            for list in state.messages.values { for message in list where message.file != nil { state.files.add(message) } }
            let directory = state.directory
            for key in state.declared.globalKeys { directory.load(key, for: state.accountId) }
            for name in state.userIdByUsername.keys { directory.load(.username(name), for: state.accountId) }
            for token in state.sessions.keys { directory.load(.session(token), for: state.accountId) }
            for token in state.clientSessions.keys { directory.load(.client(token), for: state.accountId) }
            state.directoryLog = DirectoryLog()
            return state
        }
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

    /// Keeps the conversation indexes that are not the table's own (queue, history) in step with a
    /// conversation that changed from `old` to `new`.
    mutating func indexConversation(old: Conversation?, new: Conversation?) {
        queue.update(old: old, new: new)
        conversationHistory.update(old: old, new: new)
        recordedMinutesByDay.update(old: old, new: new)
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
    /// Users by their team (a team's agents, its deputies, whether it can be deleted).
    static let userByTeam = TableIndex<User>(0) { $0.teamId.map { [$0] } ?? [] }
    static let sessionByUser = TableIndex<AuthSession>(0) { $0.userId.map { [$0] } ?? [] }
    /// Sessions by person (visitors' sessions have no user).
    static let sessionByPerson = TableIndex<AuthSession>(1) { [$0.personId] }
    /// Sessions and one-time tokens by the access token they descend from: a revocation ends them.
    static let sessionByAccessToken = TableIndex<AuthSession>(2) { $0.accessTokenDigest.map { [$0] } ?? [] }
    /// Persons by type (agents, visitors, bots, system): an agent list reads the agents only.
    static let personByType = TableIndex<Person>(0) { [$0.personType.rawValue] }
    static let conversationByParticipant = TableIndex<Conversation>(0) { participantIds($0) }
    /// Conversations that have not ended, by source id and external messenger channel (`getBySourceIdAndChannelId`).
    static let conversationByOpenSource = TableIndex<Conversation>(1) { conversation in
        guard conversation.state != .ended, let sourceId = conversation.sourceId else { return [] }
        return [openSourceKey(sourceId: sourceId, channelId: conversation.externalMessengerChannelId)]
    }

    /// The key of ``conversationByOpenSource``: the channel (empty: none) and the source id.
    static func openSourceKey(sourceId: String, channelId: String?) -> String { "\(channelId ?? "")\u{0}\(sourceId)" }
    /// Conversations that have not ended, by participant (a visitor's open ones are bounded).
    static let conversationByOpenParticipant = TableIndex<Conversation>(2) { conversation in
        conversation.state == .ended ? [] : participantIds(conversation)
    }
    /// Conversations by state (`STATE` in searches: the open ones are a few among many ended).
    static let conversationByState = TableIndex<Conversation>(3) { [$0.state.rawValue] }
    // The orders searches page through without reading the whole table: by id (a query that names no
    // order), by creation or initiation (the usual newest-first list, and ranges of those times) and, for
    // conversations and calls, by end (the last ended first; open ones have none and come first ascending).
    static let userById = TableOrder<User>.byId(0)
    static let userByCreation = TableOrder<User>(1) { $0.creationTimestamp }
    static let personById = TableOrder<Person>.byId(0)
    static let personByCreation = TableOrder<Person>(1) { $0.creationTimestamp }
    // Users and persons by name (a directory listed by last name), folded as searches compare text.
    static let userByUsername = TableOrder<User>.byText(2) { $0.username }
    static let userByFirstName = TableOrder<User>.byText(3) { $0.firstName }
    static let userByLastName = TableOrder<User>.byText(4) { $0.lastName }
    static let personByUsername = TableOrder<Person>.byText(2) { $0.username }
    static let personByFirstName = TableOrder<Person>.byText(3) { $0.firstName }
    static let personByLastName = TableOrder<Person>.byText(4) { $0.lastName }
    static let personByNickname = TableOrder<Person>.byText(5) { $0.nickname }
    // The directory's account records, in every order an account search sorts by.
    static let accountById = TableOrder<Account>.byId(0)
    static let accountOrders = [
        "CREATION_TIMESTAMP": TableOrder<Account>(1) { $0.creationTimestamp },
        "MODIFICATION_TIMESTAMP": TableOrder<Account>(2) { $0.modificationTimestamp }, "NAME": TableOrder<Account>.byText(3) { $0.name },
    ]
    /// The name orders of the user table, by the search field each answers.
    static let userNameOrders = ["USERNAME": userByUsername, "FIRST_NAME": userByFirstName, "LAST_NAME": userByLastName]
    /// The name orders of the person table, by the search field each answers.
    static let personNameOrders = [
        "USERNAME": personByUsername, "FIRST_NAME": personByFirstName, "LAST_NAME": personByLastName, "NICKNAME": personByNickname,
    ]
    static let conversationById = TableOrder<Conversation>.byId(0)
    static let conversationByCreation = TableOrder<Conversation>(1) { $0.creationTimestamp }
    static let conversationByEnd = TableOrder<Conversation>(2) { $0.endTimestamp }
    static let invitationById = TableOrder<Invitation>.byId(0)
    static let invitationByCreation = TableOrder<Invitation>(1) { $0.createdTimestamp }
    static let callById = TableOrder<Call>.byId(0)
    static let callByInitiation = TableOrder<Call>(1) { $0.initiationTimestamp }
    static let callByEnd = TableOrder<Call>(2) { $0.endTimestamp }
    /// A conversation's participants' person ids, each once: the keys of the participant indexes.
    static func participantIds(_ conversation: Conversation) -> [String] { Array(Set(conversation.participants.map(\.personId))).sorted() }
    static let clientByPerson = TableIndex<ClientSession>(0) { [$0.personId] }
    /// Clients in the foreground with the collaboration UI closed, by person (UI visibility requests).
    static let clientByForegroundPerson = TableIndex<ClientSession>(1) { $0.appState == .foregroundUIClosed ? [$0.personId] : [] }
    /// Clients by the digest of the access token they started with (revoking the token stops them).
    static let clientByAccessToken = TableIndex<ClientSession>(2) { $0.accessTokenDigest.map { [$0] } ?? [] }
    /// Clients by their public id (a person presence in the Web API).
    static let clientByPublicId = TableIndex<ClientSession>(3) { [$0.clientId] }
    // Started clients are searched as person presences, which name them by their public id (the row id is
    // the client's secret): by that id, and by start (JOINED_TIMESTAMP and CREATION_TIMESTAMP).
    static let clientById = TableOrder<ClientSession>.byId(0, searchId: { $0.clientId })
    static let clientByStart = TableOrder<ClientSession>(1, searchId: { $0.clientId }) { $0.createdAt }
    static let presenceByValue = TableIndex<PresenceRecord>(0) { [$0.presence.rawValue] }
    static let deviceByPerson = TableIndex<Device>(0) { [$0.personId] }
    /// Devices by record id, for the inspector's pages.
    static let deviceById = TableOrder<Device>.byId(0)
    static let deviceByToken = TableIndex<Device>(1) { [$0.apnsToken, $0.pushKitToken, $0.fcmToken].compactMap { $0 } }
    /// Agents' devices with push tokens, under one key (inbound requests go to them).
    static let deviceOfAgent = TableIndex<Device>(2) { $0.isReachableAgentApp ? ["agent"] : [] }
    static let callByOpenConversation = TableIndex<Call>(0) { $0.state == .ended ? [] : [$0.conversationId] }
    static let coBrowsingByOpenConversation = TableIndex<CoBrowsingSession>(0) { $0.state == .ended ? [] : [$0.conversationId] }
    static let coBrowsingByOpenVisitor = TableIndex<CoBrowsingSession>(1) { $0.state == .ended ? [] : [$0.visitorPersonId] }
    /// Every call of a conversation (bounded per conversation; they go with it).
    static let callByConversation = TableIndex<Call>(1) { [$0.conversationId] }
    /// Every co-browsing session of a conversation (bounded per conversation; they go with it).
    static let coBrowsingByConversation = TableIndex<CoBrowsingSession>(2) { [$0.conversationId] }
    /// Open invitations by the token a visitor redeems (PINs are unique among open ones).
    static let invitationByOpenToken = TableIndex<Invitation>(0) { $0.state == .open ? [$0.token] : [] }
    static let invitationByConversation = TableIndex<Invitation>(1) { [$0.conversationId] }
    /// Open agent invitations and forwardings by the agent they are addressed to (a deputy delegation
    /// names the assigned agent, to whom it is not offered).
    static let invitationByOpenAgentTarget = TableIndex<Invitation>(2) {
        $0.state == .open && $0.targetType == "AGENT" && $0.kind != .deputyInvitation ? $0.targetId.map { [$0] } ?? [] : []
    }
    /// Open invitations and forwardings addressed to a team, by team id.
    static let invitationByOpenTeamTarget = TableIndex<Invitation>(3) {
        $0.state == .open && $0.targetType == "TEAM" ? $0.targetId.map { [$0] } ?? [] : []
    }
    /// Open invitations by the secondary targets who may still accept them.
    static let invitationByOpenSecondaryTarget = TableIndex<Invitation>(4) { $0.state == .open ? $0.pendingSecondaryTargets : [] }
    /// Invitations by the state they are stored in (an OPEN one past its expiry reads as EXPIRED).
    static let invitationByStoredState = TableIndex<Invitation>(5) { [$0.state.rawValue] }
    /// Offered and open bot dialogs by conversation.
    static let dialogByOpenConversation = TableIndex<BotDialog>(0) { $0.state == .finished ? [] : [$0.conversationId] }
    /// Every dialog by its conversation, finished ones too: they go when the conversation is deleted.
    static let dialogByConversation = TableIndex<BotDialog>(1) { [$0.conversationId] }
}
