/// The fields of a virtual person (`createOrUpdateVirtual`, secure-token logins).
public struct PersonInput: Sendable {
    public var sourceId: String?
    public var sourceUrl: String?
    public var sourceData: String?
    public var personType: Person.PersonType?
    public var username: String?
    public var firstName: String?
    public var lastName: String?
    public var nickname: String?
    public var displayName: String?
    public var email: String?
    public var phone: String?
    public var teamId: String?
    public var metadata: [String: String]?

    public init(
        sourceId: String? = nil, sourceUrl: String? = nil, sourceData: String? = nil, personType: Person.PersonType? = nil,
        username: String? = nil, firstName: String? = nil, lastName: String? = nil, nickname: String? = nil,
        displayName: String? = nil, email: String? = nil, phone: String? = nil, teamId: String? = nil, metadata: [String: String]? = nil
    ) {
        self.sourceId = sourceId
        self.sourceUrl = sourceUrl
        self.sourceData = sourceData
        self.personType = personType
        self.username = username
        self.firstName = firstName
        self.lastName = lastName
        self.nickname = nickname
        self.displayName = displayName
        self.email = email
        self.phone = phone
        self.teamId = teamId
        self.metadata = metadata
    }

    func validate() throws(CollabError) {
        _ = try Limits.checkName(sourceId, field: "sourceId")
        for (value, field) in [(username, "username"), (firstName, "firstName"), (lastName, "lastName"), (nickname, "nickname"),
                               (displayName, "displayName"), (email, "email"), (phone, "phone"), (teamId, "teamId"), (sourceUrl, "sourceUrl")] {
            try Limits.checkOptional(value, field: field, max: Limits.textLength)
        }
        try Limits.checkOptional(sourceData, field: "sourceData", max: Limits.propertyValueLength)
        try Limits.checkProperties(metadata, field: "metadata")
        if personType == .system { throw .badRequest("personType SYSTEM cannot be created") }
    }
}

extension AccountState {
    /// A person of the caller's account.
    public func person(_ id: String, for principal: Principal) throws(CollabError) -> Person {
        guard let person = persons[id], principal.canAccess(accountId: person.accountId),
            visibilityRules(for: principal).allows(person, in: self)
        else {
            throw .notFound("Person", id)
        }
        return person
    }

    /// A person of the caller's account by source and source id.
    public func person(source: Person.Source, sourceId: String, for principal: Principal) throws(CollabError) -> Person {
        _ = try callerAccountId(principal)
        guard let id = personIdBySource[PersonSourceKey(source: source, sourceId: sourceId)], let person = persons[id],
            visibilityRules(for: principal).allows(person, in: self)
        else {
            throw CollabError(.notFound, "Person with source \(source.rawValue) and sourceId '\(sourceId)' not found")
        }
        return person
    }

    /// Searches the caller's persons, optionally only of one type.
    public func searchPersons(
        _ query: SearchQuery, type: Person.PersonType? = nil, for principal: Principal
    ) throws(CollabError) -> SearchPage<Person> {
        _ = try callerAccountId(principal)
        let rules = visibilityRules(for: principal)
        func shown(_ person: Person) -> Bool { (type == nil || person.personType == type) && rules.allows(person, in: self) }
        return try SearchSchemas.person.run(
            query, lookups: personLookups(type: type), row: { persons[$0].flatMap { shown($0) ? $0 : nil } },
            all: persons.values.lazy.filter(shown), id: \.id)
    }

    /// What a person search can look up: an id, a type, a source id (which names one person per source,
    /// ``personIdBySource``); the orders it can page through: by id, by creation and by name. A search
    /// of one type (`searchAgents` and its kind) reads the persons of that type only, not every visitor.
    func personLookups(type: Person.PersonType?) -> SearchLookups {
        let lookups = SearchLookups().adding("ID", persons.idLookup).adding("PERSON_TYPE", persons.lookup(Indexes.personByType))
            .adding("SOURCE_ID") { [personIdBySource] sourceId in
                Set(Person.Source.allCases.compactMap { personIdBySource[PersonSourceKey(source: $0, sourceId: sourceId)] })
            }
            .ordering("ID", count: persons.count, walk: persons.walk(Indexes.personById))
            .ordering("CREATION_TIMESTAMP", count: persons.count, walk: persons.walk(Indexes.personByCreation))
            .ordering(Indexes.personNameOrders, of: persons)
        guard let type else { return lookups }
        return lookups.narrowing(to: persons.ids(Indexes.personByType, type.rawValue))
    }

    /// Refuses a new person beyond the account's ``StoredRecordLimits/personsPerAccount``.
    func checkRoomForPerson(limits: StoredRecordLimits) throws(CollabError) {
        guard persons.count < limits.personsPerAccount else {
            throw .conflict(
                "the account holds its maximum of \(limits.personsPerAccount) persons (--max-persons-per-account);"
                    + " deleting persons frees their places")
        }
    }

    /// Creates or updates the virtual person of `accountId` with the input's source id.
    public mutating func createOrUpdateVirtualPerson(
        _ input: PersonInput, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Person {
        try input.validate()
        try checkAccount(accountId)
        let sourceId = try Limits.checkName(input.sourceId, field: "sourceId")
        let key = PersonSourceKey(source: .virtual, sourceId: sourceId)
        let type = input.personType ?? .visitor
        let existing = personIdBySource[key].flatMap { persons[$0] }
        if existing == nil { try checkRoomForPerson(limits: context.limits) }
        if input.teamId != existing?.teamId { try checkTeamReference(input.teamId) }
        var person = existing
            ?? Person(
                id: context.ids.make(), accountId: accountId, personSource: .virtual, sourceId: sourceId, personType: type,
                authorizationRole: type == .agent ? .registeredUser : .webuser, creationTimestamp: context.now, modificationTimestamp: context.now
            )
        if let personType = input.personType {
            person.personType = personType
            person.authorizationRole = personType == .agent ? .registeredUser : .webuser
        }
        person.sourceUrl = input.sourceUrl ?? person.sourceUrl
        person.sourceData = input.sourceData ?? person.sourceData
        person.username = input.username ?? person.username
        person.firstName = input.firstName ?? person.firstName
        person.lastName = input.lastName ?? person.lastName
        person.nickname = input.nickname ?? person.nickname
        person.displayName = input.displayName ?? person.displayName
        person.email = input.email ?? person.email
        person.phone = input.phone ?? person.phone
        person.teamId = input.teamId ?? person.teamId
        person.metadata = input.metadata ?? person.metadata
        person.modificationTimestamp = context.now
        storePerson(person)
        changes.put(person)
        emitEntity(existing == nil ? .create : .update, .person(person), context: context, changes: &changes)
        return person
    }

    /// `persons/createOrUpdateBot`: a virtual person of type `BOT`, created or updated by its
    /// `sourceId`. A visitor or agent with that source is not turned into a bot.
    public mutating func createOrUpdateBotPerson(
        _ input: PersonInput, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Person {
        if let type = input.personType, type != .bot { throw .badRequest("personType must be BOT, not \(type.rawValue)") }
        if let sourceId = input.sourceId, let id = personIdBySource[PersonSourceKey(source: .virtual, sourceId: sourceId)],
            let existing = persons[id], existing.personType != .bot
        {
            throw .conflict("the person with sourceId '\(sourceId)' is a \(existing.personType.rawValue) person, not a bot")
        }
        var bot = input
        bot.personType = .bot
        return try createOrUpdateVirtualPerson(bot, accountId: accountId, context: context, changes: &changes)
    }
}

extension AccountState {
    /// Shown names of a conversation's participants (``Person/shownName``; none for a person without a name).
    public func participantNames(_ conversation: Conversation) -> [String: String] {
        var names: [String: String] = [:]
        for participant in conversation.participants {
            names[participant.personId] = persons[participant.personId]?.shownName
        }
        return names
    }
}
