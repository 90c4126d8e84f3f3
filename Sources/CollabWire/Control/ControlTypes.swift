/// One answered request in the control API's journal.
public struct JournalEntry: Codable, Sendable, Equatable {
    /// Increasing number, unique per server run.
    public var id: Int64
    /// When the request arrived (server clock, ms since epoch).
    public var timestamp: Int64
    public var method: String
    public var path: String
    /// The query string with secret-bearing parameters redacted.
    public var query: String?
    public var status: Int
    public var durationMicros: Int64
    /// The caller's account, when authenticated.
    public var accountId: String?
    public var userId: String?
    /// Present (true) when the path or the query was longer than the journal keeps (2 KiB each) and was cut.
    public var truncated: Bool?

    /// The subject of the client certificate the caller presented over mutual TLS, e.g. `OU=clients,O=MockCollab,CN=device-1`.
    public var clientCertificate: String?
    /// The credential that identified the caller where it was not a header: `cookie NAME` for an
    /// account's token cookie at a client start (the cookie's value is never recorded).
    public var authenticatedBy: String?
    /// The fault rule that hit this request (`/_mock/v1/faults`), if one did.
    public var faultRuleId: String?
    /// The replica that served the request, in a cluster-wide read (`scope=cluster`).
    public var replica: String?
    /// The injected fault's action (`LATENCY`, `EMPTY_RESPONSE`, `LIVE_EVENT_DROP`, …). Entries of
    /// `EMPTY_RESPONSE` and `CONNECTION_RESET` have status 0: no answer was sent. A fault outside an
    /// HTTP request is an entry of its own: method `WS` (a live socket: its path, the event or close
    /// code in `query`), `PUSH` (`/pushes/{pushId}`, the push service's status) or `WEBHOOK` (the
    /// endpoint, the injected status or 0 for a time-out).
    public var fault: String?

    public init(
        id: Int64, timestamp: Int64, method: String, path: String, query: String?, status: Int, durationMicros: Int64,
        accountId: String?, userId: String?, truncated: Bool? = nil, clientCertificate: String? = nil
    ) {
        self.truncated = truncated
        self.id = id
        self.timestamp = timestamp
        self.method = method
        self.path = path
        self.query = query
        self.status = status
        self.durationMicros = durationMicros
        self.accountId = accountId
        self.userId = userId
        self.clientCertificate = clientCertificate
    }
}

/// Which journal entries to return.
public struct JournalFilter: Codable, Sendable, Equatable {
    public var method: String?
    /// Path prefix.
    public var path: String?
    /// An exact status (e.g. 404) or a class (4 for 4xx).
    public var status: Int?
    public var since: Int64?
    public var until: Int64?
    public var accountId: String?
    /// At most this many, default 1000: the newest, or with ``after`` the oldest after it.
    public var limit: Int?
    /// Only entries with a greater id: the cursor of the next page (the last id of this one).
    public var after: Int64?

    public init(
        method: String? = nil, path: String? = nil, status: Int? = nil, since: Int64? = nil, until: Int64? = nil, accountId: String? = nil,
        limit: Int? = nil, after: Int64? = nil
    ) {
        self.after = after
        self.method = method
        self.path = path
        self.status = status
        self.since = since
        self.until = until
        self.accountId = accountId
        self.limit = limit
    }
}

/// The journal's answer.
public struct JournalPage: Codable, Sendable {
    public var entries: [JournalEntry]
    /// How many entries the journal holds in all.
    public var size: Int
    public var capacity: Int
    /// The bytes the journal's entries take (as the journal counts them), and its bound.
    public var bytes: Int
    public var maxBytes: Int
    /// True when matching entries were left out by the read's `limit` or its byte bound: older ones,
    /// or with `after` newer ones (read on from the last entry's id).
    public var truncated: Bool
    /// With `after`: true when entries after that id were pushed out of the journal before this read
    /// (its bounds were too small for what came since), so the pages read do not hold every request.
    public var evicted: Bool
    /// In a cluster-wide read (`scope=cluster`): the replicas asked, and those that did not answer.
    public var replicas: [String]? = nil
    public var missingReplicas: [String]? = nil
    public init(
        entries: [JournalEntry], size: Int, capacity: Int, bytes: Int = 0, maxBytes: Int = 0, truncated: Bool = false, evicted: Bool = false
    ) {
        self.entries = entries
        self.size = size
        self.capacity = capacity
        self.bytes = bytes
        self.maxBytes = maxBytes
        self.truncated = truncated
        self.evicted = evicted
    }
}

/// What applying a seed did.
public struct SeedResult: Codable, Sendable, Equatable {
    public var created: Int
    public var updated: Int
    public var unchanged: Int
    public init(created: Int, updated: Int, unchanged: Int) {
        self.created = created
        self.updated = updated
        self.unchanged = unchanged
    }
}

/// Resets all state, or one account's.
public struct ResetRequest: Codable, Sendable {
    /// An account id or name; absent resets everything.
    public var account: String?
    public init(account: String? = nil) { self.account = account }
}

/// Asks for a test access token (JWT) for a visitor of an account.
public struct TestTokenRequest: Codable, Sendable {
    /// The token's `sub`: the visitor's identity (becomes the virtual person's source id).
    public var subject: String
    public var email: String?
    public var firstName: String?
    public var lastName: String?
    /// Lifetime in seconds (default 3600).
    public var lifetimeSeconds: Int64?
    public init(subject: String, email: String? = nil, firstName: String? = nil, lastName: String? = nil, lifetimeSeconds: Int64? = nil) {
        self.subject = subject
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.lifetimeSeconds = lifetimeSeconds
    }
}

/// A signed test access token.
public struct TestTokenResponse: Codable, Sendable {
    public var token: String
    /// Expiry, ms since epoch on the server clock.
    public var expiresAt: Int64
    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// `POST /_mock/v1/accounts/{account}/tokens/revoke`: revokes an access token of the account.
public struct TokenRevocationRequest: Codable, Sendable {
    /// The access token (JWT), as the app presented it.
    public var token: String
    public init(token: String) { self.token = token }
}

/// The answer to a revocation.
public struct TokenRevocationResponse: Codable, Sendable, Equatable {
    /// How many running apps the token had started, now ended (each was told by a `client.error` event).
    public var endedClients: Int
    /// How many Web API sessions and one-time tokens descending from a `loginWithSecureToken` with
    /// the token were ended.
    public var endedSessions: Int
    /// Until when the token is refused (its expiry; afterwards it is refused as expired).
    public var revokedUntil: Int64
    public init(endedClients: Int, endedSessions: Int = 0, revokedUntil: Int64) {
        self.endedClients = endedClients
        self.endedSessions = endedSessions
        self.revokedUntil = revokedUntil
    }
}

/// The server clock as the control API reports it.
public struct ClockState: Codable, Sendable, Equatable {
    /// Now, ms since epoch.
    public var now: Int64
    /// Offset from the system clock, ms.
    public var offset: Int64
    public var frozen: Bool
    public init(now: Int64, offset: Int64, frozen: Bool) {
        self.now = now
        self.offset = offset
        self.frozen = frozen
    }
}

/// Moves or freezes the virtual clock.
public struct ClockChange: Codable, Sendable {
    /// Milliseconds to move forward (negative moves back).
    public var advanceMillis: Int64?
    /// Freeze (true) or release (false) time.
    public var frozen: Bool?
    public init(advanceMillis: Int64? = nil, frozen: Bool? = nil) {
        self.advanceMillis = advanceMillis
        self.frozen = frozen
    }
}

/// Entity counts, overall or for one account, and what the server has done since it started: the
/// figures a load run checks its own counts against.
public struct StateStats: Codable, Sendable, Equatable {
    /// In a cluster-wide read (`scope=cluster`): the replicas whose figures are summed (journal,
    /// pushes, frames; the stored state is the same on every replica), and those that did not answer.
    public var replicas: [String]? = nil
    public var missingReplicas: [String]? = nil
    public var accounts: Int
    public var apiKeys: Int
    public var namedAreas: Int
    public var users: Int
    public var persons: Int
    public var sessions: Int
    public var journalEntries: Int
    /// Stored conversations, in any state.
    public var conversations: Int
    /// Stored messages, over all conversations (internal notes included).
    public var messages: Int
    /// Stored calls, in any state.
    public var calls: Int
    /// Registered devices (push targets).
    public var devices: Int
    /// Pushes composed and handed to the outbox since the server started, whatever became of them.
    public var pushesEmitted: Int
    /// What became of those pushes, by final state (the rest are still pending).
    public var pushOutcomes: PushOutcomes
    /// Co-browsing frames since the server started, by outcome.
    public var frames: FrameCounts
    /// What the co-browsing frame ingest holds right now (freed when sessions end and on reset).
    public var framesHeld: FramesHeld
    /// Entities of the declared kinds (canned responses, person labels, audit entries, …) by type name;
    /// absent when there are none.
    public var declared: [String: Int]?

    /// Pushes since the server started, by the final state their outbox entry reached (see
    /// ``PushView/State``), counted when they reach it: trimming or clearing the outbox does not reduce them.
    public struct PushOutcomes: Codable, Sendable, Equatable {
        /// Accepted by the push service (or written by the simulator sink).
        public var delivered: Int
        /// Refused, out of retries, dropped by a full queue, or not composed.
        public var failed: Int
        /// Refused because the token is gone (the device's token was removed).
        public var unregistered: Int
        /// Not sent: the person's notifications were paused.
        public var suppressed: Int
        /// Kept in the outbox only: no sink was configured for the push's transport.
        public var recorded: Int
        public init(delivered: Int = 0, failed: Int = 0, unregistered: Int = 0, suppressed: Int = 0, recorded: Int = 0) {
            self.delivered = delivered
            self.failed = failed
            self.unregistered = unregistered
            self.suppressed = suppressed
            self.recorded = recorded
        }

        /// Counts one push that reached `state` (``PushView/State/pending`` is not an outcome).
        public mutating func count(_ state: PushView.State) {
            switch state {
            case .delivered: delivered += 1
            case .failed: failed += 1
            case .unregistered: unregistered += 1
            case .suppressed: suppressed += 1
            case .recorded: recorded += 1
            case .pending: break
            }
        }

        /// These counts and `other`'s, summed (accounts, replicas).
        public static func + (lhs: Self, rhs: Self) -> Self {
            Self(
                delivered: lhs.delivered + rhs.delivered, failed: lhs.failed + rhs.failed, unregistered: lhs.unregistered + rhs.unregistered,
                suppressed: lhs.suppressed + rhs.suppressed, recorded: lhs.recorded + rhs.recorded)
        }
    }

    /// Co-browsing frame state held in memory.
    public struct FramesHeld: Codable, Sendable, Equatable {
        /// Sessions with frame state (latest frame, throttle, viewers).
        public var sessions: Int
        /// Bytes of that state: latest images and statistics buffers.
        public var bytes: Int
        /// Open frame viewers.
        public var viewers: Int
        /// Ended sessions whose final statistics are kept (bounded).
        public var endedSessions: Int
        public init(sessions: Int = 0, bytes: Int = 0, viewers: Int = 0, endedSessions: Int = 0) {
            self.sessions = sessions
            self.bytes = bytes
            self.viewers = viewers
            self.endedSessions = endedSessions
        }

        /// Both holdings together (accounts, replicas).
        public static func + (lhs: Self, rhs: Self) -> Self {
            Self(sessions: lhs.sessions + rhs.sessions, bytes: lhs.bytes + rhs.bytes, viewers: lhs.viewers + rhs.viewers,
                 endedSessions: lhs.endedSessions + rhs.endedSessions)
        }
    }

    /// Co-browsing frame outcomes.
    public struct FrameCounts: Codable, Sendable, Equatable {
        public var accepted: Int
        public var throttled: Int
        public var duplicates: Int
        public var rejected: Int
        public init(accepted: Int = 0, throttled: Int = 0, duplicates: Int = 0, rejected: Int = 0) {
            self.accepted = accepted
            self.throttled = throttled
            self.duplicates = duplicates
            self.rejected = rejected
        }

        /// Both counts together (accounts, replicas).
        public static func + (lhs: Self, rhs: Self) -> Self {
            Self(accepted: lhs.accepted + rhs.accepted, throttled: lhs.throttled + rhs.throttled, duplicates: lhs.duplicates + rhs.duplicates,
                 rejected: lhs.rejected + rhs.rejected)
        }
    }

    public init(
        accounts: Int, apiKeys: Int, namedAreas: Int, users: Int, persons: Int, sessions: Int, journalEntries: Int,
        conversations: Int = 0, messages: Int = 0, calls: Int = 0, devices: Int = 0, pushesEmitted: Int = 0,
        pushOutcomes: PushOutcomes = PushOutcomes(), frames: FrameCounts = FrameCounts(), framesHeld: FramesHeld = FramesHeld()
    ) {
        self.accounts = accounts
        self.apiKeys = apiKeys
        self.namedAreas = namedAreas
        self.users = users
        self.persons = persons
        self.sessions = sessions
        self.journalEntries = journalEntries
        self.conversations = conversations
        self.messages = messages
        self.calls = calls
        self.devices = devices
        self.pushesEmitted = pushesEmitted
        self.pushOutcomes = pushOutcomes
        self.frames = frames
        self.framesHeld = framesHeld
    }
}
