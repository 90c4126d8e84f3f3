/// What agents write on persons: a note on a visitor, an agent's status message and away flag.
extension AccountState {
    /// `persons/{id}/setNote`: the note on a visitor (the vendor keeps notes on visitors only), with
    /// who edited it last and when; `nil` or empty removes it.
    public mutating func setNote(
        _ note: String?, personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    )
        throws(CollabError) -> Person
    {
        var person = try self.person(personId, for: principal)
        guard person.personType == .visitor else {
            throw .badRequest("note: only visitors have a note; person \(personId) is \(person.personType.rawValue)")
        }
        try Limits.checkOptional(note, field: "note", max: Limits.textLength)
        person.note = note?.isEmpty == false ? note : nil
        person.noteLastEditedTimestamp = context.now
        person.noteLastEditedPersonId = principal.personId
        return savePersonEdit(person, context: context, changes: &changes)
    }

    /// `persons/{id}/setStatusMessage`: an agent's status message; `nil` or empty removes it.
    public mutating func setStatusMessage(
        _ message: String?, personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Person {
        var person = try self.person(personId, for: principal)
        guard person.personType == .agent else {
            throw .badRequest("statusMessage: only agents have a status message; person \(personId) is \(person.personType.rawValue)")
        }
        try Limits.checkOptional(message, field: "statusMessage", max: Limits.nameLength)
        person.statusMessage = message?.isEmpty == false ? message : nil
        return savePersonEdit(person, context: context, changes: &changes)
    }

    /// `persons/{id}/setAway`: whether the agent shows as AWAY (`true`) or ONLINE while logged in. A
    /// logged-in agent changes at once; one who is offline keeps the choice for the next login.
    public mutating func setAway(_ away: Bool, personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet)
        throws(CollabError) -> Person
    {
        var person = try self.person(personId, for: principal)
        guard person.personType == .agent else {
            throw .badRequest("away: only agents have an online state; person \(personId) is \(person.personType.rawValue)")
        }
        person.away = away ? true : nil
        let saved = savePersonEdit(person, context: context, changes: &changes)
        if presence(of: personId) != .offline {
            try setPresence(away ? .away : .online, personId: personId, accountId: person.accountId, context: context, changes: &changes)
        }
        return saved
    }

    private mutating func savePersonEdit(_ person: Person, context: OperationContext, changes: inout ChangeSet) -> Person {
        var person = person
        person.modificationTimestamp = context.now
        storePerson(person)
        changes.put(person)
        emitEntity(.update, .person(person), context: context, changes: &changes)
        return person
    }
}
