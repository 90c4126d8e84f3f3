public import CollabWire
import Crypto
import Foundation

/// What starting a mobile client takes.
public struct ClientStartInput: Sendable {
    public var apiKey: ApiKey
    public var deviceId: String
    public var device: DeviceInfo
    /// A named area id or site id.
    public var namedArea: String?
    /// The person an access token identified; `nil` for an anonymous visitor.
    public var identity: PersonInput?
    /// The secret an anonymous device's first start was given, presented on every later start.
    public var deviceSecret: String?
    /// The agent user an agent's app starts for (by access token or login); `nil` for a visitor's app.
    public var agentUserId: String?
    /// The access token the client starts with, when it has one: its expiry ends the client's
    /// authorization, and revoking it (by digest) ends it sooner.
    public var accessToken: AccessTokenStamp?

    public init(
        apiKey: ApiKey, deviceId: String, device: DeviceInfo, namedArea: String? = nil, identity: PersonInput? = nil, deviceSecret: String? = nil,
        agentUserId: String? = nil, accessToken: AccessTokenStamp? = nil
    ) {
        self.apiKey = apiKey
        self.deviceId = deviceId
        self.device = device
        self.namedArea = namedArea
        self.identity = identity
        self.deviceSecret = deviceSecret
        self.agentUserId = agentUserId
        self.accessToken = accessToken
    }
}

/// What the server keeps of an access token a client started with: when it expires, and its SHA-256.
public struct AccessTokenStamp: Sendable, Equatable {
    public var expiresAt: Timestamp
    /// SHA-256 of the token, hex.
    public var digest: String

    public init(expiresAt: Timestamp, digest: String) {
        self.expiresAt = expiresAt
        self.digest = digest
    }

    /// The stamp of `token`, which expires at `expiresAt`.
    public init(token: String, expiresAt: Timestamp) {
        self.init(expiresAt: expiresAt, digest: Self.digest(of: token))
    }

    /// The digest the server keeps of `token` (SHA-256, hex): what a revocation names.
    public static func digest(of token: String) -> String { DeviceSecret.hash(token) }
}

/// Why a client's authorization ended while it ran (the `reason` of its `client.error` event).
public enum AuthorizationEnd: String, Sendable {
    /// The access token's `exp` passed on the server clock.
    case expired = "EXPIRED"
    /// The access token was revoked.
    case revoked = "REVOKED"
}

extension AccountState {
    /// The source-id prefix of anonymous devices' visitors, which access tokens may not use as a subject.
    public static let anonymousDevicePrefix = "device:"

    /// Starts a mobile client: finds or creates its visitor (identified by the access token's subject, or
    /// anonymous with a stable device id) and opens a client session.
    ///
    /// An anonymous device is given a secret on its first start (returned once, stored only as a hash);
    /// a later start with the same device id must present it, so knowing a device id is not enough to
    /// become that visitor.
    /// - Returns: The session, and the device secret when this start issued one.
    public mutating func startClient(
        _ input: ClientStartInput, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> (session: ClientSession, issuedDeviceSecret: String?) {
        let accountId = input.apiKey.accountId
        // A device id becomes part of its device record's id, which a database column stores as text: no
        // control character (PostgreSQL's text refuses NUL).
        let printable = input.deviceId.unicodeScalars.allSatisfy { !$0.properties.isWhitespace && $0.properties.generalCategory != .control }
        guard !input.deviceId.isEmpty, Limits.fits(input.deviceId, Limits.nameLength), printable else {
            throw .badRequest("deviceId must be 1 to \(Limits.nameLength) characters without spaces or control characters")
        }
        try input.device.validate()
        let areaId = try input.namedArea.map { reference throws(CollabError) in try namedAreaIds([reference], accountId: accountId).first! }
        if let stamp = input.accessToken { try checkNotRevoked(accessTokenDigest: stamp.digest) }
        if let userId = input.agentUserId {
            return (try startAgentClient(input, userId: userId, areaId: areaId, context: context, changes: &changes), nil)
        }
        var issuedSecret: String?
        if let identity = input.identity {
            guard !(identity.sourceId ?? "").hasPrefix(Self.anonymousDevicePrefix) else {
                throw .unauthorized("access token subjects starting with '\(Self.anonymousDevicePrefix)' are reserved for anonymous devices")
            }
        } else {
            let key = PersonSourceKey(source: .virtual, sourceId: Self.anonymousDevicePrefix + input.deviceId)
            if let hash = personIdBySource[key].flatMap({ persons[$0] })?.deviceSecretHash {
                guard let presented = input.deviceSecret, presented.utf8.count <= 128, DeviceSecret.hash(presented) == hash else {
                    throw .unauthorized(
                        "this device id belongs to an installation that holds its device secret: present deviceSecret, or use another device id")
                }
            } else {
                issuedSecret = context.ids.makeSecret()
            }
        }
        var identity = input.identity ?? PersonInput(sourceId: Self.anonymousDevicePrefix + input.deviceId, personType: .visitor)
        identity.personType = .visitor
        var person = try createOrUpdateVirtualPerson(identity, accountId: accountId, context: context, changes: &changes)
        if let issuedSecret {
            person.deviceSecretHash = DeviceSecret.hash(issuedSecret)
            storePerson(person)
            changes.put(person)
        }
        var session = ClientSession(
            id: context.ids.makeSecret(), clientId: context.ids.make(), accountId: accountId, apiKeyId: input.apiKey.id, personId: person.id,
            deviceId: input.deviceId, device: input.device, namedAreaId: areaId, identified: input.identity != nil, createdAt: context.now
        )
        session.accessTokenExpiresAt = input.accessToken?.expiresAt
        session.accessTokenDigest = input.accessToken?.digest
        storeStarted(session, context: context, changes: &changes)
        return (session, issuedSecret)
    }

    /// Starts an agent's app for an agent user of the account (its access token named the user, or it
    /// logged in): the agent's person, with the device that registers like a visitor's.
    private mutating func startAgentClient(
        _ input: ClientStartInput, userId: String, areaId: String?, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> ClientSession {
        guard let user = users[userId], user.accountId == input.apiKey.accountId, user.authorizationRole >= .registeredUser,
            let person = person(ofUser: user)
        else { throw .unauthorized("not an agent of this account") }
        var session = ClientSession(
            id: context.ids.makeSecret(), clientId: context.ids.make(), accountId: user.accountId, apiKeyId: input.apiKey.id, personId: person.id,
            deviceId: input.deviceId, device: input.device, namedAreaId: areaId, identified: true, createdAt: context.now
        )
        session.userId = user.id
        session.accessTokenExpiresAt = input.accessToken?.expiresAt
        session.accessTokenDigest = input.accessToken?.digest
        storeStarted(session, context: context, changes: &changes)
        return session
    }

    private mutating func storeStarted(_ session: ClientSession, context: OperationContext, changes: inout ChangeSet) {
        // Each start stores a client that lives until it stops or idles out: a person's oldest are stopped
        // past the bound (their sockets close), so restarting in a loop does not grow the account.
        let held = clientSessions.rows(Indexes.clientByPerson, session.personId)
        if held.count >= ClientLimits.perPerson {
            let oldest = held.sorted { ($0.lastSeenAt, $0.createdAt, $0.id) < ($1.lastSeenAt, $1.createdAt, $1.id) }
            for old in oldest.prefix(held.count - ClientLimits.perPerson + 1) { stopClient(token: old.id, changes: &changes) }
        }
        clientSessions[session.id] = session
        try? directory.claim(.client(session.id), for: session.accountId, log: &directoryLog, conflict: .conflict("token clash"))
        scheduleDeadlines(of: session)
        changes.put(session)
    }

    /// Schedules a client's idle expiry and, when it started with an access token, the end of its
    /// authorization at the token's expiry.
    mutating func scheduleDeadlines(of session: ClientSession) {
        deadlines.schedule(.clientIdle(session.id), at: session.lastSeenAt)
        if let expiry = session.accessTokenExpiresAt { deadlines.schedule(.clientAuthorization(session.id), at: expiry) }
    }

    /// Ends a running client whose access token expired or was revoked: it is told by a `client.error`
    /// event (the SDK's non-fatal AUTHORIZATION error), which its live socket delivers before closing, and
    /// is stopped — the app stops, gets a new token and starts again.
    /// - Returns: Whether a client was ended.
    mutating func endAuthorization(ofClient token: String, reason: AuthorizationEnd, context: OperationContext, changes: inout ChangeSet) -> Bool {
        guard let session = clientSessions[token] else { return false }
        let message = reason == .expired ? "the access token expired: stop, and start again with a new one" : "the access token was revoked"
        var event = DomainEvent(
            kind: .clientError, accountId: session.accountId, timestamp: context.now, personIds: [session.personId],
            detail: ["errorType": "AUTHORIZATION", "fatal": "false", "reason": reason.rawValue, "message": message, "clientId": session.clientId]
        )
        event.clientId = session.clientId
        changes.emit(event)
        stopClient(token: token, changes: &changes)
        return true
    }

    /// What revoking an access token ended.
    public struct AccessTokenRevocation: Sendable, Equatable {
        /// The tokens of the clients (apps) the access token started.
        public var clients: [String]
        /// The Web API sessions and one-time tokens that descend from a `loginWithSecureToken` with it.
        public var sessions: [String]
    }

    /// Revokes an access token of the account until it expires: it starts no client and opens no
    /// session any more, and the clients and Web API sessions it started end now.
    /// - Returns: The clients and sessions ended (their live sockets close).
    public mutating func revokeAccessToken(
        _ stamp: AccessTokenStamp, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> AccessTokenRevocation {
        guard var settings = jwtSettings[accountId] else { throw .notFound("Account", accountId) }
        settings.revoke(digest: stamp.digest, expiresAt: stamp.expiresAt, now: context.now)
        jwtSettings[accountId] = settings
        changes.put(settings)
        let clients = clientSessions.ids(Indexes.clientByAccessToken, stamp.digest).sorted()
        for token in clients { _ = endAuthorization(ofClient: token, reason: .revoked, context: context, changes: &changes) }
        let sessions = self.sessions.ids(Indexes.sessionByAccessToken, stamp.digest).sorted()
        for token in sessions { removeSession(token, changes: &changes) }
        return AccessTokenRevocation(clients: clients, sessions: sessions)
    }

    /// Throws `unauthorized` when the access token with `digest` was revoked: checked under the lock
    /// the login's write holds, so a revocation that commits first is never missed.
    public func checkNotRevoked(accessTokenDigest digest: String) throws(CollabError) {
        if jwtSettings[accountId]?.isRevoked(digest: digest) == true { throw .unauthorized("access token has been revoked") }
    }

    /// A live client session by token.
    public func clientSession(token: String) -> ClientSession? {
        clientSessions[token]
    }

    /// Changes a client session (app state, named area, open conversation).
    public mutating func updateClient(
        token: String, context: OperationContext, changes: inout ChangeSet, _ update: (inout ClientSession) throws(CollabError) -> Void
    ) throws(CollabError) -> ClientSession {
        guard var session = clientSessions[token] else { throw .unauthorized("unknown or stopped client") }
        try update(&session)
        session.lastSeenAt = context.now
        if session.appState == .foregroundUIOpen {
            resetBadge(personId: session.personId, deviceId: session.deviceId, context: context, changes: &changes)
        }
        clientSessions[token] = session
        changes.put(session)
        return session
    }

    /// Stops a client.
    public mutating func stopClient(token: String, changes: inout ChangeSet) {
        guard clientSessions.removeValue(forKey: token) != nil else { return }
        clientActivityStored[token] = nil
        directory.release(.client(token), log: &directoryLog)
        changes.delete(.clientSession, token)
    }

    /// Stops a client that has been idle for `idleTimeout` by `now`; a client seen since is
    /// rescheduled instead.
    /// - Returns: Whether the client was stopped.
    mutating func expireIdleClient(_ token: String, now: Timestamp, idleTimeout: Timestamp, changes: inout ChangeSet) -> Bool {
        guard let session = clientSessions[token] else { return false }
        guard now - session.lastSeenAt >= idleTimeout else {
            deadlines.schedule(.clientIdle(token), at: session.lastSeenAt)
            return false
        }
        stopClient(token: token, changes: &changes)
        return true
    }

    /// Notes that a client was active (any authenticated request). Kept in memory only: the idle
    /// expiry needs it, a restart may forget it (the stored `lastSeenAt` is the latest change).
    /// - Returns: How long ago the activity last stored was (see ``storeClientActivity(token:changes:)``).
    @discardableResult
    public mutating func touchClient(token: String, now: Timestamp) -> Timestamp {
        guard var session = clientSessions[token] else { return 0 }
        let stored = clientActivityStored[token] ?? session.lastSeenAt
        clientActivityStored[token] = stored
        if session.lastSeenAt < now {
            session.lastSeenAt = now
            clientSessions[token] = session
        }
        return now - stored
    }

    /// Stores a client's last activity (a cluster replica does, now and then, so the replica that runs
    /// the idle expiry sees activity another replica served).
    public mutating func storeClientActivity(token: String, changes: inout ChangeSet) {
        guard let session = clientSessions[token] else { return }
        clientActivityStored[token] = session.lastSeenAt
        changes.put(session)
    }

    /// The client sessions of a person (a visitor may use several devices), oldest first.
    public func clientSessions(ofPerson personId: String) -> [ClientSession] {
        clientSessions.rows(Indexes.clientByPerson, personId).sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// The configuration cascade a client sees: account, the named area it started with, its API key.
    /// A named area set later only decides where new conversations are queued (the vendor's rule).
    public func configuration(for session: ClientSession) throws(CollabError) -> ConfigurationCascade {
        try configuration(accountId: session.accountId, namedAreaId: session.configurationNamedAreaId, apiKeyId: session.apiKeyId)
    }
}

/// Hashing of anonymous devices' secrets.
enum DeviceSecret {
    /// SHA-256, hex: secrets are long random strings, so a fast hash suffices and comparing digests
    /// leaks nothing about the secret through timing.
    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Bounds on started clients.
public enum ClientLimits {
    /// Clients one person may have started at once (apps on several devices, restarts): a start beyond
    /// stops that person's least recently seen client.
    public static let perPerson = 32
}
