public import CollabWire

/// A declarative description of tenants: what `--seed FILE` and the control API's seed take.
///
/// Applying a seed is idempotent: entities are matched by natural key (accounts by name, API keys by
/// key, named areas by site id, users by username, virtual persons by source id) and updated in place;
/// nothing that is not mentioned is removed.
public struct Seed: Sendable, Codable, Equatable {
    /// GLOBAL-scope configuration, merged key by key.
    public var global: GlobalSeed?
    /// Absent: none (a seed may change only the GLOBAL settings).
    public var accounts: [AccountSeed]

    public init(global: GlobalSeed? = nil, accounts: [AccountSeed] = []) {
        self.global = global
        self.accounts = accounts
    }

    private enum CodingKeys: String, CodingKey {
        case global, accounts
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        global = try container.decodeIfPresent(GlobalSeed.self, forKey: .global)
        accounts = try container.decodeIfPresent([AccountSeed].self, forKey: .accounts) ?? []
    }

    public struct GlobalSeed: Sendable, Codable, Equatable {
        public var configuration: [String: String]?
        /// Global file-upload interceptors, each as its Web API object (`FileUploadInterceptorData`),
        /// matched by name and updated in place; one without `webhookSecret` gets a generated one.
        public var fileUploadInterceptors: [WebFileUploadInterceptor]?
        public init(configuration: [String: String]? = nil, fileUploadInterceptors: [WebFileUploadInterceptor]? = nil) {
            self.configuration = configuration
            self.fileUploadInterceptors = fileUploadInterceptors
        }
    }

    public struct AccountSeed: Sendable, Codable, Equatable {
        public var name: String
        public var configuration: [String: String]?
        public var metadata: [String: String]?
        public var apiKeys: [ApiKeySeed]?
        public var namedAreas: [NamedAreaSeed]?
        public var users: [UserSeed]?
        public var persons: [PersonSeed]?
        public var jwt: JWTSeed?
        /// Where the account's pushes go besides the outbox.
        public var push: PushSeed?
        /// Fault rules installed for the account (the control API's rule body; the rule is confined to
        /// this account). A rule keeps its `id` if it has one, else gets one from its position, so
        /// applying the seed again replaces its rules instead of adding them twice.
        public var faults: [FaultRule]?
        /// Entities of the declared kinds (``EntityRegistry``), by seed key (`cannedResponses`,
        /// `personLabels`, …), each as its Web API object. Matched by unique name (or by `id` for kinds
        /// without one) and updated in place.
        public var entities: [String: [JSONValue]]?
        /// Webhook registrations, matched by name. One without a `secret` gets a generated one when
        /// created and keeps its stored one when updated.
        public var webhookRegistrations: [WebhookSeed]?
        /// Dialog bots, matched by name; a missing `webhookSecret` is generated or kept like a webhook's.
        public var bots: [BotSeed]?

        public init(
            name: String, configuration: [String: String]? = nil, metadata: [String: String]? = nil, apiKeys: [ApiKeySeed]? = nil,
            namedAreas: [NamedAreaSeed]? = nil, users: [UserSeed]? = nil, persons: [PersonSeed]? = nil, jwt: JWTSeed? = nil, push: PushSeed? = nil,
            faults: [FaultRule]? = nil
        ) {
            self.name = name
            self.configuration = configuration
            self.metadata = metadata
            self.apiKeys = apiKeys
            self.namedAreas = namedAreas
            self.users = users
            self.persons = persons
            self.jwt = jwt
            self.push = push
            self.faults = faults
        }
    }

    /// Push sinks of an account.
    public struct PushSeed: Sendable, Codable, Equatable {
        public var apns: PushSettings.APNs?
        public var fcm: PushSettings.FCM?
        public var simulatorDirectory: String?
        public init(apns: PushSettings.APNs? = nil, fcm: PushSettings.FCM? = nil, simulatorDirectory: String? = nil) {
            self.apns = apns
            self.fcm = fcm
            self.simulatorDirectory = simulatorDirectory
        }
    }

    public struct ApiKeySeed: Sendable, Codable, Equatable {
        public var key: String
        public var name: String?
        public var description: String?
        public var configuration: [String: String]?
        public init(key: String, name: String? = nil, description: String? = nil, configuration: [String: String]? = nil) {
            self.key = key
            self.name = name
            self.description = description
            self.configuration = configuration
        }
    }

    public struct NamedAreaSeed: Sendable, Codable, Equatable {
        public var siteId: String
        public var name: String?
        public var description: String?
        public var type: NamedArea.AreaType?
        public var configuration: [String: String]?
        /// The area's metadata; left out: kept.
        public var metadata: [String: String]?
        public init(
            siteId: String, name: String? = nil, description: String? = nil, type: NamedArea.AreaType? = nil, configuration: [String: String]? = nil,
            metadata: [String: String]? = nil
        ) {
            self.siteId = siteId
            self.name = name
            self.description = description
            self.type = type
            self.configuration = configuration
            self.metadata = metadata
        }
    }

    public struct UserSeed: Sendable, Codable, Equatable {
        public var username: String
        /// Clear-text password; stored only as a slow salted hash.
        public var password: String?
        public var role: AuthorizationRole?
        public var firstName: String?
        public var lastName: String?
        public var displayName: String?
        public var email: String?
        public var phone: String?
        public var teamId: String?
        /// The user's level of the configuration cascade; left out: kept.
        public var configuration: [String: String]?
        /// The user's metadata; left out: kept.
        public var metadata: [String: String]?
        public init(
            username: String, password: String? = nil, role: AuthorizationRole? = nil, firstName: String? = nil, lastName: String? = nil,
            displayName: String? = nil, email: String? = nil, phone: String? = nil, teamId: String? = nil, configuration: [String: String]? = nil,
            metadata: [String: String]? = nil
        ) {
            self.configuration = configuration
            self.metadata = metadata
            self.username = username
            self.password = password
            self.role = role
            self.firstName = firstName
            self.lastName = lastName
            self.displayName = displayName
            self.email = email
            self.phone = phone
            self.teamId = teamId
        }
    }

    public struct PersonSeed: Sendable, Codable, Equatable {
        public var sourceId: String
        public var personType: Person.PersonType?
        public var firstName: String?
        public var lastName: String?
        public var displayName: String?
        public var email: String?
        public init(
            sourceId: String, personType: Person.PersonType? = nil, firstName: String? = nil, lastName: String? = nil, displayName: String? = nil,
            email: String? = nil
        ) {
            self.sourceId = sourceId
            self.personType = personType
            self.firstName = firstName
            self.lastName = lastName
            self.displayName = displayName
            self.email = email
        }
    }

    /// Access-token validation for the account.
    public struct JWTSeed: Sendable, Codable, Equatable {
        public var issuer: String?
        public var audience: String?
        public var keys: [JWTValidationSettings.Key]?
        /// A JWKS document as JSON text.
        public var jwks: String?
        /// The HS256 secret the control API signs test tokens with (generated when absent).
        public var testTokenSecret: String?
        /// A cookie that carries an access token (the SDK's custom cookies): clients starting without one
        /// are identified by it.
        public var cookie: String?
        public init(
            issuer: String? = nil, audience: String? = nil, keys: [JWTValidationSettings.Key]? = nil, jwks: String? = nil,
            testTokenSecret: String? = nil,
            cookie: String? = nil
        ) {
            self.issuer = issuer
            self.audience = audience
            self.keys = keys
            self.jwks = jwks
            self.testTokenSecret = testTokenSecret
            self.cookie = cookie
        }
    }

    /// The tenant a fresh server starts with when no seed is given.
    public static let defaultTenant = Seed(accounts: [
        AccountSeed(
            name: "demo",
            apiKeys: [ApiKeySeed(key: "demo-api-key", name: "Demo API key")],
            namedAreas: [NamedAreaSeed(siteId: "demo-area", name: "demo-area", type: .metaTag)],
            users: [
                UserSeed(username: "superadmin", password: "superadmin", role: .superAdmin, firstName: "Super", lastName: "Admin"),
                UserSeed(username: "admin", password: "admin", role: .admin, firstName: "Demo", lastName: "Admin"),
                UserSeed(username: "agent", password: "agent", role: .registeredUser, firstName: "Demo", lastName: "Agent"),
            ]
        )
    ])

    /// Every user with a password, as (username, password) pairs; the server hashes them before applying.
    public var passwords: [(username: String, password: String)] {
        accounts.flatMap { ($0.users ?? []).compactMap { user in user.password.map { (user.username, $0) } } }
    }
}
