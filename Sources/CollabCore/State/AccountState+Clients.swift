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

    public init(
        apiKey: ApiKey, deviceId: String, device: DeviceInfo, namedArea: String? = nil, identity: PersonInput? = nil, deviceSecret: String? = nil
    ) {
        self.apiKey = apiKey
        self.deviceId = deviceId
        self.device = device
        self.namedArea = namedArea
        self.identity = identity
        self.deviceSecret = deviceSecret
    }
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
        guard !input.deviceId.isEmpty, input.deviceId.count <= Limits.nameLength, input.deviceId.allSatisfy({ !$0.isWhitespace }) else {
            throw .badRequest("deviceId must be 1 to \(Limits.nameLength) characters without spaces")
        }
        try input.device.validate()
        let areaId = try input.namedArea.map { reference throws(CollabError) in try namedAreaIds([reference], accountId: accountId).first! }
        var issuedSecret: String?
        if let identity = input.identity {
            guard !(identity.sourceId ?? "").hasPrefix(Self.anonymousDevicePrefix) else {
                throw .unauthorized("access token subjects starting with '\(Self.anonymousDevicePrefix)' are reserved for anonymous devices")
            }
        } else {
            let key = PersonSourceKey(source: .virtual, sourceId: Self.anonymousDevicePrefix + input.deviceId)
            if let hash = personIdBySource[key].flatMap({ persons[$0] })?.deviceSecretHash {
                guard let presented = input.deviceSecret, presented.count <= 128, DeviceSecret.hash(presented) == hash else {
                    throw .unauthorized("this device id belongs to an installation that holds its device secret: present deviceSecret, or use another device id")
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
        let session = ClientSession(
            id: context.ids.makeSecret(), clientId: context.ids.make(), accountId: accountId, apiKeyId: input.apiKey.id, personId: person.id,
            deviceId: input.deviceId, device: input.device, namedAreaId: areaId, identified: input.identity != nil, createdAt: context.now
        )
        clientSessions[session.id] = session
        try? directory.claim(.client(session.id), for: accountId, log: &directoryLog, conflict: .conflict("token clash"))
        deadlines.schedule(.clientIdle(session.id), at: session.lastSeenAt)
        changes.put(session)
        return (session, issuedSecret)
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
        if session.appState == .foregroundUIOpen { resetBadge(personId: session.personId, deviceId: session.deviceId, changes: &changes) }
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

    /// The configuration cascade a client sees: account, its named area, its API key.
    public func configuration(for session: ClientSession) throws(CollabError) -> ConfigurationCascade {
        try configuration(accountId: session.accountId, namedAreaId: session.namedAreaId, apiKeyId: session.apiKeyId)
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
