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
}

extension AccountState {
    /// Searches the account's visitors by online state.
    public func searchVisitorStates(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<VisitorStateRow> {
        _ = try callerAccountId(principal)
        let rows = persons.values.lazy.filter { $0.personType == .visitor }.map { person in
            VisitorStateRow(person: person, onlineState: self.clientSessions(ofPerson: person.id).isEmpty ? "OFFLINE" : "ONLINE")
        }
        return try SearchSchemas.visitorState.run(query, over: rows, id: \.person.id)
    }

    /// Searches the account's agents by presence and notification state at `now`.
    public func searchAgentStates(_ query: SearchQuery, now: Timestamp, for principal: Principal) throws(CollabError) -> SearchPage<AgentStateRow> {
        _ = try callerAccountId(principal)
        let rows = persons.values.lazy.filter { $0.personType == .agent }.map { person in
            let notifications = person.notifications ?? PersonNotifications()
            return AgentStateRow(
                person: person, onlineState: presence(of: person.id).rawValue, pauseMode: notifications.effectiveMode(at: now).rawValue,
                pauseState: notifications.pauseReason(at: now) == nil ? "OFF" : "ON"
            )
        }
        return try SearchSchemas.agentState.run(query, over: rows, id: \.person.id)
    }

    /// A started mobile client by its public id, as a person presence of the caller's account.
    public func personPresence(_ clientId: String, for principal: Principal) throws(CollabError) -> ClientSession {
        _ = try callerAccountId(principal)
        guard let session = clientSessions.rows(Indexes.clientByPublicId, clientId).first else { throw .notFound("PersonPresence", clientId) }
        return session
    }

    /// Searches the started mobile clients as person presences.
    public func searchPersonPresences(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<ClientSession> {
        _ = try callerAccountId(principal)
        return try SearchSchemas.personPresence.run(query, over: clientSessions.values, id: \.clientId)
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
