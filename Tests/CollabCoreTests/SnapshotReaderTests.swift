import CollabCore
import CollabWire
import Foundation
import Testing

/// The snapshot reader takes a file in pieces of any size (issue 25, item 14) and refuses what is not a
/// snapshot with the place that is wrong.
@Suite("Snapshot reader")
struct SnapshotReaderTests {
    let context = OperationContext(now: 1_000, ids: .system)

    /// Account "a" of a seed, as an account snapshot file.
    func accountSnapshot() throws -> (AccountState, [UInt8]) {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(
            seed: Seed(accounts: [
                .init(
                    name: "a", apiKeys: [.init(key: "a-key")], namedAreas: [.init(siteId: "a-area")],
                    users: [.init(username: "a-admin", role: .admin), .init(username: "a-agent", role: .registeredUser)],
                    persons: [.init(sourceId: "crm-1", personType: .visitor, firstName: "Vera \"the visitor\" \\ ü")]
                )
            ]),
            passwordHashes: [:], context: context, changes: &changes
        )
        let state = try #require(shards.state(named: "a"))
        let records = state.storedEntities.dropFirst().map { StoredRecord(encoding: $0) }
        let snapshot = Snapshot(
            scope: .account, takenAt: 5, clock: nil, globalConfiguration: nil, accounts: [.init(account: state.account, records: records)])
        return (state, Array(try snapshot.encoded()))
    }

    /// Reads `bytes` in pieces of `size`.
    func read(_ bytes: [UInt8], pieces size: Int) throws -> SnapshotReader.Prepared {
        var reader = SnapshotReader()
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + size, bytes.count)
            let files = try bytes[offset..<end].withUnsafeBytes { piece in try reader.read(piece) }
            #expect(files.isEmpty)
            offset = end
        }
        return try reader.finish(context: context)
    }

    static func entities(_ state: AccountState) -> [String] {
        state.storedEntities.map { "\(type(of: $0).kind.rawValue)/\($0.id)" }
    }

    @Test("a snapshot read in pieces of any size builds the same shard as read whole", arguments: [1, 2, 7, 64, 4096, Int.max])
    func pieces(size: Int) throws {
        let (state, bytes) = try accountSnapshot()
        let prepared = try read(bytes, pieces: size)
        #expect(prepared.scope == .account)
        #expect(prepared.takenAt == 5)
        #expect(prepared.records == state.storedEntities.count)
        let restored = try #require(prepared.accounts.first)
        #expect(Self.entities(restored) == Self.entities(state))
        #expect(
            restored.persons.values.first { $0.sourceId == "crm-1" }?.firstName == "Vera \"the visitor\" \\ ü",
            "escaped strings come back as they were")
    }

    @Test("the GLOBAL level's licence, installed or removed, comes back from a server snapshot", arguments: [
        GlobalLicense.installed(licenseId: "license-0123456789abcdef"), .removed,
    ])
    func globalLicense(license: GlobalLicense) throws {
        let (state, _) = try accountSnapshot()
        let global = GlobalConfiguration(properties: ["k": "v"], license: license)
        let records = state.storedEntities.dropFirst().map { StoredRecord(encoding: $0) }
        let snapshot = Snapshot(
            scope: .server, takenAt: 5, clock: nil, globalConfiguration: global, accounts: [.init(account: state.account, records: records)]
        )
        let prepared = try read(Array(try snapshot.encoded()), pieces: Int.max)
        #expect(prepared.globalConfiguration == global)
    }

    @Test("what is not a snapshot is refused with the place that is wrong", arguments: [
        (#"[1]"#, "a snapshot is a JSON object"),
        (#"{"accounts": 5, "version": 3}"#, "no 'accounts' list"),
        (#"{"accounts": [5]}"#, "accounts[0] needs an 'account' object"),
        (#"{"accounts": [{"records": [{"kind": "nonsense", "id": "1", "body": {}}]}]}"#, "accounts[0].records[0] has an unknown kind 'nonsense'"),
        (#"{"accounts": [{"records": [{"kind": "user", "body": {}}]}]}"#, "accounts[0].records[0] needs 'kind', 'id' and 'body'"),
        (#"{"accounts": [{"records": {}}]}"#, "accounts[0] needs a 'records' list"),
        (#"{"accounts": [{"files": [{"id": "f", "conversationId": "c", "content": "%%%"}]}]}"#, "accounts[0].files[0].content is not base64"),
        (#"{"accounts": []"#, "not valid JSON"),
        (#"{"accounts": []} extra"#, "not valid JSON"),
        (#"{"x": {"a": [1, 2}}"#, "not valid JSON"),
        (#"{"x": [tru]}"#, "not valid JSON"),
        (#"{"x" 1}"#, "not valid JSON"),
        (#"{"version": 9, "accounts": []}"#, "newer than this server"),
        (#"{"version": 3, "format": "other", "accounts": []}"#, "'format' is not 'mock-collab-snapshot'"),
        (#"{"version": 3, "format": "mock-collab-snapshot", "scope": "server", "accounts": []}"#, "'secrets' must be 'included' or 'redacted'"),
        (#"{"version": 3, "version": 3}"#, "names 'version' twice"),
        (#"{"version": 0}"#, "a version-0 snapshot needs a 'records' list"),
        (
            #"{"version": 3, "format": "mock-collab-snapshot", "scope": "server", "secrets": "included", "globalConfiguration": {}, "#
                + #""globalLicense": {"state": "ACTIVE"}, "accounts": []}"#, "'globalLicense' must be"
        ),
    ])
    func refusals(document: String, message: String) {
        let error = #expect(throws: CollabError.self) { _ = try read(Array(document.utf8), pieces: 3) }
        #expect(error?.kind == .badRequest)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    /// Account "a" with `extra` records added, as an account snapshot file.
    func accountSnapshot(adding extra: (AccountState) -> [StoredRecord]) throws -> [UInt8] {
        let (state, _) = try accountSnapshot()
        let records = state.storedEntities.dropFirst().map { StoredRecord(encoding: $0) } + extra(state)
        let account = Snapshot.AccountData(account: state.account, records: records)
        return Array(try Snapshot(scope: .account, takenAt: 5, clock: nil, globalConfiguration: nil, accounts: [account]).encoded())
    }

    static func devices(_ count: Int, of state: AccountState) -> [StoredRecord] {
        let person = state.persons.values.first { $0.sourceId == "crm-1" }!
        return (0..<count).map { index in
            StoredRecord(
                encoding: Device(
                    id: "device-\(index)", accountId: state.accountId, personId: person.id, deviceId: "device-\(index)",
                    device: DeviceInfo(os: "iOS", appId: "com.example.app"), version: .notEncrypted, apnsEnvironment: "sandbox", registeredAt: 0))
        }
    }

    @Test("a snapshot holding more than the server lets an account build is refused, naming the account, the owner and the bound")
    func bounds() throws {
        let (state, _) = try accountSnapshot()
        // At a cap it imports; one past it is refused, whatever the order of the records.
        let atCap = try accountSnapshot { Self.devices(DeviceLimits.perPerson, of: $0) }
        #expect(try read(atCap, pieces: Int.max).accounts.first?.devices.count == DeviceLimits.perPerson)
        var owner = ""
        let pastCap = try accountSnapshot { state in
            owner = state.persons.values.first { $0.sourceId == "crm-1" }?.id ?? ""
            return Self.devices(DeviceLimits.perPerson + 1, of: state).reversed()
        }
        let devices = #expect(throws: CollabError.self) { _ = try read(pastCap, pieces: 100) }
        #expect(devices?.kind == .badRequest)
        #expect(devices?.message == "accounts[0] ('a') has a person \(owner) with devices: 33, more than 32", "\(devices?.message ?? "")")

        // The account's budgets are this server's, named by the option that sets them.
        var reader = SnapshotReader()
        _ = try atCap.withUnsafeBytes { try reader.read($0) }
        let small = OperationContext(now: 1_000, ids: .system, limits: StoredRecordLimits(personsPerAccount: state.persons.count - 1))
        let persons = #expect(throws: CollabError.self) { _ = try reader.finish(context: small) }
        #expect(persons?.message.contains("holds persons: \(state.persons.count), more than \(state.persons.count - 1)") == true)
        #expect(persons?.message.contains("(--max-persons-per-account)") == true)
    }

    @Test("keys may be escaped, unknown keys and values are walked over, older versions read without what they lacked")
    func leniency() throws {
        let document =
            #"{"acc\u006funts": [], "format": "mock-collab-snapshot", "version": 2, "scope": "server", "#
            + #""later": {"a": [1, "]", {"b": null}], "c": -1.5e3}}"#
        let prepared = try read(Array(document.utf8), pieces: 5)
        #expect(prepared.accounts.isEmpty)
        #expect(prepared.secrets == .included, "version 2 held every secret")
        #expect(prepared.sourceVersion == 2)
    }
}
