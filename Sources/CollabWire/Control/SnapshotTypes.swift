/// What importing a snapshot (`POST /_mock/v1/snapshot`) did.
public struct SnapshotImportResult: Codable, Sendable, Equatable {
    /// `server` (everything was replaced) or `account` (one account was).
    public var scope: String
    /// The names of the accounts the snapshot brought, in its order.
    public var accounts: [String]
    /// How many records were imported (account records included).
    public var records: Int
    /// The snapshot's own format version, before any migration.
    public var version: Int

    public init(scope: String, accounts: [String], records: Int, version: Int) {
        self.scope = scope
        self.accounts = accounts
        self.records = records
        self.version = version
    }
}
