import CollabCore
import CollabPush
import CollabWire

extension CollabEnvironment {
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
    func injectedPushFailure(for push: OutboxEntry) -> InjectedPushFailure? {
        guard let failure = faults.pushFailure(accountId: push.accountId, deviceId: push.deviceId, now: clock.now()) else { return nil }
        journalFault(
            ruleId: failure.ruleId, action: "PUSH_FAILURE", method: "PUSH", path: "/pushes/\(push.pushId)",
            query: "deviceId=\(push.deviceId)&reason=\(failure.reason)", status: failure.status, accountId: push.accountId
        )
        return failure
    }

    /// The failure a `WEBHOOK_FAILURE` rule puts in place of attempt `attempt` of delivering `job`, journaled.
    func injectedWebhookFailure(for job: WebhookDispatcher.Job, deliveryId: String, attempt: Int) -> WebhookFault? {
        let accountId = job.registration.accountId
        guard let fault = faults.webhookFailure(accountId: accountId, now: clock.now()) else { return nil }
        journalFault(
            ruleId: fault.ruleId, action: "WEBHOOK_FAILURE", method: "WEBHOOK", path: RedactedURL.string(job.registration.endpoint),
            query: "event=\(job.eventType)&delivery=\(deliveryId)&attempt=\(attempt)", status: fault.status ?? 0, accountId: accountId
        )
        return fault
    }
}
