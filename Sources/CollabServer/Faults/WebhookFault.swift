import CollabCore
import NIOCore

/// What a `WEBHOOK_FAILURE` rule puts in place of a webhook endpoint's answer.
struct WebhookFault: Sendable {
    /// Thrown in place of the endpoint's answer when the rule times the delivery out.
    struct TimedOut: Error, CustomStringConvertible {
        var ruleId: String
        var description: String { "timed out (injected by fault rule \(ruleId))" }
    }

    var ruleId: String
    /// The endpoint's answer; `nil` for a time-out.
    var status: Int?
    /// How long a time-out takes; `nil` for the dispatcher's request timeout.
    var timeoutMillis: Int?

    /// The status to act on, or, for a time-out, ``TimedOut`` after the time-out's wait.
    func answer(requestTimeout: TimeAmount) async throws -> Int {
        if let status { return status }
        let millis = timeoutMillis.map(Int64.init) ?? requestTimeout.nanoseconds / 1_000_000
        try await Task.sleep(for: .milliseconds(millis))
        throw TimedOut(ruleId: ruleId)
    }
}

extension FaultRules {
    /// The failure a `WEBHOOK_FAILURE` rule puts in place of a delivery attempt to an endpoint of `accountId`.
    func webhookFailure(accountId: String, now: Timestamp) -> WebhookFault? {
        let request = Request(surface: "WEBHOOK", method: "POST", path: "", accountId: accountId, deviceId: nil, clientId: nil)
        guard case .webhookFailure(let ruleId, let status, let timeoutMillis)? = injection(for: request, now: now, kind: .webhook) else { return nil }
        return WebhookFault(ruleId: ruleId, status: status, timeoutMillis: timeoutMillis)
    }
}
