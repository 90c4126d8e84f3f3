/// Seeding what an account calls out to: webhook registrations and dialog bots, matched by name.
extension AccountState {
    /// Applies a seed's webhook registrations and bots idempotently: each is matched by name within the
    /// account and updated only when a field the seed gives differs. A secret the seed leaves out is
    /// generated for a new entry and kept for an existing one, so an exported seed (which never holds
    /// secrets) applied again changes nothing.
    mutating func applyOutbound(_ seed: Seed.AccountSeed, context: OperationContext, changes: inout ChangeSet, report: inout SeedReport)
        throws(CollabError)
    {
        for (position, item) in (seed.webhookRegistrations ?? []).enumerated() {
            do {
                try applyWebhook(item, context: context, changes: &changes, report: &report)
            } catch {
                throw CollabError(error.kind, "seed: account '\(account.name)': webhookRegistrations[\(position)]: \(error.message)")
            }
        }
        for (position, item) in (seed.bots ?? []).enumerated() {
            do {
                try applyBot(item, context: context, changes: &changes, report: &report)
            } catch {
                throw CollabError(error.kind, "seed: account '\(account.name)': bots[\(position)]: \(error.message)")
            }
        }
    }

    private mutating func applyWebhook(_ item: Seed.WebhookSeed, context: OperationContext, changes: inout ChangeSet, report: inout SeedReport)
        throws(CollabError)
    {
        let input = item.input
        try upsert(
            webhooks.rows(Indexes.webhookByName, item.name).first, report: &report,
            unchanged: { existing in
                existing.description == item.description && (item.status == nil || item.status == existing.status)
                    && existing.endpoint == item.endpoint
                    && existing.events == WebhookRegistration.vendorEventNames(item.events) && (item.secret == nil || item.secret == existing.secret)
            },
            create: { state throws(CollabError) in
                _ = try state.createWebhook(input, accountId: state.accountId, context: context, changes: &changes)
            },
            update: { state, existing throws(CollabError) in
                _ = try state.updateWebhook(id: existing.id, version: existing.version, input, for: .control, context: context, changes: &changes)
            }
        )
    }

    private mutating func applyBot(_ item: Seed.BotSeed, context: OperationContext, changes: inout ChangeSet, report: inout SeedReport)
        throws(CollabError)
    {
        let draft = item.draft
        let system = Principal.control(of: accountId)
        try upsert(
            namedBot(item.name), report: &report,
            unchanged: { existing in
                var candidate = DialogBot.declaration.rules.merge(draft, existing)
                (candidate.id, candidate.accountId, candidate.version) = (existing.id, existing.accountId, existing.version)
                (candidate.creationTimestamp, candidate.modificationTimestamp) = (existing.creationTimestamp, existing.modificationTimestamp)
                candidate.fillDefaults()
                return candidate == existing
            },
            create: { state throws(CollabError) in _ = try state.createEntity(draft, for: system, context: context, changes: &changes) },
            update: { state, existing throws(CollabError) in
                var update = draft
                (update.id, update.version) = (existing.id, existing.version)
                _ = try state.updateEntity(update, for: system, context: context, changes: &changes)
            }
        )
    }
}
