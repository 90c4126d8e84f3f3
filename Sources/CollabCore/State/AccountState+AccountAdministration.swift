/// What the vendor's Accounts tag adds beyond the account's record: its secret, its ingress and its
/// quota usage. Each is the caller's own account, or any account for a super admin (another account's
/// id is not found).
extension AccountState {
    /// One quota: how many the account holds and its limit (`QuotaUsageData`).
    public struct QuotaUsage: Sendable, Equatable {
        public var current: Int
        /// The vendor's limit is a string; MockCollab sets none.
        public var limit: String
    }

    /// `accounts/getQuotaUsage`: API keys, domains, teams and users of the account. The mock enforces
    /// no quota, so every limit is `UNLIMITED`.
    public func quotaUsage(for principal: Principal) throws(CollabError) -> [String: QuotaUsage] {
        _ = try callerAccountId(principal)
        let limit = Self.quotaLimit
        return [
            "apiKeys": QuotaUsage(current: apiKeys.count, limit: limit),
            "domains": QuotaUsage(current: declared.table(Domain.self).count, limit: limit),
            "teams": QuotaUsage(current: declared.table(Team.self).count, limit: limit), "users": QuotaUsage(current: users.count, limit: limit),
        ]
    }

    /// The limit every quota answers.
    public static let quotaLimit = "UNLIMITED"

    /// `accounts/{id}/getAccountSecret`: the account's secret, issued (and stored) on the first read
    /// when the account predates secrets (an older snapshot).
    public mutating func accountSecret(
        _ id: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError)
        -> AccountSecret
    {
        var account = try self.account(id, for: principal)
        if let secret = account.secret { return secret }
        let secret = AccountSecret(id: context.ids.make(), secretKey: context.ids.makeSecret(), creationTimestamp: context.now)
        account.secret = secret
        try storeAccount(account)
        changes.put(account)
        return secret
    }

    /// The account's ingress (`getIngressStatus`).
    public func ingress(_ id: String, for principal: Principal) throws(CollabError) -> AccountIngress {
        try account(id, for: principal).ingress ?? .initial
    }

    /// `enableAccountIngress` / `disableAccountIngress` / `restartIngressMigration` (`enabled: nil`
    /// keeps the flag): the migration runs, and in the mock ends at once.
    @discardableResult
    public mutating func migrateIngress(
        _ id: String, enabled: Bool?, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> AccountIngress {
        var account = try self.account(id, for: principal)
        var ingress = account.ingress ?? .initial
        ingress.enabled = enabled ?? ingress.enabled
        ingress.migrationStatus = ingress.enabled ? .doneIngressActive : .doneIngressInactive
        ingress.migrations += 1
        ingress.modificationTimestamp = context.now
        account.ingress = ingress
        return try saveChanged(account, context: context, changes: &changes).ingress ?? ingress
    }
}
