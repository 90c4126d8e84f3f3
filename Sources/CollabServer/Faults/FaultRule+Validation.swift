import CollabCore
import CollabWire

extension FaultRule {
    /// The surfaces a rule can hit.
    static let surfaces: Set<String> = ["WEB_API", "MOBILE", "AGENT"]
    /// The largest seed: 2^53 − 1, the largest integer a JSON number read as a double (jq, JavaScript)
    /// keeps exact, so a rule read back and posted again draws the same.
    static let maxSeed: UInt64 = (1 << 53) - 1

    /// Whether `id` is a rule id a caller may choose: 1 to 64 letters, digits, `-` or `_`.
    static func isValidId(_ id: String) -> Bool {
        (1...64).contains(id.unicodeScalars.count)
            && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }

    /// The rule as stored: checked, with its id, account, expiry, seed and counters set.
    /// - Parameters:
    ///   - id: The rule's id.
    ///   - confinement: The caller's account when the caller is an account admin (the rule is confined
    ///     to it), `nil` for a super admin.
    /// - Throws: `badRequest` naming the field; `notFound` for an account the caller cannot see.
    func checked(id: String, now: Timestamp, confinement: String?, environment: CollabEnvironment) throws(CollabError) -> FaultRule {
        var rule = self
        rule.id = id
        if let description, !Limits.fits(description, 256) { throw .badRequest("description is longer than 256 characters") }
        if let surface = match.surface, !Self.surfaces.contains(surface) { throw .badRequest("match.surface must be WEB_API, MOBILE or AGENT") }
        if let method = match.method, !(1...16).contains(method.utf8.count) || !method.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw .badRequest("match.method must be an HTTP method")
        }
        if let path = match.path, !path.hasPrefix("/") || !Limits.fits(path, 512) {
            throw .badRequest("match.path must start with / and be at most 512 characters")
        }
        for (name, value) in [("match.deviceId", match.deviceId), ("match.clientId", match.clientId)] {
            if let value, !(1...128).contains(value.unicodeScalars.count) { throw .badRequest("\(name) must be 1 to 128 characters") }
        }
        var accountId = confinement
        if let reference = match.account {
            accountId = try environment.inspectedAccountId(reference, confinedTo: confinement)
        }
        rule.accountId = accountId
        try checkLiveAndWebhookMatch()
        switch action.type {
        case "LATENCY", "LIVE_EVENT_DELAY":
            let limit = FaultRules.maxLatencyMillis
            func millis(_ name: String, _ value: Int?) throws(CollabError) -> Int {
                guard let value else { throw .badRequest("action.\(name) is required for this distribution") }
                guard (0...limit).contains(value) else { throw .badRequest("action.\(name) must be 0 to \(limit)") }
                return value
            }
            switch action.distribution ?? "FIXED" {
            case "FIXED": _ = try millis("millis", action.millis)
            case "UNIFORM":
                guard try millis("minMillis", action.minMillis) <= millis("maxMillis", action.maxMillis) else {
                    throw .badRequest("action.minMillis must not exceed action.maxMillis")
                }
            case "LOGNORMAL":
                _ = try millis("medianMillis", action.medianMillis)
                if let sigma = action.sigma, !(sigma > 0 && sigma <= 5) { throw .badRequest("action.sigma must be above 0 and at most 5") }
            default: throw .badRequest("action.distribution must be FIXED, UNIFORM or LOGNORMAL")
            }
        case "ERROR":
            if let status = action.status, !(400...599).contains(status) { throw .badRequest("action.status must be 400 to 599") }
            rule.action.status = action.status ?? 503
            if let message = action.message, !Limits.fits(message, 1_024) {
                throw .badRequest("action.message is longer than 1024 characters")
            }
        case "PUSH_FAILURE":
            guard let reason = action.reason, let status = FaultRules.pushFailureStatus[reason] else {
                throw .badRequest("action.reason must be one of \(FaultRules.pushFailureStatus.keys.sorted().joined(separator: ", "))")
            }
            rule.action.status = status
        case "EMPTY_RESPONSE", "CONNECTION_RESET", "LIVE_EVENT_DROP":
            break
        default:
            try rule.action.checkConnectionAction()
        }
        if let types = action.eventTypes {
            guard ["LIVE_EVENT_DROP", "LIVE_EVENT_DELAY"].contains(action.type) else {
                throw .badRequest("action.eventTypes is for LIVE_EVENT_DROP and LIVE_EVENT_DELAY")
            }
            guard (1...32).contains(types.count), types.allSatisfy({ DomainEvent.Kind(rawValue: $0) != nil }) else {
                throw .badRequest("action.eventTypes must be 1 to 32 live event types, e.g. conversation.new_message")
            }
        }
        if let probability, !(probability >= 0 && probability <= 1) { throw .badRequest("probability must be 0 to 1") }
        if let limit, limit < 1 { throw .badRequest("limit must be at least 1") }
        if let expiresInMillis {
            guard (1...(7 * 24 * 3_600_000)).contains(expiresInMillis) else { throw .badRequest("expiresInMillis must be 1 ms to 7 days") }
            rule.expiresAt = now + expiresInMillis
            rule.expiresInMillis = nil
        } else if let expiresAt, expiresAt <= now {
            throw .badRequest("expiresAt is in the past on the server clock")
        }
        if let seed, seed > Self.maxSeed { throw .badRequest("seed must be 0 to \(Self.maxSeed) (2^53 - 1), so that JSON tools keep it exact") }
        // A default seed from the id: the same rule makes the same draws however often it is re-read.
        rule.seed = seed ?? id.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0100_0000_01B3 } & Self.maxSeed
        rule.injected = 0
        rule.createdAt = now
        return rule
    }
}
