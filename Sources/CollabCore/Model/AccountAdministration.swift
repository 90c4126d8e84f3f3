public import CollabWire
/// The account's secret key (the vendor's `AccountSecret`): issued when the account is created, read
/// by its admins and super admins with `accounts/{id}/getAccountSecret`. MockCollab signs nothing with
/// it; it is kept so integrations that fetch and store it find one.
public struct AccountSecret: Sendable, Codable, Equatable {
    public var id: String
    public var secretKey: String
    public var creationTimestamp: Timestamp
}

/// Whether the account is served under its own ingress (the vendor's `AccountIngressStatus`). The mock
/// has no ingress to configure: enabling it migrates at once (usernames are unique server-wide here, so
/// the migration cannot meet a conflict) and the account answers `ACCOUNT`; disabled it answers `GLOBAL`.
public struct AccountIngress: Sendable, Codable, Equatable {
    /// `EIngressMigrationStatus`.
    public enum MigrationStatus: String, Sendable, Codable, CaseIterable, NamedCases {
        case migrating = "MIGRATING"
        case doneIngressActive = "DONE_INGRESS_ACTIVE"
        case doneIngressInactive = "DONE_INGRESS_INACTIVE"
        case error = "ERROR"
    }

    public var enabled: Bool
    public var migrationStatus: MigrationStatus
    /// How many times the migration ran (enable, disable, restart).
    public var migrations: Int
    public var modificationTimestamp: Timestamp

    /// An account that never had its ingress enabled.
    public static let initial = AccountIngress(enabled: false, migrationStatus: .doneIngressInactive, migrations: 0, modificationTimestamp: 0)

    /// `EIngressStatus`: `ACCOUNT` once an enabled ingress migrated, `GLOBAL` otherwise.
    public var ingressStatus: String { enabled && migrationStatus == .doneIngressActive ? "ACCOUNT" : "GLOBAL" }
}
