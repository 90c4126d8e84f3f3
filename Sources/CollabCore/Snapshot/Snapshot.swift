public import Foundation

/// A saved copy of the server's state, or of one account's: the stored records of every entity and the
/// virtual clock. With ``SnapshotSecrets/included`` the records are as the store keeps them (passwords
/// as hashes, sessions, tokens, keys); a ``SnapshotSecrets/redacted`` snapshot leaves credentials out.
///
/// The file is JSON: `{"format": "mock-collab-snapshot", "version": 3, "scope": "server"|"account",
/// "secrets": "included"|"redacted", "takenAt": ms, "clock": {...}, "globalConfiguration": {...}, "accounts": [{"account": {...},
/// "records": [{"kind", "id", "body"}], "files": [{"conversationId", "id", "content"}]}]}` — `content`
/// is a file's bytes in base64. Older versions are migrated on import (see
/// ``SnapshotMigrations``); newer ones are refused.
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
            accountObjects.append(["account": try object(StoredRecord(encoding: data.account).body), "records": records, "files": files] as [String: Any])
        }
        var document: [String: Any] = [
            "format": Self.formatName, "version": Self.currentVersion, "scope": scope.rawValue, "secrets": secrets.rawValue, "takenAt": takenAt,
            "accounts": accountObjects,
        ]
        if let clock { document["clock"] = ["now": clock.now, "offset": clock.offset, "frozen": clock.frozen] as [String: Any] }
        if let globalConfiguration { document["globalConfiguration"] = globalConfiguration.properties }
        do {
            return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted])
        } catch {
            throw CollabError(.internalError, "cannot encode the snapshot")
        }
    }
}

// MARK: decoding

extension Snapshot {
    /// Parses a snapshot file of this or an older version (older ones are migrated first).
    /// - Throws: `badRequest` for a file that is not a snapshot, is malformed, or has a version newer than
    ///   this server writes.
    public static func decode(_ data: Data) throws(CollabError) -> Snapshot {
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            throw .badRequest("the snapshot is not valid JSON")
        }
        guard var document = parsed as? [String: Any] else { throw .badRequest("a snapshot is a JSON object") }
        guard let version = document["version"] as? Int else { throw .badRequest("the snapshot has no integer 'version'") }
        if version > currentVersion {
            throw CollabError(
                .badRequest,
                "the snapshot has version \(version), newer than this server understands (up to \(currentVersion)); use a newer mock-collab"
            )
        }
        guard version >= 0 else { throw .badRequest("the snapshot version \(version) is not a version") }
        document = try SnapshotMigrations.migrate(document, from: version)
        guard document["format"] as? String == formatName else { throw .badRequest("the snapshot's 'format' is not '\(formatName)'") }
        guard let scopeText = document["scope"] as? String, let scope = Scope(rawValue: scopeText) else {
            throw .badRequest("the snapshot's 'scope' must be 'server' or 'account'")
        }
        guard let secretsText = document["secrets"] as? String, let secrets = SnapshotSecrets(rawValue: secretsText) else {
            throw .badRequest("the snapshot's 'secrets' must be 'included' or 'redacted'")
        }
        let takenAt = (document["takenAt"] as? Int).map(Timestamp.init) ?? 0
        var clock: Clock?
        if let clockObject = document["clock"] {
            guard let object = clockObject as? [String: Any], let now = object["now"] as? Int, let offset = object["offset"] as? Int,
                let frozen = object["frozen"] as? Bool
            else { throw .badRequest("the snapshot's 'clock' needs integer 'now' and 'offset' and boolean 'frozen'") }
            clock = Clock(now: Timestamp(now), offset: Int64(offset), frozen: frozen)
        }
        var global: GlobalConfiguration?
        if let globalObject = document["globalConfiguration"] {
            guard let properties = globalObject as? [String: String] else { throw .badRequest("'globalConfiguration' must map strings to strings") }
            global = GlobalConfiguration(properties: properties)
        }
        guard let accountList = document["accounts"] as? [Any] else { throw .badRequest("the snapshot has no 'accounts' list") }
        var accounts: [AccountData] = []
        for (index, item) in accountList.enumerated() {
            guard let entry = item as? [String: Any], let accountObject = entry["account"] else {
                throw .badRequest("accounts[\(index)] needs an 'account' object")
            }
            let account: Account
            do { account = try JSONDecoder().decode(Account.self, from: try jsonData(accountObject)) } catch {
                throw .badRequest("accounts[\(index)].account is not an account record")
            }
            guard let recordList = entry["records"] as? [Any] else { throw .badRequest("accounts[\(index)] needs a 'records' list") }
            var records: [StoredRecord] = []
            records.reserveCapacity(recordList.count)
            for (position, item) in recordList.enumerated() {
                guard let object = item as? [String: Any], let kindText = object["kind"] as? String, let id = object["id"] as? String,
                    let body = object["body"]
                else { throw .badRequest("accounts[\(index)].records[\(position)] needs 'kind', 'id' and 'body'") }
                guard let kind = EntityKind(rawValue: kindText), kind != .account, kind != .globalConfiguration else {
                    throw .badRequest("accounts[\(index)].records[\(position)] has an unknown kind '\(kindText)'")
                }
                records.append(StoredRecord(kind: kind, id: id, accountId: account.id, body: try jsonData(body)))
            }
            accounts.append(AccountData(account: account, records: records, files: try decodeFiles(entry["files"], index: index)))
        }
        if scope == .account, accounts.count != 1 { throw .badRequest("an account snapshot holds exactly one account") }
        let ids = accounts.map(\.account.id)
        let names = accounts.map(\.account.name)
        guard Set(ids).count == ids.count, Set(names).count == names.count else {
            throw .badRequest("the snapshot names an account twice")
        }
        var snapshot = Snapshot(scope: scope, takenAt: takenAt, clock: clock, globalConfiguration: global, accounts: accounts)
        snapshot.secrets = secrets
        snapshot.sourceVersion = version
        return snapshot
    }

    /// An account's `files` list: each file once, with base64 `content`. Whether a FILE message names
    /// each one is checked when the account's state is built (``AccountState/fromSnapshot(_:)``).
    private static func decodeFiles(_ value: Any?, index: Int) throws(CollabError) -> [FileContent] {
        guard let value else { throw .badRequest("accounts[\(index)] needs a 'files' list") }
        guard let list = value as? [Any] else { throw .badRequest("accounts[\(index)].files must be a list") }
        var files: [FileContent] = []
        var seen: Set<String> = []
        for (position, item) in list.enumerated() {
            guard let object = item as? [String: Any], let conversationId = object["conversationId"] as? String, let id = object["id"] as? String,
                let content = object["content"] as? String
            else { throw .badRequest("accounts[\(index)].files[\(position)] needs 'conversationId', 'id' and 'content'") }
            guard let bytes = Data(base64Encoded: content) else { throw .badRequest("accounts[\(index)].files[\(position)].content is not base64") }
            guard seen.insert(id).inserted else { throw .badRequest("accounts[\(index)].files[\(position)] repeats the file '\(id)'") }
            files.append(FileContent(conversationId: conversationId, fileId: id, bytes: bytes))
        }
        return files
    }

    private static func jsonData(_ object: Any) throws(CollabError) -> Data {
        do { return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]) } catch {
            throw .badRequest("a snapshot record is not JSON")
        }
    }
}

/// Upgrades snapshot documents written by older versions, one version at a time, before they are read.
///
/// Each step takes the JSON object of version `n` and returns the object of version `n + 1`. To change
/// the format: bump ``Snapshot/currentVersion``, add the step from the previous version here, and keep
/// a file of the old version in the tests.
public enum SnapshotMigrations {
    /// Version 0 (the draft format, never written by a release): the store's table as it is — one flat
    /// list of `{"kind", "id", "accountId", "body"}` records, account records among them — with the
    /// clock beside it. Version 1 groups the records by account.
    static func from0to1(_ document: [String: Any]) throws(CollabError) -> [String: Any] {
        guard let records = document["records"] as? [Any] else { throw .badRequest("a version-0 snapshot needs a 'records' list") }
        var accounts: [String: Any] = [:]
        var order: [String] = []
        var owned: [String: [Any]] = [:]
        var global: Any?
        for (position, item) in records.enumerated() {
            guard let record = item as? [String: Any], let kind = record["kind"] as? String else {
                throw .badRequest("records[\(position)] of the version-0 snapshot needs a 'kind'")
            }
            switch kind {
            case EntityKind.account.rawValue:
                guard let id = record["id"] as? String else { throw .badRequest("records[\(position)] needs an 'id'") }
                if accounts[id] == nil { order.append(id) }
                accounts[id] = record["body"]
            case EntityKind.globalConfiguration.rawValue:
                global = (record["body"] as? [String: Any])?["properties"]
            default:
                guard let accountId = record["accountId"] as? String else {
                    throw .badRequest("records[\(position)] of the version-0 snapshot needs an 'accountId'")
                }
                owned[accountId, default: []].append(["kind": kind, "id": record["id"] ?? "", "body": record["body"] ?? [:]] as [String: Any])
            }
        }
        guard Set(owned.keys).isSubset(of: Set(order)) else { throw .badRequest("the version-0 snapshot has records of an account it does not hold") }
        var migrated: [String: Any] = [
            "format": Snapshot.formatName, "version": 1,
            "scope": (document["scope"] as? String) ?? (order.count == 1 && global == nil ? "account" : "server"),
            "takenAt": document["takenAt"] ?? 0,
            "accounts": order.map { id in ["account": accounts[id] ?? [:], "records": owned[id] ?? []] as [String: Any] },
        ]
        if let clock = document["clock"] { migrated["clock"] = clock }
        if let global { migrated["globalConfiguration"] = global }
        return migrated
    }

    /// Version 1 held no file contents: version 2 adds each account's `files` list, empty (a FILE
    /// message restored from it downloads only where its bytes are still stored).
    static func from1to2(_ document: [String: Any]) throws(CollabError) -> [String: Any] {
        guard let accounts = document["accounts"] as? [Any] else { throw .badRequest("the snapshot has no 'accounts' list") }
        var migrated = document
        migrated["version"] = 2
        migrated["accounts"] = accounts.map { item -> Any in
            guard var entry = item as? [String: Any] else { return item }
            if entry["files"] == nil { entry["files"] = [Any]() }
            return entry
        }
        return migrated
    }

    /// Version 2 always held every secret the store keeps: version 3 says so in `secrets`, which a
    /// redacted export sets to `redacted`.
    static func from2to3(_ document: [String: Any]) throws(CollabError) -> [String: Any] {
        var migrated = document
        migrated["version"] = 3
        migrated["secrets"] = SnapshotSecrets.included.rawValue
        return migrated
    }

    /// The step that upgrades from `version`, if there is one.
    static func step(from version: Int, _ document: [String: Any]) throws(CollabError) -> [String: Any] {
        switch version {
        case 0: try from0to1(document)
        case 1: try from1to2(document)
        case 2: try from2to3(document)
        default: throw .badRequest("snapshot version \(version) cannot be migrated")
        }
    }

    /// Upgrades `document` from `version` to ``Snapshot/currentVersion``.
    public static func migrate(_ document: [String: Any], from version: Int) throws(CollabError) -> [String: Any] {
        var document = document
        var version = version
        while version < Snapshot.currentVersion {
            document = try step(from: version, document)
            version += 1
        }
        return document
    }
}
