public import AsyncHTTPClient
public import CollabWire

/// A client for the Web API v4 subset (`/app/rest/v4`), as an administrator, agent or super admin
/// would use it from a backend or a test.
///
/// Operations are grouped like the vendor's services: `admin.accounts`, `admin.apiKeys`,
/// `admin.namedAreas`, `admin.users`, `admin.persons`, `admin.authenticator`.
public struct AdminClient: Sendable {
    /// The transport (credentials, session cookie).
    public let transport: HTTPTransport
    /// The Web API prefix, `/app/rest/v4` by default.
    public let prefix: String

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: The server's root URL, e.g. `http://127.0.0.1:8080`.
    ///   - credentials: How to authenticate; log in with ``Authenticator/login(username:password:)`` for a session instead.
    ///   - client: The HTTP client to use.
    ///   - prefix: The Web API prefix (`/unblu/rest/v4` is the alias).
    ///   - tls: Trust, pins and client certificate for an `https://` server.
    public init(
        baseURL: String, credentials: ClientCredentials = .none, client: HTTPClient = .collab, prefix: String = "/app/rest/v4", tls: TLSOptions? = nil
    ) {
        self.transport = HTTPTransport(baseURL: baseURL, credentials: credentials, client: client, tls: tls)
        self.prefix = prefix
    }

    /// Accounts: the caller's, and every account for a super admin.
    public var accounts: Accounts { Accounts(client: self) }
    /// The account's API keys.
    public var apiKeys: ApiKeys { ApiKeys(client: self, path: "/apikeys", queryType: "ApiKeyQuery") }
    /// The account's named areas.
    public var namedAreas: NamedAreas { NamedAreas(client: self, path: "/namedareas", queryType: "NamedAreaQuery") }
    /// The account's users.
    public var users: Users { Users(client: self) }
    /// The account's persons: users' persons, visitors and virtual persons.
    public var persons: Persons { Persons(client: self) }
    /// Log in, out, switch account, impersonate.
    public var authenticator: Authenticator { Authenticator(client: self) }

    func expand(_ fields: [String]) -> [(String, String)] {
        fields.isEmpty ? [] : [("expand", fields.joined(separator: ","))]
    }

    /// `/accounts`.
    public struct Accounts: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/accounts" }

        /// The caller's account (`getCurrentAccount`).
        /// - Parameter expand: Parts to include, e.g. `["configuration", "metadata"]`.
        public func current(expand: [String] = []) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("GET", base + "/getCurrentAccount", query: client.expand(expand))
        }
        /// Reads an account by id.
        /// - Parameters:
        ///   - id: Its id.
        ///   - expand: Parts to include, e.g. `["configuration"]`.
        public func read(_ id: String, expand: [String] = []) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("GET", base + "/\(id)/read", query: client.expand(expand))
        }
        /// Searches the accounts the caller may see (`searchFilters`, `orderBy`, `offset`, `limit`).
        /// - Parameter query: The vendor's query; all when empty.
        public func search(_ query: WebQuery = WebQuery(type: "AccountQuery")) async throws(CollabClientError) -> WebResult<WebAccount> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        /// Creates an account.
        /// - Parameter account: The account to create; the server sets its id and version.
        public func create(_ account: WebAccount) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("POST", base + "/create", body: account)
        }
        /// Creates an account with its first admin (`createAccountWithNewAdmin`).
        /// - Parameters:
        ///   - account: The account to create.
        ///   - admin: Its first admin user.
        public func createWithNewAdmin(_ account: WebAccount, admin: WebUser) async throws(CollabClientError) -> WebAccountUserContainer {
            try await client.transport.send(
                "POST", base + "/createAccountWithNewAdmin", body: WebAccountUserContainer(account: account, adminUser: admin))
        }
        /// Updates an account; a stale `version` is a conflict.
        /// - Parameters:
        ///   - account: The account as read, changed.
        ///   - expand: Parts to include in the answer.
        public func update(_ account: WebAccount, expand: [String] = []) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("POST", base + "/update", query: client.expand(expand), body: account)
        }
        /// Deletes an account.
        /// - Parameter id: Its id.
        public func delete(_ id: String) async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("DELETE", base + "/\(id)/delete")
        }
    }

    /// `/apikeys`.
    public typealias ApiKeys = Entities<WebApiKey>

    /// `/namedareas`.
    public typealias NamedAreas = Entities<WebNamedArea>

    /// A service whose entities are created, read, searched, updated and deleted the vendor's way
    /// (`create`, `{id}/read`, `readMultiple`, `search`, `update`, `{id}/delete`): API keys and named areas.
    public struct Entities<Entity: Codable & Sendable>: Sendable {
        let client: AdminClient
        /// The service's path below the prefix, e.g. `/apikeys`.
        let path: String
        /// The `$_type` of a search query for this service, e.g. `ApiKeyQuery`.
        let queryType: String
        private var base: String { client.prefix + path }

        /// Creates an entity.
        /// - Parameter entity: The entity to create; the server sets its id and version.
        public func create(_ entity: Entity) async throws(CollabClientError) -> Entity {
            try await client.transport.send("POST", base + "/create", body: entity)
        }
        /// Reads an entity by id.
        /// - Parameters:
        ///   - id: Its id.
        ///   - expand: Parts to include, e.g. `["configuration"]`.
        public func read(_ id: String, expand: [String] = []) async throws(CollabClientError) -> Entity {
            try await client.transport.send("GET", base + "/\(id)/read", query: client.expand(expand))
        }
        /// Reads several entities at once.
        /// - Parameter ids: Their ids.
        public func readMultiple(_ ids: [String]) async throws(CollabClientError) -> WebList<Entity> {
            try await client.transport.send("POST", base + "/readMultiple", body: ids)
        }
        /// Searches the entities the caller may see (`searchFilters`, `orderBy`, `offset`, `limit`).
        /// - Parameter query: The vendor's query; all when absent.
        public func search(_ query: WebQuery? = nil) async throws(CollabClientError) -> WebResult<Entity> {
            try await client.transport.send("POST", base + "/search", body: query ?? WebQuery(type: queryType))
        }
        /// Updates an entity; a stale `version` is a conflict.
        /// - Parameters:
        ///   - entity: The entity as read, changed.
        ///   - expand: Parts to include in the answer.
        public func update(_ entity: Entity, expand: [String] = []) async throws(CollabClientError) -> Entity {
            try await client.transport.send("POST", base + "/update", query: client.expand(expand), body: entity)
        }
        /// Deletes an entity.
        /// - Parameter id: Its id.
        public func delete(_ id: String) async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("DELETE", base + "/\(id)/delete")
        }
    }

    /// `/users`.
    public struct Users: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/users" }

        /// Creates an user.
        /// - Parameter user: The user to create; the server sets its id and version.
        public func create(_ user: WebUser) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/create", body: user)
        }
        /// Creates a user with a password (`createWithPassword`).
        /// - Parameters:
        ///   - user: The user to create.
        ///   - password: Its password (stored as a bcrypt hash only).
        public func create(_ user: WebUser, password: String) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/createWithPassword", body: WebUserPasswordContainer(user: user, password: password))
        }
        /// Reads an user by id.
        /// - Parameters:
        ///   - id: Its id.
        ///   - expand: Parts to include, e.g. `["configuration"]`.
        public func read(_ id: String, expand: [String] = []) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("GET", base + "/\(id)/read", query: client.expand(expand))
        }
        /// The user with this username.
        /// - Parameter username: The username.
        public func getByUsername(_ username: String) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("GET", base + "/getByUsername", query: [("username", username)])
        }
        /// Searches the users the caller may see (`searchFilters`, `orderBy`, `offset`, `limit`).
        /// - Parameter query: The vendor's query; all when empty.
        public func search(_ query: WebQuery = WebQuery(type: "UserQuery")) async throws(CollabClientError) -> WebResult<WebUser> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        /// Updates an user; a stale `version` is a conflict.
        /// - Parameter user: The user as read, changed.
        public func update(_ user: WebUser) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/update", body: user)
        }
        /// Deletes an user.
        /// - Parameter id: Its id.
        public func delete(_ id: String) async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("DELETE", base + "/\(id)/delete")
        }
        /// Sets a user's password; the user's sessions end.
        /// - Parameters:
        ///   - id: The user's id.
        ///   - password: The new password.
        public func setPassword(_ id: String, password: String) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/\(id)/setPassword", body: WebSetPasswordBody(password: password))
        }
    }

    /// `/persons`.
    public struct Persons: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/persons" }

        /// Reads a person by id.
        /// - Parameter id: Its id.
        public func read(_ id: String) async throws(CollabClientError) -> WebPerson {
            try await client.transport.send("GET", base + "/\(id)/read")
        }
        /// The person with this source and source id.
        /// - Parameters:
        ///   - source: `VIRTUAL` or `USER_DB`.
        ///   - sourceId: Its id in that source.
        public func getBySource(_ source: String, sourceId: String) async throws(CollabClientError) -> WebPerson {
            try await client.transport.send("GET", base + "/getBySource", query: [("personSource", source), ("sourceId", sourceId)])
        }
        /// Creates a virtual person, or updates the one with the same `sourceId`.
        /// - Parameter person: The person.
        public func createOrUpdateVirtual(_ person: WebPerson) async throws(CollabClientError) -> WebPerson {
            try await client.transport.send("POST", base + "/createOrUpdateVirtual", body: person)
        }
        /// Searches the persons the caller may see (`searchFilters`, `orderBy`, `offset`, `limit`).
        /// - Parameter query: The vendor's query; all when empty.
        public func search(_ query: WebQuery = WebQuery(type: "PersonQuery")) async throws(CollabClientError) -> WebResult<WebPerson> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        /// Searches the account's agents.
        /// - Parameter query: The vendor's `PersonTypedQuery`.
        public func searchAgents(_ query: WebQuery = WebQuery(type: "PersonTypedQuery")) async throws(CollabClientError) -> WebResult<WebPerson> {
            try await client.transport.send("POST", base + "/searchAgents", body: query)
        }
        /// Searches the account's visitors.
        /// - Parameter query: The vendor's `PersonTypedQuery`.
        public func searchVisitors(_ query: WebQuery = WebQuery(type: "PersonTypedQuery")) async throws(CollabClientError) -> WebResult<WebPerson> {
            try await client.transport.send("POST", base + "/searchVisitors", body: query)
        }
    }

    /// `/authenticator`.
    public struct Authenticator: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/authenticator" }

        /// Logs in; the session cookie is kept by the transport and used from now on.
        public func login(username: String, password: String) async throws(CollabClientError) {
            client.transport.setCredentials(.none)
            let _: WebLoginResult = try await client.transport.send(
                "POST", base + "/login", body: WebLoginBody(username: username, password: password))
        }
        /// Ends the session.
        public func logout() async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("POST", base + "/logout", body: WebLogoutBody())
            client.transport.clearSession()
        }
        /// A one-time token that `authenticateWithToken` exchanges for a session.
        public func createAuthenticationToken(username: String, password: String) async throws(CollabClientError) -> String {
            let result: WebAuthenticationTokenResult = try await client.transport.send(
                "POST", base + "/createAuthenticationToken", body: WebLoginBody(username: username, password: password)
            )
            return result.token ?? ""
        }
        /// Exchanges a one-time token for a session.
        public func authenticate(withToken token: String) async throws(CollabClientError) {
            client.transport.setCredentials(.none)
            let _: WebLoginResult = try await client.transport.send("GET", base + "/authenticateWithToken", query: [("authenticationToken", token)])
        }
        /// Logs a visitor in with an access token (JWT) for the account of `apiKey`.
        public func loginWithSecureToken(_ token: String, apiKey: String) async throws(CollabClientError) {
            client.transport.setCredentials(.none)
            try await client.transport.sendWithoutResult(
                "POST", base + "/loginWithSecureToken", query: [("x-unblu-apikey", apiKey)], body: WebSecureTokenRequest(token: token)
            )
        }
        /// The person behind the current credentials.
        public func currentPerson() async throws(CollabClientError) -> WebPerson {
            try await client.transport.send("GET", base + "/getCurrentPerson")
        }
    }
}

extension AdminClient.Entities where Entity == WebApiKey {
    /// The API key with this key string.
    /// - Parameter key: The key apps send.
    public func getByKey(_ key: String) async throws(CollabClientError) -> WebApiKey {
        try await client.transport.send("GET", base + "/getByKey", query: [("apiKey", key)])
    }
    /// The account's default API key.
    public func getDefault() async throws(CollabClientError) -> WebApiKey {
        try await client.transport.send("GET", base + "/getDefault")
    }
}
