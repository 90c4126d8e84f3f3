import CollabCore
import CollabWire
import Hummingbird

/// Starting an app, a visitor's (`POST /mobile/v1/clients`) or an agent's (`POST /agent/v1/clients`):
/// the API key names the account; an access token — in the body, or the account's token cookie (the
/// SDK's custom cookies) — names the person; the server's product version must pair with the app's SDK.
extension CollabEnvironment {
    /// Starts a visitor's app.
    func startClient(_ body: ClientStartRequest, request: Request, context: CollabRequestContext) async throws -> ClientStartResponse {
        try configuration.productVersion?.check(sdkVersion: body.device.sdkVersion)
        let apiKey = try startingKey(body.apiKey, request: request)
        context.credentialNote.identified(accountId: apiKey.accountId)
        var identity: PersonInput?
        var stamp: AccessTokenStamp?
        if let (token, settings) = try presentedAccessToken(body.accessToken, accountId: apiKey.accountId, request: request, context: context) {
            let claims = try await tokens.validate(token, settings: settings)
            identity = PersonInput(
                sourceId: claims.subject, personType: .visitor, username: claims.username, firstName: claims.firstName, lastName: claims.lastName,
                displayName: claims.displayName, email: claims.email
            )
            stamp = AccessTokenStamp(token: token, expiresAt: claims.expiresAt)
        }
        let input = ClientStartInput(
            apiKey: apiKey, deviceId: body.deviceId, device: body.device, namedArea: body.namedArea, identity: identity,
            deviceSecret: body.deviceSecret, accessToken: stamp
        )
        return try await start(input)
    }

    /// Starts an agent's app: an access token (or the account's token cookie) whose subject is an agent's
    /// username, or the agent's username and password (the vendor's login).
    func startAgentClient(_ body: AgentClientStartRequest, request: Request, context: CollabRequestContext) async throws -> ClientStartResponse {
        try configuration.productVersion?.check(sdkVersion: body.device.sdkVersion)
        let apiKey = try startingKey(body.apiKey, request: request)
        let accountId = apiKey.accountId
        context.credentialNote.identified(accountId: accountId)
        let userId: String
        var stamp: AccessTokenStamp?
        if let (token, settings) = try presentedAccessToken(body.accessToken, accountId: accountId, request: request, context: context) {
            let claims = try await tokens.validate(token, settings: settings)
            let names = [claims.username, claims.subject].compactMap { $0 }
            let found = try read(account: accountId) { state -> String? in
                for name in names { if let user = state.user(loginName: name) { return user.id } }
                return nil
            }
            guard let found else {
                throw CollabError.unauthorized("the access token names no agent of this account")
            }
            userId = found
            stamp = AccessTokenStamp(token: token, expiresAt: claims.expiresAt)
        } else if let username = body.username, let password = body.password {
            let principal = try await Authenticator(environment: self).principal(username: username, password: password)
            guard principal.accountId == accountId, let found = principal.userId else {
                throw CollabError.unauthorized("invalid username or password")
            }
            userId = found
        } else {
            throw CollabError.unauthorized("an agent's app starts with an access token, the account's token cookie, or username and password")
        }
        let input = ClientStartInput(
            apiKey: apiKey, deviceId: body.deviceId, device: body.device, namedArea: body.namedArea, agentUserId: userId,
            accessToken: stamp
        )
        return try await start(input)
    }

    private func start(_ input: ClientStartInput) async throws -> ClientStartResponse {
        try await write(account: input.apiKey.accountId) { state, changes, op throws(CollabError) in
            let (session, deviceSecret) = try state.startClient(input, context: op, changes: &changes)
            let person = state.persons[session.personId]!
            let configuration = try state.configuration(for: session).resolved().mapValues(\.value)
            return ClientStartResponse(
                token: session.id, clientId: session.clientId, accountId: session.accountId, person: PersonView(person),
                namedAreaId: session.namedAreaId, configuration: configuration, serverTime: op.now, deviceSecret: deviceSecret
            )
        }
    }

    /// The API key of a start: the body's, else the `x-unblu-apikey` header.
    private func startingKey(_ presented: String?, request: Request) throws(CollabError) -> ApiKey {
        guard let keyString = presented ?? request.headers[.init("x-unblu-apikey")!], !keyString.isEmpty else {
            throw CollabError(.invalidApiKey, "an API key is required (apiKey or the x-unblu-apikey header)")
        }
        guard keyString.utf8.count <= Limits.nameLength, let accountId = accountId(for: .apiKey(keyString)),
            let apiKey = try? read(account: accountId, { $0.apiKey(presented: keyString) })
        else {
            throw CollabError(.invalidApiKey, "unknown API key")
        }
        return apiKey
    }

    /// The access token a start presents: the body's, else — where the surface takes it — the cookie the
    /// account names for access tokens, which the journal records by name. `nil`: none (an anonymous
    /// visitor, or an agent logging in with a password).
    private func presentedAccessToken(
        _ bodyToken: String?, accountId: String, request: Request, context: CollabRequestContext
    ) throws(CollabError) -> (String, JWTValidationSettings)? {
        let settings = try read(account: accountId) { $0.jwtValidation(accountId: accountId) }
        var token = bodyToken
        if token == nil, context.takesAccountCookie, let name = settings?.cookieName, let cookie = request.cookies[name]?.value {
            context.credentialNote.cookie(name)
            token = cookie
        }
        guard let token else { return nil }
        guard let settings else { throw CollabError.unauthorized("the account accepts no access tokens") }
        return (token, settings)
    }
}
