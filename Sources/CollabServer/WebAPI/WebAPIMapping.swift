import CollabCore
import CollabWire

// Conversions between the domain model and the Web API's wire objects. Absent values stay absent (the
// spec allows no nulls), and configuration, metadata and text appear only when expanded.

extension WebAccount {
    init(_ account: Account, expand: Expansion) {
        self.init(name: account.name)
        header.id = account.id
        header.creationTimestamp = account.creationTimestamp
        header.modificationTimestamp = account.modificationTimestamp
        header.version = account.version
        fields.translations = account.translations.map { $0.mapValues { WebTranslation(type: "AccountTranslation", $0) } }
        (fields.configuration, fields.metadata, fields.text) = expand.parts(
            configuration: account.configuration, metadata: account.metadata, text: account.text
        )
    }
}

extension WebAccountFields {
    var input: AccountInput {
        AccountInput(
            name: name, configuration: configuration, metadata: metadata,
            translations: translations.map { $0.mapValues(\.domain) }, text: text
        )
    }
}

extension WebTranslation {
    init(type: String, _ translation: Account.Translation) {
        self.init(type: type, id: translation.id, name: translation.name, description: translation.description)
    }

    var domain: Account.Translation { Account.Translation(id: id, name: name, description: description) }
}

extension WebUser {
    init(_ user: User, expand: Expansion) {
        self.init(
            username: user.username, authorizationRole: user.authorizationRole.rawValue, firstName: user.firstName, lastName: user.lastName,
            email: user.email)
        showRecordFields(of: user)
        fields.phone = user.phone
        fields.teamId = user.teamId
        fields.displayName = user.displayName
        fields.externallyManaged = user.externallyManaged
        fields.virtualUser = user.virtualUser
        if expand.configuration { fields.configuration = user.configuration }
        if expand.metadata { fields.metadata = user.metadata ?? [:] }
    }
}

extension WebUser {
    func input() throws(CollabError) -> UserInput {
        let fields = self.fields
        return UserInput(
            username: fields.username, email: fields.email, phone: fields.phone, teamId: fields.teamId,
            authorizationRole: try fields.authorizationRole.map(parseRole), displayName: fields.displayName, firstName: fields.firstName,
            lastName: fields.lastName, externallyManaged: fields.externallyManaged, virtualUser: fields.virtualUser,
            configuration: fields.configuration, metadata: fields.metadata
        )
    }
}

extension WebPerson {
    init(_ person: Person, expand: Expansion) {
        self.init(
            sourceId: person.sourceId, personType: person.personType.rawValue, firstName: person.firstName, lastName: person.lastName,
            email: person.email)
        id = person.id
        accountId = person.accountId
        personSource = person.personSource.rawValue
        sourceUrl = person.sourceUrl
        sourceData = person.sourceData
        username = person.username
        nickname = person.nickname
        displayName = person.displayName
        authorizationRole = person.authorizationRole.rawValue
        phone = person.phone
        teamId = person.teamId
        note = person.note
        noteLastEditedTimestamp = person.noteLastEditedTimestamp
        noteLastEditedPersonId = person.noteLastEditedPersonId
        if expand.metadata { metadata = person.metadata ?? [:] }
    }

    func input() throws(CollabError) -> PersonInput {
        var type: Person.PersonType?
        if let personType {
            type = try Person.PersonType(parsing: personType, field: "personType")
        }
        return PersonInput(
            sourceId: sourceId, sourceUrl: sourceUrl, sourceData: sourceData, personType: type, username: username,
            firstName: firstName, lastName: lastName, nickname: nickname, displayName: displayName, email: email, phone: phone,
            teamId: teamId, metadata: metadata
        )
    }
}

extension AccountState {
    /// A person as the Web API shows it, with the labels set on it.
    func webPerson(_ person: Person, expand: Expansion) -> WebPerson {
        var web = WebPerson(person, expand: expand)
        let labels = labels(of: person)
        if !labels.isEmpty { web.labels = labels.map { EntityWire.json($0) } }
        return web
    }
}

/// Parses an `EAuthorizationRole`.
func parseRole(_ text: String) throws(CollabError) -> AuthorizationRole {
    try AuthorizationRole(parsing: text, field: "authorizationRole")
}

/// Checks the `$_type` of a request body.
func checkType(_ object: some WebAPIObject) throws(CollabError) {
    guard object.hasExpectedType else {
        throw .badRequest("$_type must be '\(type(of: object).typeName)', not '\(object.type ?? "")'")
    }
}

extension SearchPage {
    /// The Web API `…Result` body for this page.
    func webResult<Wire: Codable & Sendable>(_ typeName: String, offset: Int, _ transform: (Item) -> Wire) -> WebResult<Wire> {
        WebResult(type: typeName, items: items.map(transform), hasMoreItems: hasMoreItems, nextOffset: nextOffset ?? offset + items.count)
    }
}
