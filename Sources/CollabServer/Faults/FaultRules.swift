import CollabCore
import CollabPush
import CollabWire
import Foundation
import Metrics
import Synchronization

/// The fault rules in force, in memory (a restart clears them), bounded in number per owner (see
/// ``FaultRuleLimits``).
///
/// Matching runs on every request of the faultable surfaces, so it costs the rules that can hit the
/// request — its account's and those of every account — never the server's data nor other accounts'
/// rules; with no rules it is one atomic load. Each rule draws its randomness (probability, latency)
/// from its own seeded generator, so the same rules and the same requests make the same choices in
/// every run.
final class FaultRules: Sendable {
    /// The longest latency a rule may add.
    static let maxLatencyMillis = 60_000
    /// The lowest bandwidth cap, bytes per second (slower would hold a connection for hours).
    static let minBytesPerSecond = 256
    /// The highest bandwidth cap, bytes per second.
    static let maxBytesPerSecond = 1 << 30

    /// What a request is, for matching.
    struct Request: Sendable {
        var surface: String
        var method: String
        var path: String
        var accountId: String?
        var deviceId: String?
        var clientId: String?
        /// A live event's type (for `LIVE_EVENT_DROP` and `LIVE_EVENT_DELAY` rules).
        var eventType: String? = nil
    }

    /// Where a rule acts: each action belongs to one kind, and each kind is asked at its own place.
    enum Kind: Int, Sendable {
        /// HTTP requests of the faultable surfaces (``ObservationMiddleware``).
        case request
        /// Pushes before delivery (the push pipeline).
        case push
        /// A live event WebSocket when it connects, and before each event while no close is pending.
        case liveConnection
        /// Each live event before it is sent to a connection.
        case liveEvent
        /// Each webhook delivery attempt of the rule's account.
        case webhook

        /// The kind's bit in the mask of kinds held.
        var bit: Int { 1 << rawValue }
    }

    /// The kind of place an action acts at.
    static func kind(of actionType: String) -> Kind {
        switch actionType {
        case "PUSH_FAILURE": .push
        case "WEBSOCKET_CLOSE": .liveConnection
        case "LIVE_EVENT_DROP", "LIVE_EVENT_DELAY": .liveEvent
        case "WEBHOOK_FAILURE": .webhook
        default: .request
        }
    }

    /// What to do with a request a rule hit.
    enum Injection: Sendable, Equatable {
        case latency(ruleId: String, millis: Int)
        case error(ruleId: String, status: Int, message: String)
        case pushFailure(ruleId: String, status: Int, reason: String)
        case emptyResponse(ruleId: String)
        case connectionReset(ruleId: String)
        /// Send `bytes` of the body, or `fraction` of it when `bytes` is `nil`.
        case truncatedBody(ruleId: String, bytes: Int?, fraction: Double)
        case bandwidth(ruleId: String, bytesPerSecond: Int)
        case webSocketClose(ruleId: String, code: Int, reason: String, afterEvents: Int)
        case dropEvent(ruleId: String)
        case delayEvent(ruleId: String, millis: Int)
        /// `status` answered, or a time-out after `timeoutMillis` (`nil`: the dispatcher's own).
        case webhookFailure(ruleId: String, status: Int?, timeoutMillis: Int?)

        var ruleId: String {
            switch self {
            case .latency(let id, _), .error(let id, _, _), .pushFailure(let id, _, _), .emptyResponse(let id), .connectionReset(let id),
                .truncatedBody(let id, _, _), .bandwidth(let id, _), .webSocketClose(let id, _, _, _), .dropEvent(let id), .delayEvent(let id, _),
                .webhookFailure(let id, _, _):
                id
            }
        }

        /// The label of `mockcollab_faults_injected_total{action}`.
        var metricLabel: String {
            switch self {
            case .latency: "latency"
            case .error: "error"
            case .pushFailure: "push_failure"
            case .emptyResponse: "empty_response"
            case .connectionReset: "connection_reset"
            case .truncatedBody: "truncated_body"
            case .bandwidth: "bandwidth"
            case .webSocketClose: "websocket_close"
            case .dropEvent: "live_event_drop"
            case .delayEvent: "live_event_delay"
            case .webhookFailure: "webhook_failure"
            }
        }

        /// The action's name, as in rules.
        var actionType: String { metricLabel.uppercased() }
    }

    private let book: Mutex<FaultRuleBook>
    private let count = Atomic<Int>(0)
    /// Which kinds of rule are held (``Kind/bit``): a place with no rule of its kind pays one atomic
    /// load, however many rules of other kinds there are (a latency rule costs no live event a lock).
    private let kinds = Atomic<Int>(0)

    init(limits: FaultRuleLimits = FaultRuleLimits()) {
        book = Mutex(FaultRuleBook(limits: limits))
    }

    /// The budgets rules count against.
    var limits: FaultRuleLimits { book.withLock { $0.limits } }

    /// Changes the book under its lock and notes how many rules, of which kinds, it holds then.
    private func change<T>(_ body: (inout FaultRuleBook) throws(CollabError) -> T) throws(CollabError) -> T {
        try book.withLock { book throws(CollabError) in
            defer { noteHeld(book) }
            return try body(&book)
        }
    }

    /// Notes how many rules, of which kinds, `book` holds (under its lock).
    private func noteHeld(_ book: FaultRuleBook) {
        count.store(book.count, ordering: .relaxed)
        kinds.store(book.all.reduce(0) { $0 | Self.kind(of: $1.rule.action.type).bit }, ordering: .relaxed)
    }

    /// How many rules count against `owner`'s budget.
    func held(by owner: FaultRuleBook.Owner) -> Int {
        book.withLock { $0.held(by: owner) }
    }

    /// Whether any rule is held (one atomic load).
    var isInForce: Bool { count.load(ordering: .relaxed) > 0 }

    /// The rules visible to `accountId` (all for `nil`), oldest first.
    func list(accountId: String?) -> [FaultRule] {
        book.withLock { $0.visible(to: accountId) }
    }

    /// Adds a checked rule, counted against `owner`'s budget.
    /// - Throws: `conflict` when a rule holds its id already (`PUT` replaces one); `tooManyRequests`
    ///   when the owner's budget is spent (see ``FaultRuleLimits``).
    func add(_ rule: FaultRule, owner: FaultRuleBook.Owner, now: Timestamp) throws(CollabError) {
        try change { book throws(CollabError) in try book.add(rule, owner: owner, now: now) }
    }

    /// Replaces rule `id` (keeping its count of injections and its owner), if `accountId` may see it.
    func replace(_ id: String, with rule: FaultRule, accountId: String?) throws(CollabError) -> FaultRule {
        try change { book throws(CollabError) in try book.replace(id, with: rule, visibleTo: accountId) }
    }

    /// Removes rule `id`, if `accountId` may see it.
    func remove(_ id: String, accountId: String?) throws(CollabError) {
        try change { book throws(CollabError) in try book.remove(id, visibleTo: accountId) }
    }

    /// Removes every rule `accountId` may see (all for `nil`); returns how many.
    @discardableResult
    func removeAll(accountId: String?) -> Int {
        (try? change { book in book.removeAll(visibleTo: accountId) }) ?? 0
    }

    /// The statuses of the push services' failure answers a `PUSH_FAILURE` rule may inject.
    static let pushFailureStatus: [String: Int] = [
        "Unregistered": 410, "BadDeviceToken": 400, "DeviceTokenNotForTopic": 400, "TooManyRequests": 429, "InternalServerError": 500,
        "ServiceUnavailable": 503, "UNREGISTERED": 404, "INVALID_ARGUMENT": 400, "QUOTA_EXCEEDED": 429, "UNAVAILABLE": 503, "INTERNAL": 500,
    ]
    /// The answers that mean the token is gone.
    static let unregisteringReasons: Set<String> = ["Unregistered", "BadDeviceToken", "UNREGISTERED"]

    /// The failure a `PUSH_FAILURE` rule puts in place of delivering a push to `deviceId` of `accountId`.
    func pushFailure(accountId: String, deviceId: String, now: Timestamp) -> InjectedPushFailure? {
        let request = Request(surface: "PUSH", method: "", path: "", accountId: accountId, deviceId: deviceId, clientId: nil)
        guard case .pushFailure(let ruleId, let status, let reason)? = injection(for: request, now: now, kind: .push) else { return nil }
        return InjectedPushFailure(ruleId: ruleId, status: status, reason: reason, unregistersToken: Self.unregisteringReasons.contains(reason))
    }

    /// The first rule of `kind` that hits `request` at `now`, counted, with its draw made.
    func injection(for request: Request, now: Timestamp, kind: Kind = .request) -> Injection? {
        guard kinds.load(ordering: .relaxed) & kind.bit != 0 else { return nil }
        let injection = book.withLock { book in
            let held = book.count
            // Expired rules and spent ones go as they are met.
            defer { if book.count != held { noteHeld(book) } }
            return book.first(for: request.accountId, now: now) { entry -> Injection? in
                guard Self.kind(of: entry.rule.action.type) == kind, Self.matches(entry.rule, request, kind: kind) else { return nil }
                if let probability = entry.rule.probability, probability < 1, entry.generator.nextUnit() >= probability { return nil }
                entry.rule.injected = (entry.rule.injected ?? 0) + 1
                return Self.draw(entry.rule, generator: &entry.generator)
            }
        }
        if let injection { Counter(label: "mockcollab_faults_injected_total", dimensions: [("action", injection.metricLabel)]).increment() }
        return injection
    }

    /// What a rule that hit does, with its draw made.
    static func draw(_ rule: FaultRule, generator: inout SeededRandom) -> Injection {
        let id = rule.id ?? ""
        let action = rule.action
        switch action.type {
        case "PUSH_FAILURE":
            return .pushFailure(ruleId: id, status: action.status ?? 410, reason: action.reason ?? "Unregistered")
        case "LATENCY":
            return .latency(ruleId: id, millis: latency(action, generator: &generator))
        case "EMPTY_RESPONSE":
            return .emptyResponse(ruleId: id)
        case "CONNECTION_RESET":
            return .connectionReset(ruleId: id)
        case "TRUNCATED_BODY":
            return .truncatedBody(ruleId: id, bytes: action.bytes, fraction: action.fraction ?? 0.5)
        case "BANDWIDTH":
            return .bandwidth(ruleId: id, bytesPerSecond: action.bytesPerSecond ?? minBytesPerSecond)
        case "WEBSOCKET_CLOSE":
            return .webSocketClose(
                ruleId: id, code: action.closeCode ?? 1011, reason: action.reason ?? "injected fault", afterEvents: action.afterEvents ?? 0
            )
        case "LIVE_EVENT_DROP":
            return .dropEvent(ruleId: id)
        case "LIVE_EVENT_DELAY":
            return .delayEvent(ruleId: id, millis: latency(action, generator: &generator))
        case "WEBHOOK_FAILURE":
            return .webhookFailure(ruleId: id, status: action.timeout == true ? nil : action.status ?? 503, timeoutMillis: action.millis)
        default:
            return .error(ruleId: id, status: action.status ?? 503, message: action.message ?? "injected fault")
        }
    }

    static func matches(_ rule: FaultRule, _ request: Request, kind: Kind = .request) -> Bool {
        let match = rule.match
        if let accountId = rule.accountId, accountId != request.accountId { return false }
        // Pushes have no surface, method, path or client: a push rule matches by account and device.
        if kind == .push { return match.deviceId.map { $0 == request.deviceId } ?? true }
        // Webhook deliveries belong to an account and nothing else.
        if kind == .webhook { return true }
        // Only a read's answer is cut: a change must never be half done while its answer is lost.
        if rule.action.type == "TRUNCATED_BODY", request.method != "GET" { return false }
        if kind == .liveEvent, let types = rule.action.eventTypes, !types.contains(request.eventType ?? "") { return false }
        if let surface = match.surface, surface != request.surface { return false }
        if let method = match.method, method.uppercased() != request.method { return false }
        if let deviceId = match.deviceId, deviceId != request.deviceId { return false }
        if let clientId = match.clientId, clientId != request.clientId { return false }
        if let pattern = match.path, !PathPattern.matches(pattern, request.path) { return false }
        return true
    }

    static func latency(_ action: FaultAction, generator: inout SeededRandom) -> Int {
        let millis: Double
        switch action.distribution ?? "FIXED" {
        case "UNIFORM":
            let low = Double(action.minMillis ?? 0)
            let high = Double(action.maxMillis ?? action.minMillis ?? 0)
            millis = low + (high - low) * generator.nextUnit()
        case "LOGNORMAL":
            // Box–Muller: a standard normal draw from two uniform ones.
            let u1 = max(generator.nextUnit(), .leastNonzeroMagnitude)
            let u2 = generator.nextUnit()
            let z = (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * Double.pi * u2)
            millis = Double(action.medianMillis ?? 0) * Foundation.exp((action.sigma ?? 0.5) * z)
        default:
            millis = Double(action.millis ?? 0)
        }
        return Int(min(Double(maxLatencyMillis), max(0, millis.rounded())))
    }
}

/// `*` for one path segment, a trailing `**` for any rest.
enum PathPattern {
    static func matches(_ pattern: String, _ path: String) -> Bool {
        let wanted = pattern.split(separator: "/", omittingEmptySubsequences: true)
        let actual = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, part) in wanted.enumerated() {
            if part == "**" { return index == wanted.count - 1 }
            guard index < actual.count, part == "*" || part == actual[index] else { return false }
        }
        return wanted.count == actual.count
    }
}

extension SeededRandom {
    /// A uniform draw in [0, 1) from the top 53 bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
