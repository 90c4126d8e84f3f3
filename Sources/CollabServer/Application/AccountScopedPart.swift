import CollabPush

/// A part of the server that keeps something for each account — a cache, a budget, a queue, a log, live
/// connections — and lets go of it when the account is deleted. The committed stream says so
/// (``CommitFanOut``), on every replica alike, so a server whose tenants come and go does not keep what
/// the deleted ones left behind.
protocol AccountScopedPart: Sendable {
    /// Lets go of everything kept for `accountId`, which no longer exists.
    func accountDeleted(_ accountId: String)
}

extension EventHub: AccountScopedPart {
    func accountDeleted(_ accountId: String) { forget(accountId: accountId) }
}

extension FrameIngest: AccountScopedPart {
    func accountDeleted(_ accountId: String) { removeAll(accountId: accountId) }
}

extension CredentialCache: AccountScopedPart {}

extension RedemptionGuard: AccountScopedPart {}

extension EncodedBodies: AccountScopedPart {}

extension PushPipeline: AccountScopedPart {
    func accountDeleted(_ accountId: String) { forget(accountId: accountId) }
}

extension WebhookDispatcher: AccountScopedPart {
    func accountDeleted(_ accountId: String) { forget(accountId: accountId) }
}

extension FaultRules: AccountScopedPart {
    func accountDeleted(_ accountId: String) { _ = removeAll(accountId: accountId) }
}
