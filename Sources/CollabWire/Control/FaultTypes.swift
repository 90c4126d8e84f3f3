/// A fault the server injects (`/_mock/v1/faults`): into matching requests (latency, an error, an empty
/// answer, a reset, a cut body, a bandwidth cap), live event sockets (a close, dropped or delayed
/// events), pushes or webhook deliveries — on a chosen surface, route, account, device or client, with a
/// probability, a count limit, an expiry and a seed.
public struct FaultRule: Codable, Sendable, Equatable {
    /// 1 to 64 letters, digits, `-` or `_`, kept as given (a 409 when a rule holds it already); assigned
    /// by the server when absent.
    public var id: String?
    /// What the rule is for (shown in the inspector and the journal).
    public var description: String?
    /// Which requests it applies to.
    public var match: FaultMatch
    /// What happens to them.
    public var action: FaultAction
    /// The chance, 0 to 1, that a matching request is hit (default 1).
    public var probability: Double?
    /// At most this many injections, then the rule stops matching (default: no limit).
    public var limit: Int?
    /// Until when the rule applies, server clock in ms since the epoch (the virtual clock moves it).
    public var expiresAt: Int64?
    /// On create: expires this many ms after now on the server clock (sets `expiresAt`).
    public var expiresInMillis: Int64?
    /// Seeds the rule's random draws (probability, latency), so a run repeats exactly. Default: from
    /// the rule's id. At most 2^53 − 1, the largest integer JSON readers that use doubles keep exact.
    public var seed: UInt64?
    /// The account the rule is confined to (set by the server for an account admin's rules).
    public var accountId: String?
    /// Injections so far (read-only).
    public var injected: Int?
    /// When the rule was made, server clock (read-only).
    public var createdAt: Int64?

    /// A rule to post.
    /// - Parameters:
    ///   - id: The rule's id; the server picks one when `nil`.
    ///   - description: What the rule is for.
    ///   - match: Which requests it applies to.
    ///   - action: What happens to them.
    ///   - probability: The chance, 0 to 1, that a matching request is hit.
    ///   - limit: At most this many injections.
    ///   - expiresInMillis: Expires this many ms after now on the server clock.
    ///   - seed: Seeds the rule's draws, 0 to 2^53 − 1.
    public init(
        id: String? = nil, description: String? = nil, match: FaultMatch, action: FaultAction, probability: Double? = nil, limit: Int? = nil,
        expiresInMillis: Int64? = nil, seed: UInt64? = nil
    ) {
        self.id = id
        self.description = description
        self.match = match
        self.action = action
        self.probability = probability
        self.limit = limit
        self.expiresInMillis = expiresInMillis
        self.seed = seed
    }
}

/// Which requests a fault rule applies to. Every field that is set must match; the control API and the
/// operational routes (`/_mock`, `/healthz`, `/readyz`, `/metrics`, `/openapi.json`) are never hit.
public struct FaultMatch: Codable, Sendable, Equatable {
    /// `WEB_API` (`/app/rest/v4`, `/unblu/rest/v4`), `MOBILE` (`/mobile/v1`) or `AGENT` (`/agent/v1`).
    public var surface: String?
    /// An HTTP method, e.g. `POST`.
    public var method: String?
    /// A path pattern: `*` stands for one segment, a trailing `**` for any rest, e.g.
    /// `/mobile/v1/conversations/*/messages`.
    public var path: String?
    /// An account, by id or name (an account admin's rules are confined to their own account).
    public var account: String?
    /// A mobile device id: requests of the client started with it.
    public var deviceId: String?
    /// A started mobile client, by its id.
    public var clientId: String?

    public init(
        surface: String? = nil, method: String? = nil, path: String? = nil, account: String? = nil, deviceId: String? = nil, clientId: String? = nil
    ) {
        self.surface = surface
        self.method = method
        self.path = path
        self.account = account
        self.deviceId = deviceId
        self.clientId = clientId
    }
}

/// What a fault rule does.
public struct FaultAction: Codable, Sendable, Equatable {
    /// `LATENCY` (the request is answered as usual, later), `ERROR` (answered at once with `status`
    /// and the surface's typed error body; nothing is changed), `PUSH_FAILURE` (pushes to the matched
    /// account or device get the push service's `reason` instead of being delivered; an unregistered
    /// token is removed as a real answer would remove it), `EMPTY_RESPONSE` (the connection closes with
    /// no answer), `CONNECTION_RESET` (the connection is reset), `TRUNCATED_BODY` (a `GET`'s answer is
    /// cut after part of its body), `BANDWIDTH` (request and answer bodies at most `bytesPerSecond`),
    /// `WEBSOCKET_CLOSE` (a live event WebSocket closes with `closeCode`), `LIVE_EVENT_DROP` and
    /// `LIVE_EVENT_DELAY` (live events of `eventTypes` are dropped or delayed per connection) or
    /// `WEBHOOK_FAILURE` (the account's webhook deliveries fail with `status` or time out).
    public var type: String
    /// LATENCY and LIVE_EVENT_DELAY: `FIXED` (default; `millis`), `UNIFORM` (`minMillis`…`maxMillis`) or `LOGNORMAL`
    /// (`medianMillis`, `sigma`: a long tail), capped at 60 s.
    public var distribution: String?
    public var millis: Int?
    public var minMillis: Int?
    public var maxMillis: Int?
    public var medianMillis: Int?
    public var sigma: Double?
    /// ERROR: 400 to 599. WEBHOOK_FAILURE: the endpoint's answer, 400 to 599 (default 503).
    public var status: Int?
    /// ERROR: the error message (default: "injected fault").
    public var message: String?
    /// PUSH_FAILURE: the push service's answer — APNs `Unregistered`, `BadDeviceToken`,
    /// `DeviceTokenNotForTopic`, `TooManyRequests`, `InternalServerError`, `ServiceUnavailable`, or FCM
    /// `UNREGISTERED`, `INVALID_ARGUMENT`, `QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`.
    /// WEBSOCKET_CLOSE: the close reason (at most 123 bytes).
    public var reason: String?
    /// TRUNCATED_BODY: how many body bytes are sent before the connection closes (at most the body's
    /// length less one); without it, `fraction` of the body.
    public var bytes: Int?
    /// TRUNCATED_BODY: the share of the body sent, 0 to below 1 (default 0.5).
    public var fraction: Double?
    /// WEBSOCKET_CLOSE: the close code, 1000 to 4999 except the reserved 1004–1006 and 1015 (default 1011).
    public var closeCode: Int?
    /// WEBSOCKET_CLOSE: close after this many live events were sent from when the rule was drawn — when
    /// the socket connects or, for a socket already open, before its next event (default 0: at once).
    public var afterEvents: Int?
    /// LIVE_EVENT_DROP, LIVE_EVENT_DELAY: only events of these types (default: every event).
    public var eventTypes: [String]?
    /// BANDWIDTH: the cap, bytes per second, on the request's and the answer's body.
    public var bytesPerSecond: Int?
    /// WEBHOOK_FAILURE: the delivery times out (after `millis`, default the dispatcher's request timeout)
    /// instead of being answered with `status`.
    public var timeout: Bool?

    public init(
        type: String, distribution: String? = nil, millis: Int? = nil, minMillis: Int? = nil, maxMillis: Int? = nil, medianMillis: Int? = nil,
        sigma: Double? = nil, status: Int? = nil, message: String? = nil
    ) {
        self.type = type
        self.distribution = distribution
        self.millis = millis
        self.minMillis = minMillis
        self.maxMillis = maxMillis
        self.medianMillis = medianMillis
        self.sigma = sigma
        self.status = status
        self.message = message
    }

    /// A fixed delay.
    public static func latency(millis: Int) -> Self { .init(type: "LATENCY", distribution: "FIXED", millis: millis) }
    /// An error status with the surface's typed body.
    public static func error(status: Int, message: String? = nil) -> Self { .init(type: "ERROR", status: status, message: message) }
    /// The connection closes without an answer.
    public static var emptyResponse: Self { .init(type: "EMPTY_RESPONSE") }
    /// The connection is reset (TCP RST).
    public static var connectionReset: Self { .init(type: "CONNECTION_RESET") }
    /// A `GET`'s real status and headers, then `bytes` of its body (or `fraction` of it), then the connection closes.
    public static func truncatedBody(bytes: Int? = nil, fraction: Double? = nil) -> Self {
        var action = Self(type: "TRUNCATED_BODY")
        action.bytes = bytes
        action.fraction = fraction
        return action
    }
    /// Request and answer bodies at most `bytesPerSecond`.
    public static func bandwidth(bytesPerSecond: Int) -> Self {
        var action = Self(type: "BANDWIDTH")
        action.bytesPerSecond = bytesPerSecond
        return action
    }
    /// A live event WebSocket closes with `code` and `reason`, at once or after `afterEvents` events.
    public static func webSocketClose(code: Int, reason: String? = nil, afterEvents: Int? = nil) -> Self {
        var action = Self(type: "WEBSOCKET_CLOSE")
        action.closeCode = code
        action.reason = reason
        action.afterEvents = afterEvents
        return action
    }
    /// Live events (of `eventTypes`, or all) are never sent to the matched connections.
    public static func dropLiveEvents(_ eventTypes: [String]? = nil) -> Self {
        var action = Self(type: "LIVE_EVENT_DROP")
        action.eventTypes = eventTypes
        return action
    }
    /// Live events (of `eventTypes`, or all) are sent `millis` late to the matched connections.
    public static func delayLiveEvents(millis: Int, _ eventTypes: [String]? = nil) -> Self {
        var action = Self(type: "LIVE_EVENT_DELAY", distribution: "FIXED", millis: millis)
        action.eventTypes = eventTypes
        return action
    }
    /// The account's webhook deliveries fail as if the endpoint answered `status`.
    public static func webhookFailure(status: Int) -> Self { .init(type: "WEBHOOK_FAILURE", status: status) }
    /// The account's webhook deliveries time out (after `millis`, or the dispatcher's request timeout).
    public static func webhookTimeout(millis: Int? = nil) -> Self {
        var action = Self(type: "WEBHOOK_FAILURE", millis: millis)
        action.timeout = true
        return action
    }
    /// A push service's failure answer in place of delivery.
    public static func pushFailure(reason: String) -> Self {
        var action = Self(type: "PUSH_FAILURE")
        action.reason = reason
        return action
    }
}

/// The rules in the caller's scope.
public struct FaultRuleList: Codable, Sendable, Equatable {
    public var rules: [FaultRule]
    public init(rules: [FaultRule]) { self.rules = rules }
}
