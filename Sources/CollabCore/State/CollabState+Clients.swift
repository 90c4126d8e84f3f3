/// What starting a mobile client takes.
public struct ClientStartInput: Sendable {
    public var apiKey: ApiKey
    public var deviceId: String
    public var device: DeviceInfo
    /// A named area id or site id.
    public var namedArea: String?
    /// The person an access token identified; `nil` for an anonymous visitor.
    public var identity: PersonInput?

    public init(apiKey: ApiKey, deviceId: String, device: DeviceInfo, namedArea: String? = nil, identity: PersonInput? = nil) {
        self.apiKey = apiKey
        self.deviceId = deviceId
        self.device = device
        self.namedArea = namedArea
        self.identity = identity
    }
}

extension CollabState {
    /// Starts a mobile client: finds or creates its visitor (identified by the access token's subject, or
    /// anonymous with a stable device id) and opens a client session.
    public mutating func startClient(_ input: ClientStartInput, context: OperationContext, changes: inout ChangeSet) throws(CollabError) -> ClientSession {
        let accountId = input.apiKey.accountId
        guard !input.deviceId.isEmpty, input.deviceId.count <= Limits.nameLength, input.deviceId.allSatisfy({ !$0.isWhitespace }) else {
            throw .badRequest("deviceId must be 1 to \(Limits.nameLength) characters without spaces")
        }
        try input.device.validate()
        let areaId = try input.namedArea.map { reference throws(CollabError) in try namedAreaIds([reference], accountId: accountId).first! }
        var identity = input.identity ?? PersonInput(sourceId: "device:\(input.deviceId)", personType: .visitor)
        identity.personType = .visitor
        let person = try createOrUpdateVirtualPerson(identity, accountId: accountId, context: context, changes: &changes)
        let session = ClientSession(
            id: context.ids.makeSecret(), clientId: context.ids.make(), accountId: accountId, apiKeyId: input.apiKey.id, personId: person.id,
            deviceId: input.deviceId, device: input.device, namedAreaId: areaId, identified: input.identity != nil, createdAt: context.now
        )
        clientSessions[session.id] = session
        changes.put(session)
        return session
    }

    /// A live client session by token.
    public func clientSession(token: String) -> ClientSession? {
        clientSessions[token]
    }

    /// Changes a client session (app state, named area, open conversation).
    public mutating func updateClient(
        token: String, context: OperationContext, changes: inout ChangeSet, _ update: (inout ClientSession) throws(CollabError) -> Void
    ) throws(CollabError) -> ClientSession {
        guard var session = clientSessions[token] else { throw .unauthorized("unknown or stopped client") }
        try update(&session)
        session.lastSeenAt = context.now
        if session.appState == .foregroundUIOpen { resetBadge(personId: session.personId, deviceId: session.deviceId, changes: &changes) }
        clientSessions[token] = session
        changes.put(session)
        return session
    }

    /// Stops a client.
    public mutating func stopClient(token: String, changes: inout ChangeSet) {
        if clientSessions.removeValue(forKey: token) != nil { changes.delete(.clientSession, token) }
    }

    /// The client sessions of a person (a visitor may use several devices).
    public func clientSessions(ofPerson personId: String) -> [ClientSession] {
        clientSessions.values.filter { $0.personId == personId }.sorted { $0.createdAt < $1.createdAt }
    }

    /// The configuration cascade a client sees: account, its named area, its API key.
    public func configuration(for session: ClientSession) throws(CollabError) -> ConfigurationCascade {
        try configuration(accountId: session.accountId, namedAreaId: session.namedAreaId, apiKeyId: session.apiKeyId)
    }
}
