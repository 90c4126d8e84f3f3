/// An account's record retention intervals (`RecordRetentionData`): one per account, read and
/// replaced whole. The mock keeps the values; it deletes nothing on their account.
public struct RecordRetention: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var retentionIntervalConversationSeconds: Int64?
    public var retentionIntervalPresenceSeconds: Int64?
    public var retentionIntervalWebhookDeliveryLogSeconds: Int64?
    public var retentionIntervalAuditLogSeconds: Int64?

    /// What an account has before an admin sets anything: a year for conversations and audit logs,
    /// 30 days for presences and webhook delivery logs.
    public static func defaults(accountId: String) -> RecordRetention {
        RecordRetention(
            id: accountId, accountId: accountId, creationTimestamp: 0, modificationTimestamp: nil, version: nil,
            retentionIntervalConversationSeconds: 365 * 86_400,
            retentionIntervalPresenceSeconds: 30 * 86_400, retentionIntervalWebhookDeliveryLogSeconds: 30 * 86_400,
            retentionIntervalAuditLogSeconds: 365 * 86_400
        )
    }

    public static let declaration = EntityDeclaration<RecordRetention>(
        typeName: "RecordRetentionData", path: "recordretention", idParameter: "recordRetentionId", seedKey: "recordRetention",
        operations: EntityOperations(),
        fields: [],
        versioned: false,
        rules: EntityRules(validate: { retention, _, _ throws(CollabError) in
            for (field, value) in [
                ("retentionIntervalConversationSeconds", retention.retentionIntervalConversationSeconds),
                ("retentionIntervalPresenceSeconds", retention.retentionIntervalPresenceSeconds),
                ("retentionIntervalWebhookDeliveryLogSeconds", retention.retentionIntervalWebhookDeliveryLogSeconds),
                ("retentionIntervalAuditLogSeconds", retention.retentionIntervalAuditLogSeconds),
            ] {
                if let value, value < 0 || value > 100 * 365 * 86_400 { throw .badRequest("\(field) must be between 0 and 100 years in seconds") }
            }
        }),
        // One per account, named by the account: the vendor's schema has no id, timestamps or version.
        storedOnly: ["id", "creationTimestamp", "modificationTimestamp", "version"]
    )
}
