/// What a run of due work did, for the caller to act on outside the state (closing live connections).
public struct DueWorkReport: Sendable {
    /// Clients stopped for idleness, or because their access token expired.
    public var stoppedClients: [String] = []
    /// Login sessions and tokens that expired.
    public var expiredSessions: [String] = []
    public init() {}
}

extension AccountState {
    /// Runs the account's work that is due by `context.now`: ringing calls time out and become missed,
    /// old notification keys rotate, sessions expire, idle clients stop.
    /// - Parameters:
    ///   - keyRotationInterval: How old a key gets before it rotates, in milliseconds.
    ///   - keyOverlap: How long the previous key stays valid, in milliseconds.
    ///   - clientIdleTimeout: How long a client may stay silent, in milliseconds.
    public mutating func runDueWork(
        keyRotationInterval: Int64, keyOverlap: Int64, clientIdleTimeout: Int64, context: OperationContext, changes: inout ChangeSet
    ) -> DueWorkReport {
        var report = DueWorkReport()
        let now = context.now
        let due = deadlines.takeDue(now: now, keyRotationInterval: keyRotationInterval, clientIdleTimeout: clientIdleTimeout)
        for work in due {
            switch work {
            case .callTimeout(let id):
                expireCall(id, now: now, context: context, changes: &changes)
            case .keyRotation(let id):
                rotateKeyIfDue(deviceRecordId: id, interval: keyRotationInterval, overlap: keyOverlap, context: context, changes: &changes)
            case .sessionExpiry(let token):
                if sessions[token].map({ $0.expiresAt <= now }) == true {
                    expireSession(token, now: now, changes: &changes)
                    report.expiredSessions.append(token)
                }
            case .clientIdle(let token):
                if expireIdleClient(token, now: now, idleTimeout: clientIdleTimeout, changes: &changes) { report.stoppedClients.append(token) }
            case .clientAuthorization(let token):
                guard let expiry = clientSessions[token]?.accessTokenExpiresAt, expiry <= now else { continue }
                if endAuthorization(ofClient: token, reason: .expired, context: context, changes: &changes) { report.stoppedClients.append(token) }
            case .botOffer(let token):
                expireBotOffer(token, context: context, changes: &changes)
            }
        }
        return report
    }

    /// Starts a fresh directory log (the repository does, around every operation).
    public mutating func resetDirectoryLog() {
        directoryLog = DirectoryLog()
    }
}
