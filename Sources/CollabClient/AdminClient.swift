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
    public init(
        baseURL: String, credentials: ClientCredentials = .none, client: HTTPClient = .shared, prefix: String = "/app/rest/v4", tls: TLSOptions? = nil
    ) {
        self.transport = HTTPTransport(baseURL: baseURL, credentials: credentials, client: client, tls: tls)
        self.prefix = prefix
    }

    public var accounts: Accounts { Accounts(client: self) }
    public var apiKeys: ApiKeys { ApiKeys(client: self) }
    public var namedAreas: NamedAreas { NamedAreas(client: self) }
    public var users: Users { Users(client: self) }
    public var persons: Persons { Persons(client: self) }
    public var authenticator: Authenticator { Authenticator(client: self) }

    func expand(_ fields: [String]) -> [(String, String)] {
        fields.isEmpty ? [] : [("expand", fields.joined(separator: ","))]
    }

    /// `/accounts`.
    public struct Accounts: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/accounts" }

        public func current(expand: [String] = []) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("GET", base + "/getCurrentAccount", query: client.expand(expand))
        }
        public func read(_ id: String, expand: [String] = []) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("GET", base + "/\(id)/read", query: client.expand(expand))
        }
        public func search(_ query: WebQuery = WebQuery(type: "AccountQuery")) async throws(CollabClientError) -> WebResult<WebAccount> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        public func create(_ account: WebAccount) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("POST", base + "/create", body: account)
        }
        public func createWithNewAdmin(_ account: WebAccount, admin: WebUser) async throws(CollabClientError) -> WebAccountUserContainer {
            try await client.transport.send("POST", base + "/createAccountWithNewAdmin", body: WebAccountUserContainer(account: account, adminUser: admin))
        }
        public func update(_ account: WebAccount, expand: [String] = []) async throws(CollabClientError) -> WebAccount {
            try await client.transport.send("POST", base + "/update", query: client.expand(expand), body: account)
        }
        public func delete(_ id: String) async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("DELETE", base + "/\(id)/delete")
        }
    }

    /// `/apikeys`.
    public struct ApiKeys: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/apikeys" }

        public func create(_ key: WebApiKey) async throws(CollabClientError) -> WebApiKey {
            try await client.transport.send("POST", base + "/create", body: key)
        }
        public func read(_ id: String, expand: [String] = []) async throws(CollabClientError) -> WebApiKey {
            try await client.transport.send("GET", base + "/\(id)/read", query: client.expand(expand))
        }
        public func getByKey(_ key: String) async throws(CollabClientError) -> WebApiKey {
            try await client.transport.send("GET", base + "/getByKey", query: [("apiKey", key)])
        }
        public func getDefault() async throws(CollabClientError) -> WebApiKey {
            try await client.transport.send("GET", base + "/getDefault")
        }
        public func readMultiple(_ ids: [String]) async throws(CollabClientError) -> WebList<WebApiKey> {
            try await client.transport.send("POST", base + "/readMultiple", body: ids)
        }
        public func search(_ query: WebQuery = WebQuery(type: "ApiKeyQuery")) async throws(CollabClientError) -> WebResult<WebApiKey> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        public func update(_ key: WebApiKey, expand: [String] = []) async throws(CollabClientError) -> WebApiKey {
            try await client.transport.send("POST", base + "/update", query: client.expand(expand), body: key)
        }
        public func delete(_ id: String) async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("DELETE", base + "/\(id)/delete")
        }
    }

    /// `/namedareas`.
    public struct NamedAreas: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/namedareas" }

        public func create(_ area: WebNamedArea) async throws(CollabClientError) -> WebNamedArea {
            try await client.transport.send("POST", base + "/create", body: area)
        }
        public func read(_ id: String, expand: [String] = []) async throws(CollabClientError) -> WebNamedArea {
            try await client.transport.send("GET", base + "/\(id)/read", query: client.expand(expand))
        }
        public func readMultiple(_ ids: [String]) async throws(CollabClientError) -> WebList<WebNamedArea> {
            try await client.transport.send("POST", base + "/readMultiple", body: ids)
        }
        public func search(_ query: WebQuery = WebQuery(type: "NamedAreaQuery")) async throws(CollabClientError) -> WebResult<WebNamedArea> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        public func update(_ area: WebNamedArea, expand: [String] = []) async throws(CollabClientError) -> WebNamedArea {
            try await client.transport.send("POST", base + "/update", query: client.expand(expand), body: area)
        }
        public func delete(_ id: String) async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("DELETE", base + "/\(id)/delete")
        }
    }

    /// `/users`.
    public struct Users: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/users" }

        public func create(_ user: WebUser) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/create", body: user)
        }
        public func create(_ user: WebUser, password: String) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/createWithPassword", body: WebUserPasswordContainer(user: user, password: password))
        }
        public func read(_ id: String, expand: [String] = []) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("GET", base + "/\(id)/read", query: client.expand(expand))
        }
        public func getByUsername(_ username: String) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("GET", base + "/getByUsername", query: [("username", username)])
        }
        public func search(_ query: WebQuery = WebQuery(type: "UserQuery")) async throws(CollabClientError) -> WebResult<WebUser> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        public func update(_ user: WebUser) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/update", body: user)
        }
        public func delete(_ id: String) async throws(CollabClientError) {
            try await client.transport.sendWithoutResult("DELETE", base + "/\(id)/delete")
        }
        public func setPassword(_ id: String, password: String) async throws(CollabClientError) -> WebUser {
            try await client.transport.send("POST", base + "/\(id)/setPassword", body: WebSetPasswordBody(password: password))
        }
    }

    /// `/persons`.
    public struct Persons: Sendable {
        let client: AdminClient
        private var base: String { client.prefix + "/persons" }

        public func read(_ id: String) async throws(CollabClientError) -> WebPerson {
            try await client.transport.send("GET", base + "/\(id)/read")
        }
        public func getBySource(_ source: String, sourceId: String) async throws(CollabClientError) -> WebPerson {
            try await client.transport.send("GET", base + "/getBySource", query: [("personSource", source), ("sourceId", sourceId)])
        }
        public func createOrUpdateVirtual(_ person: WebPerson) async throws(CollabClientError) -> WebPerson {
            try await client.transport.send("POST", base + "/createOrUpdateVirtual", body: person)
        }
        public func search(_ query: WebQuery = WebQuery(type: "PersonQuery")) async throws(CollabClientError) -> WebResult<WebPerson> {
            try await client.transport.send("POST", base + "/search", body: query)
        }
        public func searchAgents(_ query: WebQuery = WebQuery(type: "PersonTypedQuery")) async throws(CollabClientError) -> WebResult<WebPerson> {
            try await client.transport.send("POST", base + "/searchAgents", body: query)
        }
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
            let _: WebLoginResult = try await client.transport.send("POST", base + "/login", body: WebLoginBody(username: username, password: password))
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
