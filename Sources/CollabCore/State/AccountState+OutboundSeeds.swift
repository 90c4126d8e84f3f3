/// Seeding what an account calls out to: webhook registrations and dialog bots, matched by name.
extension AccountState {
    /// Applies a seed's webhook registrations and bots idempotently: each is matched by name within the
    /// account and updated only when a field the seed gives differs. A secret the seed leaves out is
    /// generated for a new entry and kept for an existing one, so an exported seed (which never holds
    /// secrets) applied again changes nothing.
    mutating func applyOutbound(_ seed: Seed.AccountSeed, context: OperationContext, changes: inout ChangeSet, report: inout SeedReport)
        throws(CollabError)
    {
        let system = Principal.control(of: accountId)
        let prefix = "seed: account '\(account.name)'"
        for (position, item) in (seed.webhookRegistrations ?? []).enumerated() {
            let path = "\(prefix): webhookRegistrations[\(position)]"
            try applySeed(item.draft, at: path, by: system, context: context, changes: &changes, report: &report)
        }
        for (position, item) in (seed.bots ?? []).enumerated() {
            try applySeed(item.draft, at: "\(prefix): bots[\(position)]", by: system, context: context, changes: &changes, report: &report)
        }
    }
}
