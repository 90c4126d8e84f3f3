import CollabCore
import CollabPush
import CollabWire

/// Where fault rules reach work outside a request — push deliveries and webhook delivery attempts — and
/// the journal that records every fault they inject.
struct FaultInjection: Sendable {
    let rules: FaultRules
    let journal: RequestJournal
    let clock: AdjustableClock

    /// Records a fault injected outside an HTTP request — on a live socket (method `WS`), a push
    /// (`PUSH`) or a webhook delivery attempt (`WEBHOOK`) — as a journal entry of its own, so every
    /// injected fault is in the journal with its rule's id and action.
    func journalFault(
        ruleId: String, action: String, method: String, path: String, query: String?, status: Int, accountId: String?, userId: String? = nil
    ) {
        var entry = JournalEntry(
            id: 0, timestamp: clock.now(), method: method, path: path, query: query, status: status, durationMicros: 0, accountId: accountId,
            userId: userId
        )
        entry.faultRuleId = ruleId
        entry.fault = action
        journal.record(entry)
    }

    /// The failure a `PUSH_FAILURE` rule puts in place of delivering `push`, journaled.
    func pushFailure(for push: OutboxEntry) -> InjectedPushFailure? {
        guard let failure = rules.pushFailure(accountId: push.accountId, deviceId: push.deviceId, now: clock.now()) else { return nil }
        journalFault(
            ruleId: failure.ruleId, action: "PUSH_FAILURE", method: "PUSH", path: "/pushes/\(push.pushId)",
            query: "deviceId=\(push.deviceId)&reason=\(failure.reason)", status: failure.status, accountId: push.accountId
        )
        return failure
    }

    /// The failure a `WEBHOOK_FAILURE` rule puts in place of attempt `attempt` of `delivery`, journaled.
    func webhookFailure(for delivery: ResolvedWebhook, deliveryId: String, attempt: Int) -> WebhookFault? {
        guard let fault = rules.webhookFailure(accountId: delivery.accountId, now: clock.now()) else { return nil }
        journalFault(
            ruleId: fault.ruleId, action: "WEBHOOK_FAILURE", method: "WEBHOOK", path: RedactedURL.string(delivery.endpoint),
            query: "event=\(delivery.eventType)&delivery=\(deliveryId)&attempt=\(attempt)", status: fault.status ?? 0, accountId: delivery.accountId
        )
        return fault
    }
}

extension CollabEnvironment {
    /// Fault rules as work outside a request meets them.
    var faultInjection: FaultInjection { FaultInjection(rules: faults, journal: journal, clock: clock) }

    /// Records a fault injected outside an HTTP request (see ``FaultInjection``).
    func journalFault(
        ruleId: String, action: String, method: String, path: String, query: String?, status: Int, accountId: String?, userId: String? = nil
    ) {
        faultInjection.journalFault(
            ruleId: ruleId, action: action, method: method, path: path, query: query, status: status, accountId: accountId, userId: userId
        )
    }
}
