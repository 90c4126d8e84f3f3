/// `Account`.
public typealias WebAccount = WebEntity<WebAccountFields>

/// The fields of `Account` after the ``WebEntityHeader`` (an account belongs to no account: its
/// `accountId` stays absent).
public struct WebAccountFields: WebEntityFields, Equatable {
    public static let typeName = "Account"
    public var name: String?
    public var translations: [String: WebTranslation]?
    public var configuration: [String: String]?
    public var metadata: [String: String]?
    public var text: [String: [String: String]]?
}

extension WebAccount {
    /// An account to create.
    public init(name: String? = nil, configuration: [String: String]? = nil) {
        self.init(WebAccountFields(name: name, configuration: configuration))
    }
}

/// `AccountTranslation` / `NamedAreaTranslation`.
public struct WebTranslation: Codable, Sendable, Equatable {
    public var type: String?
    public var id: String?
    public var name: String?
    public var description: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, name, description
    }

    public init(type: String? = nil, id: String? = nil, name: String? = nil, description: String? = nil) {
        self.type = type
        self.id = id
        self.name = name
        self.description = description
    }
}

/// `AccountUserContainer`.
public struct WebAccountUserContainer: WebAPIObject, Equatable {
    public static let typeName = "AccountUserContainer"
    public var type: String? = Self.typeName
    public var account: WebAccount?
    public var adminUser: WebUser?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", account, adminUser
    }

    public init(account: WebAccount?, adminUser: WebUser?) {
        self.account = account
        self.adminUser = adminUser
    }
}

/// `ApiKey`.
public typealias WebApiKey = WebEntity<WebApiKeyFields>

/// The fields of `ApiKey` after the ``WebEntityHeader``.
public struct WebApiKeyFields: WebEntityFields, Equatable {
    public static let typeName = "ApiKey"
    public var apiKey: String?
    public var name: String?
    public var description: String?
    public var configuration: [String: String]?
    public var text: [String: [String: String]]?
    public var metadata: [String: String]?
}

extension WebApiKey {
    /// An API key to create; the server makes the key when `apiKey` is absent.
    public init(name: String? = nil, apiKey: String? = nil, description: String? = nil, configuration: [String: String]? = nil) {
        self.init(WebApiKeyFields(apiKey: apiKey, name: name, description: description, configuration: configuration))
    }
}

/// `NamedArea`.
public typealias WebNamedArea = WebEntity<WebNamedAreaFields>

/// The fields of `NamedArea` after the ``WebEntityHeader``.
public struct WebNamedAreaFields: WebEntityFields, Equatable {
    public static let typeName = "NamedArea"
    public var name: String?
    public var description: String?
    /// The area's `type` (`ENamedAreaType`), apart from the `$_type` discriminator.
    public var areaType: String?
    public var siteId: String?
    public var translations: [String: WebTranslation]?
    public var configuration: [String: String]?
    public var text: [String: [String: String]]?
    public var metadata: [String: String]?

    enum CodingKeys: String, CodingKey {
        case name, description
        case areaType = "type"
        case siteId, translations, configuration, text, metadata
    }
}

extension WebNamedArea {
    /// A named area to create.
    public init(name: String? = nil, siteId: String? = nil, areaType: String? = nil, configuration: [String: String]? = nil) {
        self.init(WebNamedAreaFields(name: name, areaType: areaType, siteId: siteId, configuration: configuration))
    }
}

/// `User`.
public typealias WebUser = WebEntity<WebUserFields>

/// The fields of `User` after the ``WebEntityHeader``.
public struct WebUserFields: WebEntityFields, Equatable {
    public static let typeName = "User"
    public var username: String?
    public var email: String?
    public var phone: String?
    public var teamId: String?
    public var authorizationRole: String?
    public var displayName: String?
    public var firstName: String?
    public var lastName: String?
    public var externallyManaged: Bool?
    public var virtualUser: Bool?
    public var configuration: [String: String]?
    public var metadata: [String: String]?
}

extension WebUser {
    /// A user to create.
    public init(username: String? = nil, authorizationRole: String? = nil, firstName: String? = nil, lastName: String? = nil, email: String? = nil) {
        self.init(WebUserFields(username: username, email: email, authorizationRole: authorizationRole, firstName: firstName, lastName: lastName))
    }
}

/// `UserPasswordContainer`.
public struct WebUserPasswordContainer: WebAPIObject {
    public static let typeName = "UserPasswordContainer"
    public var type: String? = Self.typeName
    public var user: WebUser?
    public var password: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", user, password
    }

    public init(user: WebUser, password: String) {
        self.user = user
        self.password = password
    }
}

/// `PersonData`.
public struct WebPerson: WebAPIObject, Equatable {
    public static let typeName = "PersonData"
    public var type: String? = Self.typeName
    public var id: String?
    public var accountId: String?
    public var personSource: String?
    public var sourceId: String?
    public var sourceUrl: String?
    public var sourceData: String?
    public var firstName: String?
    public var lastName: String?
    public var username: String?
    public var nickname: String?
    public var displayName: String?
    public var personType: String?
    public var authorizationRole: String?
    public var email: String?
    public var phone: String?
    public var teamId: String?
    /// The `PersonLabel`s set on the person.
    public var labels: [JSONValue]?
    public var note: String?
    public var noteLastEditedTimestamp: Int64?
    public var noteLastEditedPersonId: String?
    public var metadata: [String: String]?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, accountId, personSource, sourceId, sourceUrl, sourceData, firstName, lastName, username, nickname
        case displayName, personType, authorizationRole, email, phone, teamId, labels, note, noteLastEditedTimestamp, noteLastEditedPersonId, metadata
    }

    public init(sourceId: String? = nil, personType: String? = nil, firstName: String? = nil, lastName: String? = nil, email: String? = nil) {
        self.sourceId = sourceId
        self.personType = personType
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
    }
}
