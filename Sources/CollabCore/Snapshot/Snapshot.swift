public import Foundation

/// A saved copy of the server's state, or of one account's: the stored records of every entity and the
/// virtual clock. With ``SnapshotSecrets/included`` the records are as the store keeps them (passwords
/// as hashes, sessions, tokens, keys); a ``SnapshotSecrets/redacted`` snapshot leaves credentials out.
///
/// The file is JSON: `{"format": "mock-collab-snapshot", "version": 3, "scope": "server"|"account",
/// "secrets": "included"|"redacted", "takenAt": ms, "clock": {...}, "globalConfiguration": {...},
/// "globalLicense": {"licenseId"}|{"state": "NO_LICENSE"}, "globalFileUploadInterceptors": [{...}], "accounts": [{"account": {...},
/// "records": [{"kind", "id", "body"}], "files": [{"conversationId", "id", "content"}]}]}` — `content`
/// is a file's bytes in base64. ``SnapshotReader`` reads it as it arrives, older versions too; newer
/// ones are refused.
public struct Snapshot: Sendable {
    /// The version this server writes.
    public static let currentVersion = 3
    /// The `format` field every snapshot carries.
    public static let formatName = "mock-collab-snapshot"

    /// What a snapshot covers.
    public enum Scope: String, Sendable, Codable {
        /// Every account, the GLOBAL configuration and the clock; importing replaces everything.
        case server
        /// One account; importing replaces that account only.
        case account
    }

    /// The virtual clock when the snapshot was taken.
    public struct Clock: Sendable, Equatable {
        public var now: Timestamp
        public var offset: Int64
        public var frozen: Bool
        public init(now: Timestamp, offset: Int64, frozen: Bool) {
            self.now = now
            self.offset = offset
            self.frozen = frozen
        }
    }

    /// One account: its record, the records it owns and the contents of its files.
    public struct AccountData: Sendable {
        public var account: Account
        /// Every record the account owns except the account record itself.
        public var records: [StoredRecord]
        /// The bytes of the files its FILE messages name (none in snapshots older than version 2).
        public var files: [FileContent]
        public init(account: Account, records: [StoredRecord], files: [FileContent] = []) {
            self.account = account
            self.records = records
            self.files = files
        }
    }

    /// The stored bytes of one file shared in a conversation.
    public struct FileContent: Sendable, Equatable {
        public var conversationId: String
        /// The file's id (the FILE message's `file.id`).
        public var fileId: String
        public var bytes: Data
        public init(conversationId: String, fileId: String, bytes: Data) {
            self.conversationId = conversationId
            self.fileId = fileId
            self.bytes = bytes
        }
    }

    public var scope: Scope
    /// Whether credentials are in it (see ``SnapshotSecrets``).
    public var secrets: SnapshotSecrets = .included
    public var takenAt: Timestamp
    public var clock: Clock?
    /// The GLOBAL configuration (server snapshots only).
    public var globalConfiguration: GlobalConfiguration?
    public var accounts: [AccountData]
    /// The version the file was written in (older ones were migrated when read).
    public var sourceVersion: Int = Snapshot.currentVersion

    public init(scope: Scope, takenAt: Timestamp, clock: Clock?, globalConfiguration: GlobalConfiguration?, accounts: [AccountData]) {
        self.scope = scope
        self.takenAt = takenAt
        self.clock = clock
        self.globalConfiguration = globalConfiguration
        self.accounts = accounts
    }
}

// MARK: encoding

extension Snapshot {
    /// The snapshot as a current-version JSON file (sorted keys, so equal states give equal files).
    public func encoded() throws(CollabError) -> Data {
        func object(_ data: Data) throws(CollabError) -> Any {
            do { return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
                throw CollabError(.internalError, "a stored record is not JSON")
            }
        }
        var accountObjects: [Any] = []
        for data in accounts {
            var records: [Any] = []
            for record in data.records {
                records.append(["kind": record.kind.rawValue, "id": record.id, "body": try object(record.body)] as [String: Any])
            }
            let files: [Any] = data.files.map { file in
                ["conversationId": file.conversationId, "id": file.fileId, "content": file.bytes.base64EncodedString()] as [String: Any]
            }
            accountObjects.append(
                ["account": try object(StoredRecord(encoding: data.account).body), "records": records, "files": files] as [String: Any])
        }
        var document: [String: Any] = [
            "format": Self.formatName, "version": Self.currentVersion, "scope": scope.rawValue, "secrets": secrets.rawValue, "takenAt": takenAt,
            "accounts": accountObjects,
        ]
        if let clock { document["clock"] = ["now": clock.now, "offset": clock.offset, "frozen": clock.frozen] as [String: Any] }
        if let globalConfiguration { document["globalConfiguration"] = globalConfiguration.properties }
        switch globalConfiguration?.license {
        case nil: break
        case .installed(let licenseId): document["globalLicense"] = ["licenseId": licenseId]
        case .removed: document["globalLicense"] = ["state": "NO_LICENSE"]
        }
        if let interceptors = globalConfiguration?.fileUploadInterceptors, !interceptors.isEmpty {
            var list: [Any] = []
            for var interceptor in interceptors.values.sorted(by: { $0.id < $1.id }) {
                // Only super admins read a global interceptor's secret: a redacted snapshot leaves it out.
                if secrets == .redacted { interceptor.secret = "" }
                list.append(try object(StoredRecord(encoding: interceptor).body))
            }
            document["globalFileUploadInterceptors"] = list
        }
        do {
            return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted])
        } catch {
            throw CollabError(.internalError, "cannot encode the snapshot")
        }
    }
}
