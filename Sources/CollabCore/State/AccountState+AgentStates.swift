/// An agent with its presence and notification state at one moment, as `searchAgentsByState` sees it.
public struct AgentStateRow: Sendable {
    public var person: Person
    /// `EOnlineState`.
    public var onlineState: String
    public var pauseMode: String
    public var pauseState: String
}

/// A visitor with its online state, as `searchVisitorsByState` sees it: online while one of its apps
/// is started.
public struct VisitorStateRow: Sendable {
    public var person: Person
    /// `EOnlineState`: `ONLINE` or `OFFLINE`.
    public var onlineState: String

    public init(person: Person, onlineState: String) {
        (self.person, self.onlineState) = (person, onlineState)
    }
}

extension AccountState {
    /// Searches the account's visitors by online state.
    ///
    /// It reads the visitors only through the persons' indexes and orders: `ONLINE` visitors are those a
    /// started client names, a page without such a filter walks the persons by id and stops when full.
    public func searchVisitorStates(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<VisitorStateRow> {
        _ = try callerAccountId(principal)
        let row = { (id: String) in persons[id].flatMap(visitorState) }
        return try SearchSchemas.visitorState.run(
            query, lookups: visitorStateLookups, row: row,
            all: persons.ids(Indexes.personByType, Person.PersonType.visitor.rawValue).lazy.compactMap(row), id: \.person.id)
    }

    /// Searches the account's agents by presence and notification state at `now`; it reads the agents
    /// only, or those with the presence a filter names.
    public func searchAgentStates(_ query: SearchQuery, now: Timestamp, for principal: Principal) throws(CollabError) -> SearchPage<AgentStateRow> {
        _ = try callerAccountId(principal)
        let row = { (id: String) in persons[id].flatMap { agentState($0, now: now) } }
        return try SearchSchemas.agentState.run(
            query, lookups: agentStateLookups, row: row,
            all: persons.ids(Indexes.personByType, Person.PersonType.agent.rawValue).lazy.compactMap(row), id: \.person.id)
    }

    /// A visitor's state row, `nil` for a person of another type.
    private func visitorState(_ person: Person) -> VisitorStateRow? {
        guard person.personType == .visitor else { return nil }
        return VisitorStateRow(person: person, onlineState: clientSessions.count(Indexes.clientByPerson, person.id) == 0 ? "OFFLINE" : "ONLINE")
    }

    /// An agent's state row at `now`, `nil` for a person of another type.
    private func agentState(_ person: Person, now: Timestamp) -> AgentStateRow? {
        guard person.personType == .agent else { return nil }
        let notifications = person.notifications ?? PersonNotifications()
        return AgentStateRow(
            person: person, onlineState: presence(of: person.id).rawValue, pauseMode: notifications.effectiveMode(at: now).rawValue,
            pauseState: notifications.pauseReason(at: now) == nil ? "OFF" : "ON"
        )
    }

    /// A visitor search's (``personLookups(type:)``), with `PERSON_ID`, and `ONLINE`: the persons started
    /// clients name (a few among many visitors).
    var visitorStateLookups: SearchLookups {
        let visitors = persons.ids(Indexes.personByType, Person.PersonType.visitor.rawValue)
        return personLookups(type: .visitor).adding("PERSON_ID", persons.idLookup)
            .adding("ONLINE_STATE") { [clientSessions] state in
                // OFFLINE visitors are those no client names: every visitor may be one.
                switch state {
                case "ONLINE": Set(clientSessions.keys(Indexes.clientByPerson))
                case "OFFLINE": visitors
                default: []
                }
            }
    }

    /// An agent search's (``personLookups(type:)``), with `PERSON_ID`, and a presence other than
    /// `OFFLINE`: the agents who set it.
    var agentStateLookups: SearchLookups {
        let agents = persons.ids(Indexes.personByType, Person.PersonType.agent.rawValue)
        return personLookups(type: .agent).adding("PERSON_ID", persons.idLookup)
            .adding("ONLINE_STATE") { [presence] state in
                // An agent who never set a presence is OFFLINE: every agent may be one.
                state == AgentPresence.offline.rawValue ? agents : presence.ids(Indexes.presenceByValue, state)
            }
    }

    /// A started mobile client by its public id, as a person presence of the caller's account.
    public func personPresence(_ clientId: String, for principal: Principal) throws(CollabError) -> ClientSession {
        _ = try callerAccountId(principal)
        guard let session = startedClient(clientId) else { throw .notFound("PersonPresence", clientId) }
        return session
    }

    /// Searches the started mobile clients as person presences, through their person index and their
    /// orders by public id and by start.
    public func searchPersonPresences(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<ClientSession> {
        _ = try callerAccountId(principal)
        return try SearchSchemas.personPresence.run(
            query, lookups: personPresenceLookups, row: startedClient, all: clientSessions.values, id: \.clientId)
    }

    /// A started client by its public id.
    private func startedClient(_ clientId: String) -> ClientSession? {
        clientSessions.rows(Indexes.clientByPublicId, clientId).first
    }

    /// A person's started clients (by public id); the clients by public id and by start.
    var personPresenceLookups: SearchLookups {
        let byStart = clientSessions.walk(Indexes.clientByStart)
        return SearchLookups()
            .adding("PERSON_ID") { [clientSessions] personId in Set(clientSessions.rows(Indexes.clientByPerson, personId).map(\.clientId)) }
            .ordering("ID", count: clientSessions.count, walk: clientSessions.walk(Indexes.clientById))
            .ordering("JOINED_TIMESTAMP", count: clientSessions.count, walk: byStart)
            .ordering("CREATION_TIMESTAMP", count: clientSessions.count, walk: byStart)
    }
}

extension SearchSchemas {
    /// `EAgentStateSearchFilterField` / `EAgentStateOrderByField`, as far as the mock models them.
    public static let agentState = SearchSchema<AgentStateRow>("AgentState", [
        "PERSON_ID": { .of($0.person.id) },
        "ONLINE_STATE": { .of($0.onlineState) },
        "PAUSE_NOTIFICATIONS_MODE": { .of($0.pauseMode) },
        "PAUSE_NOTIFICATIONS_STATE": { .of($0.pauseState) },
        "PAUSE_NOTIFICATIONS_END_TIMESTAMP": { $0.person.notifications?.pauseEndTimestamp.map { .int($0) } ?? .null },
    ])

    /// `EVisitorStateSearchFilterField` / `EVisitorStateOrderByField`.
    public static let visitorState = SearchSchema<VisitorStateRow>("VisitorState", [
        "PERSON_ID": { .of($0.person.id) },
        "ONLINE_STATE": { .of($0.onlineState) },
    ])

    /// `EPersonPresenceSearchFilterField` / `EPersonPresenceOrderByField`.
    public static let personPresence = SearchSchema<ClientSession>("PersonPresence", [
        "PERSON_ID": { .of($0.personId) },
        "JOINED_TIMESTAMP": { .of($0.createdAt) },
        "LEFT_TIMESTAMP": { _ in .null },
        "CREATION_TIMESTAMP": { .of($0.createdAt) },
        "MODIFICATION_TIMESTAMP": { .of($0.lastSeenAt) },
    ])
}
