/// Everything the server knows, as plain values, with the rules that change it.
///
/// `CollabState` does no I/O and reads no clock: operations take an ``OperationContext`` and report
/// the durable changes they made into a ``ChangeSet``, which the caller persists. Reads are scoped by
/// a ``Principal`` so one account never sees another's data (another account's id is "not found").
public struct CollabState: Sendable {
    public internal(set) var globalConfiguration = GlobalConfiguration()
    public internal(set) var accounts: [String: Account] = [:]
    public internal(set) var apiKeys: [String: ApiKey] = [:]
    public internal(set) var namedAreas: [String: NamedArea] = [:]
    public internal(set) var users: [String: User] = [:]
    public internal(set) var persons: [String: Person] = [:]
    public internal(set) var sessions: [String: AuthSession] = [:]
    public internal(set) var jwtSettings: [String: JWTValidationSettings] = [:]
    public internal(set) var conversations: [String: Conversation] = [:]
    /// Messages per conversation, in sequence order.
    public internal(set) var messages: [String: [ConversationMessage]] = [:]
    public internal(set) var clientSessions: [String: ClientSession] = [:]
    public internal(set) var presence: [String: PresenceRecord] = [:]
    public internal(set) var webhooks: [String: WebhookRegistration] = [:]
    public internal(set) var devices: [String: Device] = [:]
    public internal(set) var calls: [String: Call] = [:]
    public internal(set) var pushSettings: [String: PushSettings] = [:]
    public internal(set) var coBrowsingSessions: [String: CoBrowsingSession] = [:]

    // Secondary indexes, rebuilt on load and kept in step by every operation.
    var apiKeyIdByKey: [String: String] = [:]
    var userIdByUsername: [String: String] = [:]
    var accountIdByName: [String: String] = [:]
    var personIdBySource: [PersonSourceKey: String] = [:]

    struct PersonSourceKey: Hashable, Sendable {
        var accountId: String
        var source: Person.Source
        var sourceId: String
    }

    /// An empty state.
    public init() {}

    /// Rebuilds the state from stored records.
    /// - Throws: When a record cannot be decoded (a corrupt or foreign database).
    public init(records: some Sequence<StoredRecord>) throws {
        for record in records {
            switch record.kind {
            case .globalConfiguration: globalConfiguration = try RecordCoding.decode(GlobalConfiguration.self, from: record)
            case .account: storeAccount(try RecordCoding.decode(Account.self, from: record))
            case .apiKey: storeApiKey(try RecordCoding.decode(ApiKey.self, from: record))
            case .namedArea:
                let area = try RecordCoding.decode(NamedArea.self, from: record)
                namedAreas[area.id] = area
            case .user: storeUser(try RecordCoding.decode(User.self, from: record))
            case .person: storePerson(try RecordCoding.decode(Person.self, from: record))
            case .session:
                let session = try RecordCoding.decode(AuthSession.self, from: record)
                sessions[session.id] = session
            case .jwtSettings:
                let settings = try RecordCoding.decode(JWTValidationSettings.self, from: record)
                jwtSettings[settings.id] = settings
            case .conversation:
                let conversation = try RecordCoding.decode(Conversation.self, from: record)
                conversations[conversation.id] = conversation
            case .message:
                let message = try RecordCoding.decode(ConversationMessage.self, from: record)
                messages[message.conversationId, default: []].append(message)
            case .clientSession:
                let session = try RecordCoding.decode(ClientSession.self, from: record)
                clientSessions[session.id] = session
            case .presence:
                let record = try RecordCoding.decode(PresenceRecord.self, from: record)
                presence[record.id] = record
            case .webhookRegistration:
                let registration = try RecordCoding.decode(WebhookRegistration.self, from: record)
                webhooks[registration.id] = registration
            case .device:
                let device = try RecordCoding.decode(Device.self, from: record)
                devices[device.id] = device
            case .call:
                let call = try RecordCoding.decode(Call.self, from: record)
                calls[call.id] = call
            case .pushSettings:
                let settings = try RecordCoding.decode(PushSettings.self, from: record)
                pushSettings[settings.id] = settings
            case .coBrowsingSession:
                let session = try RecordCoding.decode(CoBrowsingSession.self, from: record)
                coBrowsingSessions[session.id] = session
            }
        }
        for key in messages.keys { messages[key]?.sort { $0.sequence < $1.sequence } }
    }

    /// Whether nothing has been created yet (the default tenant is seeded into an empty state).
    public var isEmpty: Bool { accounts.isEmpty }

    // MARK: index maintenance

    mutating func storeAccount(_ account: Account) {
        if let old = accounts[account.id], old.name != account.name { accountIdByName[old.name] = nil }
        accounts[account.id] = account
        accountIdByName[account.name] = account.id
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
            personIdBySource[PersonSourceKey(accountId: old.accountId, source: old.personSource, sourceId: old.sourceId)] = nil
        }
        persons[person.id] = person
        personIdBySource[PersonSourceKey(accountId: person.accountId, source: person.personSource, sourceId: person.sourceId)] = person.id
    }

    // MARK: scoping

    /// The account the caller acts in.
    func callerAccountId(_ principal: Principal) throws(CollabError) -> String {
        guard let accountId = principal.accountId else { throw .unauthorized("this operation needs a caller that belongs to an account") }
        return accountId
    }

    /// Checks that an update names the version the caller last saw.
    static func checkVersion(_ given: Int64?, current: Int64, entity: String) throws(CollabError) {
        guard let given else { throw .badRequest("\(entity) update requires the current 'version'") }
        guard given == current else {
            throw .conflict("\(entity) was modified concurrently: version \(given) is stale, the current version is \(current)")
        }
    }
}
