import Foundation

/// Reads a snapshot file as it arrives, in pieces of any size, without holding it: each account's shard
/// is built record by record as the records come (a record's JSON is dropped once decoded), and each
/// file's contents are handed to the caller to stage as soon as they are read. The header, which sorted
/// keys put after the accounts, is checked at the end, with everything else that needs the whole.
///
/// What an import holds is therefore the shards it builds — what the server holds afterwards anyway —
/// plus one record's or one file's JSON at a time.
///
/// Older versions are read too: version 2 had no `secrets` (it held them all), version 1 no `files`,
/// version 0 one flat `records` list with the account records among them (held until the end to be
/// grouped by account). To change the format: bump ``Snapshot/currentVersion``, say here what the
/// previous version lacks, and keep a file of it in the tests.
public struct SnapshotReader: Sendable {
    /// One file's contents, read, for the caller to stage.
    public struct FileItem: Sendable {
        /// The position of its account in the snapshot's `accounts`.
        public var account: Int
        /// Its account's id.
        public var accountId: String
        public var content: Snapshot.FileContent
    }

    /// A file the caller staged: what the FILE message naming it must say.
    public struct StagedFile: Sendable, Equatable {
        public var conversationId: String
        public var fileId: String
        public var size: Int64
        /// Lower-case hex SHA-256 of the bytes.
        public var sha256: String

        public init(conversationId: String, fileId: String, size: Int64, sha256: String) {
            self.conversationId = conversationId
            self.fileId = fileId
            self.size = size
            self.sha256 = sha256
        }
    }

    /// A snapshot read whole and checked: its shards, built in scratch directories, ready to take their
    /// accounts' places.
    public struct Prepared: Sendable {
        public var scope: Snapshot.Scope
        public var secrets: SnapshotSecrets
        public var takenAt: Timestamp
        public var clock: Snapshot.Clock?
        /// The GLOBAL configuration (server snapshots only).
        public var globalConfiguration: GlobalConfiguration?
        public var accounts: [AccountState]
        /// The version the file was written in.
        public var sourceVersion: Int
        /// Records read, account records included.
        public var records: Int
    }

    private struct PendingAccount: Sendable {
        var loader: AccountState.Loader?
        /// Records and files that came before the account record (hand-written files need not sort their keys).
        var early: [StoredRecord] = []
        var earlyFiles: [Snapshot.FileContent] = []
        var sawRecords = false
        var sawFiles = false
        var fileIds: Set<String> = []
        var staged: [StagedFile] = []
    }

    /// The captured fields of a record or file entry.
    private struct PartialObject: Sendable {
        var fields: [String: [UInt8]] = [:]

        /// A captured field that is a JSON string.
        func string(_ field: String) -> String? {
            fields[field].flatMap(JSONString.decode)
        }
    }

    private typealias Step = JSONStreamScanner.Step

    private var scanner = JSONStreamScanner(handling: SnapshotReader.handling)
    private var header: [String: [UInt8]] = [:]
    private var sawAccounts = false
    private var sawFlatRecords = false
    private var accounts: [PendingAccount] = []
    private var partial = PartialObject()
    /// Files read and not yet handed out.
    private var output: [FileItem] = []
    /// Version 0's records, grouped at the end.
    private var flatRecords: [(record: StoredRecord, position: Int)] = []
    /// Records read, account records included.
    private var recordCount = 0

    public init() {}

    // MARK: reading

    /// Reads the next piece of the file.
    /// - Returns: The files whose contents this piece completed, to stage before ``finish(context:)``.
    /// - Throws: `badRequest` naming what is wrong, as soon as it is seen.
    public mutating func read(_ bytes: UnsafeRawBufferPointer) throws(CollabError) -> [FileItem] {
        let events: [JSONStreamScanner.Event]
        do { events = try scanner.consume(bytes) } catch { throw Self.refusal(error) }
        return try handle(events)
    }

    /// Notes a file the caller staged (every ``FileItem`` must be noted before ``finish(context:)``).
    public mutating func staged(_ file: StagedFile, account: Int) {
        accounts[account].staged.append(file)
    }

    private mutating func handle(_ events: [JSONStreamScanner.Event]) throws(CollabError) -> [FileItem] {
        for event in events {
            switch event {
            case .begin(let path): try begin(path)
            case .value(let path, let bytes): try value(path, bytes)
            case .end(let path): try end(path)
            }
        }
        defer { output = [] }
        return output
    }

    /// What to do at each place of a snapshot file.
    private static let handling: @Sendable ([Step]) -> JSONStreamScanner.Handling = { path in
        switch (path.count, path.first) {
        case (0, _): return .object
        case (1, .key("accounts")), (1, .key("records")): return .array
        case (1, .key(let key)): return headerKeys.contains(key) ? .capture : .skip
        case (2, .key("accounts")), (2, .key("records")): return .object
        case (3, .key("records")): return [.key("kind"), .key("id"), .key("accountId"), .key("body")].contains(path[2]) ? .capture : .skip
        case (3, .key("accounts")):
            switch path[2] {
            case .key("account"): return .capture
            case .key("records"), .key("files"): return .array
            default: return .skip
            }
        case (4, .key("accounts")): return .object
        case (5, .key("accounts")):
            let fields: [Step] =
                path[2] == .key("records") ? [.key("kind"), .key("id"), .key("body")] : [.key("conversationId"), .key("id"), .key("content")]
            return fields.contains(path[4]) ? .capture : .skip
        default: return .skip
        }
    }

    private static let headerKeys: Set<String> = [
        "format", "version", "scope", "secrets", "takenAt", "clock", "globalConfiguration", "globalLicense",
        "globalFileUploadInterceptors",
    ]

    private mutating func begin(_ path: [Step]) throws(CollabError) {
        switch (path.count, path.first) {
        case (1, .key("accounts")):
            guard !sawAccounts else { throw .badRequest("the snapshot has two 'accounts' lists") }
            sawAccounts = true
        case (1, .key("records")):
            guard !sawFlatRecords else { throw .badRequest("the snapshot has two 'records' lists") }
            sawFlatRecords = true
        case (2, .key("accounts")):
            accounts.append(PendingAccount())
        case (3, .key("accounts")):
            let index = accounts.count - 1
            if path[2] == .key("records") {
                guard !accounts[index].sawRecords else { throw .badRequest("accounts[\(index)] has two 'records' lists") }
                accounts[index].sawRecords = true
            } else {
                guard !accounts[index].sawFiles else { throw .badRequest("accounts[\(index)] has two 'files' lists") }
                accounts[index].sawFiles = true
            }
        case (2, .key("records")), (4, .key("accounts")):
            partial = PartialObject()
        default:
            break
        }
    }

    private mutating func value(_ path: [Step], _ bytes: [UInt8]) throws(CollabError) {
        switch (path.count, path.first) {
        case (1, .key(let key)):
            guard header.updateValue(bytes, forKey: key) == nil else { throw .badRequest("the snapshot names '\(key)' twice") }
        case (3, .key("accounts")):
            try accountRecord(bytes)
        case (3, .key("records")), (5, .key("accounts")):
            guard case .key(let field) = path.last else { return }
            guard partial.fields.updateValue(bytes, forKey: field) == nil else {
                throw .badRequest("\(Self.place(path.dropLast())) names '\(field)' twice")
            }
        default:
            break
        }
    }

    private mutating func end(_ path: [Step]) throws(CollabError) {
        switch (path.count, path.first) {
        case (2, .key("accounts")):
            let index = accounts.count - 1
            guard accounts[index].loader != nil else { throw .badRequest("accounts[\(index)] needs an 'account' object") }
            guard accounts[index].sawRecords else { throw .badRequest("accounts[\(index)] needs a 'records' list") }
        case (2, .key("records")):
            let position = flatRecords.count
            guard let kindText = partial.string("kind"), let kind = EntityKind(rawValue: kindText), let body = partial.fields["body"] else {
                throw .badRequest("records[\(position)] of the version-0 snapshot needs a known 'kind' and a 'body'")
            }
            let record = StoredRecord(kind: kind, id: partial.string("id") ?? "", accountId: partial.string("accountId"), body: Data(body))
            flatRecords.append((record, position))
        case (4, .key("accounts")) where path[2] == .key("records"):
            try accountEntry(path)
        case (4, .key("accounts")):
            try fileEntry(path)
        default:
            break
        }
    }

    // MARK: the end

    /// Ends the file and checks the whole: the header, each account complete, every file named by a
    /// FILE message with its size and SHA-256, no account twice; credentials a redacted export left out
    /// are issued anew.
    /// - Throws: `badRequest` saying what is wrong.
    public mutating func finish(context: OperationContext) throws(CollabError) -> Prepared {
        let events: [JSONStreamScanner.Event]
        do { events = try scanner.finish() } catch { throw Self.refusal(error) }
        _ = try handle(events)
        guard let version = header["version"].flatMap({ Int(String(decoding: $0, as: UTF8.self)) }) else {
            throw .badRequest("the snapshot has no integer 'version'")
        }
        if version > Snapshot.currentVersion {
            throw CollabError(
                .badRequest,
                "the snapshot has version \(version), newer than this server understands (up to \(Snapshot.currentVersion)); use a newer mock-collab"
            )
        }
        guard version >= 0 else { throw .badRequest("the snapshot version \(version) is not a version") }
        var states: [AccountState]
        if version == 0 {
            guard sawFlatRecords else { throw .badRequest("a version-0 snapshot needs a 'records' list") }
            states = try flatAccounts()
        } else {
            guard headerString("format") == Snapshot.formatName else { throw .badRequest("the snapshot's 'format' is not '\(Snapshot.formatName)'") }
            guard sawAccounts else { throw .badRequest("the snapshot has no 'accounts' list") }
            states = []
            // Taken out one by one, so finishing a shard changes it in place rather than a copy.
            var pending = accounts.reversed() as [PendingAccount]
            accounts = []
            while var account = pending.popLast() {
                let index = states.count
                if version >= 2, !account.sawFiles { throw .badRequest("accounts[\(index)] needs a 'files' list") }
                guard let loader = account.loader.take() else { throw .badRequest("accounts[\(index)] needs an 'account' object") }
                let state = loader.finish()
                try state.checkFileContents(account.staged, accountName: state.account.name)
                states.append(state)
            }
        }
        let scope: Snapshot.Scope
        if let text = headerString("scope") {
            guard let parsed = Snapshot.Scope(rawValue: text) else { throw .badRequest("the snapshot's 'scope' must be 'server' or 'account'") }
            scope = parsed
        } else if version == 0 {
            scope = states.count == 1 && header["globalConfiguration"] == nil ? .account : .server
        } else {
            throw .badRequest("the snapshot's 'scope' must be 'server' or 'account'")
        }
        let secrets: SnapshotSecrets
        if let text = headerString("secrets"), let parsed = SnapshotSecrets(rawValue: text) {
            secrets = parsed
        } else if version < 3, header["secrets"] == nil {
            secrets = .included  // earlier versions always held every secret
        } else {
            throw .badRequest("the snapshot's 'secrets' must be 'included' or 'redacted'")
        }
        for (index, state) in states.enumerated() { try state.checkStoredBounds(context.limits, place: "accounts[\(index)]") }
        if scope == .account, states.count != 1 { throw .badRequest("an account snapshot holds exactly one account") }
        let ids = states.map(\.accountId)
        let names = states.map(\.account.name)
        guard Set(ids).count == ids.count, Set(names).count == names.count else { throw .badRequest("the snapshot names an account twice") }
        if secrets == .redacted {
            for index in states.indices { states[index].renewRedactedSecrets(context: context) }
        }
        return Prepared(
            scope: scope, secrets: secrets, takenAt: header["takenAt"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0,
            clock: try headerClock(), globalConfiguration: try headerGlobalConfiguration(context: context), accounts: states, sourceVersion: version,
            records: recordCount
        )
    }

    private func headerString(_ key: String) -> String? {
        header[key].flatMap(JSONString.decode)
    }

    private func headerObject(_ key: String) -> Any? {
        header[key].flatMap { try? JSONSerialization.jsonObject(with: Data($0), options: [.fragmentsAllowed]) }
    }

    private func headerClock() throws(CollabError) -> Snapshot.Clock? {
        guard header["clock"] != nil else { return nil }
        guard let object = headerObject("clock") as? [String: Any], let now = object["now"] as? Int, let offset = object["offset"] as? Int,
            let frozen = object["frozen"] as? Bool
        else { throw .badRequest("the snapshot's 'clock' needs integer 'now' and 'offset' and boolean 'frozen'") }
        // Checked before anything is replaced; a running clock's instant is held within the bounds when it applies.
        let bound = ClockSetting.instants.upperBound
        guard ClockSetting.instants.contains(Timestamp(now)), (-bound...bound).contains(Int64(offset)) else {
            throw .badRequest("the snapshot's clock must show an instant from 1970 to the end of 9999 (0...\(bound)), offset as far")
        }
        return Snapshot.Clock(now: Timestamp(now), offset: Int64(offset), frozen: frozen)
    }

    private func headerGlobalConfiguration(context: OperationContext) throws(CollabError) -> GlobalConfiguration? {
        guard header["globalConfiguration"] != nil else { return nil }
        guard let properties = headerObject("globalConfiguration") as? [String: String] else {
            throw .badRequest("'globalConfiguration' must map strings to strings")
        }
        return GlobalConfiguration(
            properties: properties, license: try headerGlobalLicense(),
            fileUploadInterceptors: try headerGlobalFileUploadInterceptors(context: context)
        )
    }

    /// The global file-upload interceptors, as their stored records; a redacted snapshot's have no
    /// secret (`""`), and the reader issues new ones.
    private func headerGlobalFileUploadInterceptors(context: OperationContext) throws(CollabError) -> [String: FileUploadInterceptor] {
        guard let bytes = header["globalFileUploadInterceptors"] else { return [:] }
        let list: [FileUploadInterceptor]
        do { list = try JSONDecoder().decode([FileUploadInterceptor].self, from: Data(bytes)) } catch {
            throw .badRequest("'globalFileUploadInterceptors' must be a list of file upload interceptors")
        }
        guard list.count <= FileUploadInterceptor.maximumPerAccount, Set(list.map(\.id)).count == list.count else {
            throw .badRequest("'globalFileUploadInterceptors' holds more than \(FileUploadInterceptor.maximumPerAccount) or an id twice")
        }
        var interceptors: [String: FileUploadInterceptor] = [:]
        for var interceptor in list {
            if interceptor.secret.isEmpty { interceptor.secret = context.ids.makeSecret() }
            interceptors[interceptor.id] = interceptor
        }
        return interceptors
    }

    /// The licence `global/installLicense` or `removeLicense` left, if the snapshot names one.
    private func headerGlobalLicense() throws(CollabError) -> GlobalLicense? {
        guard header["globalLicense"] != nil else { return nil }
        let object = headerObject("globalLicense") as? [String: String]
        if let licenseId = object?["licenseId"], object?.count == 1, !licenseId.isEmpty, Limits.fits(licenseId, Limits.nameLength) {
            return .installed(licenseId: licenseId)
        }
        guard object == ["state": "NO_LICENSE"] else {
            throw .badRequest("'globalLicense' must be {\"licenseId\": \"…\"} or {\"state\": \"NO_LICENSE\"}")
        }
        return .removed
    }

    /// Version 0's flat list, grouped by account: the account records name the accounts, in order.
    private mutating func flatAccounts() throws(CollabError) -> [AccountState] {
        var order: [String] = []
        var loaders: [String: AccountState.Loader] = [:]
        for (record, position) in flatRecords where record.kind == .account {
            let account: Account
            do { account = try RecordCoding.decode(Account.self, from: record) } catch {
                throw .badRequest("records[\(position)] of the version-0 snapshot is not an account record")
            }
            if loaders[account.id] == nil {
                order.append(account.id)
                recordCount += 1
            }
            loaders[account.id] = AccountState.Loader(account: account, directory: Directory())
        }
        for (record, position) in flatRecords where record.kind != .account && record.kind != .globalConfiguration {
            guard let accountId = record.accountId, var loader = loaders.removeValue(forKey: accountId) else {
                throw .badRequest("records[\(position)] of the version-0 snapshot belongs to an account it does not hold")
            }
            defer { loaders[accountId] = loader }
            do { try loader.add(record) } catch {
                throw .badRequest("records[\(position)] of the version-0 snapshot does not decode: \(error)")
            }
            recordCount += 1
        }
        if header["globalConfiguration"] == nil, let global = flatRecords.first(where: { $0.record.kind == .globalConfiguration }) {
            header["globalConfiguration"] = (try? JSONSerialization.jsonObject(with: global.record.body) as? [String: Any])?["properties"]
                .flatMap { try? JSONSerialization.data(withJSONObject: $0) }.map { Array($0) }
        }
        flatRecords = []
        return order.compactMap { loaders.removeValue(forKey: $0)?.finish() }
    }

    /// `accounts[i].account`: the shard starts, and the records that came before it go in.
    private mutating func accountRecord(_ bytes: [UInt8]) throws(CollabError) {
        let index = accounts.count - 1
        guard accounts[index].loader == nil else { throw .badRequest("accounts[\(index)] names its 'account' twice") }
        let account: Account
        do { account = try JSONDecoder().decode(Account.self, from: Data(bytes)) } catch {
            throw .badRequest("accounts[\(index)].account is not an account record")
        }
        accounts[index].loader = AccountState.Loader(account: account, directory: Directory())
        recordCount += 1
        let early = accounts[index].early
        accounts[index].early = []
        for record in early { try load(record, into: index) }
        for file in accounts[index].earlyFiles { output.append(FileItem(account: index, accountId: account.id, content: file)) }
        accounts[index].earlyFiles = []
    }

    /// `accounts[i].records[j]`: decoded into the shard at once.
    private mutating func accountEntry(_ path: [Step]) throws(CollabError) {
        let place = Self.place(path[...])
        guard let kindText = partial.string("kind"), let id = partial.string("id"), let body = partial.fields["body"] else {
            throw .badRequest("\(place) needs 'kind', 'id' and 'body'")
        }
        guard let kind = EntityKind(rawValue: kindText), kind != .account, kind != .globalConfiguration, kind != .virtualClock else {
            throw .badRequest("\(place) has an unknown kind '\(kindText)'")
        }
        let index = accounts.count - 1
        let record = StoredRecord(kind: kind, id: id, accountId: accounts[index].loader?.account.id, body: Data(body))
        partial = PartialObject()
        if accounts[index].loader == nil {
            accounts[index].early.append(record)
        } else {
            try load(record, into: index)
        }
    }

    private mutating func load(_ record: StoredRecord, into index: Int) throws(CollabError) {
        guard var loader = accounts[index].loader else { return }
        accounts[index].loader = nil  // moved out while it changes, so the shard is not copied
        defer { accounts[index].loader = loader }
        let name = loader.account.name
        let owner: String?
        do { owner = try loader.add(record) } catch {
            throw .badRequest("account '\(name)' of the snapshot has a record that does not decode: \(error)")
        }
        guard owner == loader.account.id else {
            throw .badRequest("account '\(name)' of the snapshot holds a \(record.kind.rawValue) '\(record.id)' of another account")
        }
        recordCount += 1
    }

    /// `accounts[i].files[j]`: its contents, handed out to be staged (once its account is known).
    private mutating func fileEntry(_ path: [Step]) throws(CollabError) {
        let place = Self.place(path[...])
        guard let conversationId = partial.string("conversationId"), let id = partial.string("id"), let encoded = partial.fields["content"] else {
            throw .badRequest("\(place) needs 'conversationId', 'id' and 'content'")
        }
        guard let bytes = Self.base64(encoded) else { throw .badRequest("\(place).content is not base64") }
        let index = accounts.count - 1
        guard accounts[index].fileIds.insert(id).inserted else { throw .badRequest("\(place) repeats the file '\(id)'") }
        partial = PartialObject()
        let content = Snapshot.FileContent(conversationId: conversationId, fileId: id, bytes: bytes)
        if let accountId = accounts[index].loader?.account.id {
            output.append(FileItem(account: index, accountId: accountId, content: content))
        } else {
            accounts[index].earlyFiles.append(content)
        }
    }

    /// The bytes of a base64 JSON string (JSON writers may escape its `/` as `\/`).
    private static func base64(_ literal: [UInt8]) -> Data? {
        guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else { return nil }
        var text = Data(literal[1..<(literal.count - 1)])
        if text.contains(UInt8(ascii: "\\")) {
            var unescaped = Data(capacity: text.count)
            var escaped = false
            for byte in text {
                if escaped {
                    guard byte == UInt8(ascii: "/") else { return nil }
                    escaped = false
                    unescaped.append(byte)
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else {
                    unescaped.append(byte)
                }
            }
            text = unescaped
        }
        return Data(base64Encoded: text)
    }

    private static func place(_ path: ArraySlice<Step>) -> String {
        guard case .key(let first) = path.first else { return "the snapshot" }
        return first + path.dropFirst().map(\.description).joined()
    }

    private static func refusal(_ failure: JSONStreamScanner.Failure) -> CollabError {
        guard failure.isWrongKind else { return .badRequest("the snapshot is not valid JSON (at byte \(failure.offset): \(failure.message))") }
        let path = failure.path
        switch (path.count, path.first) {
        case (0, _): return .badRequest("a snapshot is a JSON object")
        case (1, .key("accounts")): return .badRequest("the snapshot has no 'accounts' list")
        case (1, .key("records")): return .badRequest("a version-0 snapshot needs a 'records' list")
        case (2, .key("accounts")): return .badRequest("\(place(path[...])) needs an 'account' object")
        case (3, .key("accounts")) where path[2] == .key("records"): return .badRequest("\(place(path.dropLast()[...])) needs a 'records' list")
        case (3, .key("accounts")): return .badRequest("\(place(path[...])) must be a list")
        case (4, .key("accounts")) where path[2] == .key("records"): return .badRequest("\(place(path[...])) needs 'kind', 'id' and 'body'")
        case (4, .key("accounts")): return .badRequest("\(place(path[...])) needs 'conversationId', 'id' and 'content'")
        default: return .badRequest("\(place(path[...])) is not what a snapshot holds there")
        }
    }
}
