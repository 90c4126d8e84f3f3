import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// What the Web API answers to a fixed set of reads, as raw bodies, so two states can be compared.
private func webReads(
    _ server: some ServerUnderTest, username: String = "admin-d", password: String = "pw", conversationId: String? = nil
) async throws -> [String: String] {
    let admin = server.admin(username, password).transport
    var reads: [(String, String, Data?)] = [
        ("GET", "/app/rest/v4/accounts/getCurrentAccount", nil),
        ("POST", "/app/rest/v4/users/search", Data("{}".utf8)),
        ("POST", "/app/rest/v4/apikeys/search", Data("{}".utf8)),
        ("POST", "/app/rest/v4/namedareas/search", Data("{}".utf8)),
        ("POST", "/app/rest/v4/persons/search", Data("{}".utf8)),
    ]
    if let conversationId { reads.append(("GET", "/app/rest/v4/conversations/\(conversationId)/read", nil)) }
    var answers: [String: String] = [:]
    for (method, path, body) in reads {
        let response = try await admin.raw(method, path, body: body)
        answers[path] = "\(response.status) \(try sortedJSON(response.body))"
    }
    return answers
}

/// JSON text with sorted keys (the Web API's key order is not stable), without the given top-level keys.
private func sortedJSON(_ data: Data, without removed: [String] = []) throws -> String {
    var object = try JSONSerialization.jsonObject(with: data)
    if var dictionary = object as? [String: Any] {
        for key in removed { dictionary[key] = nil }
        object = dictionary
    }
    return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

@Suite("Snapshots", .serialized)
struct SnapshotTests {
    @Test("export, reset, import: identical Web API reads, and pushes decrypt with the keys the device kept")
    func roundTrip() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let scenario = try await PushScenario.make(server, device: "snap-phone", version: .encrypted)
            let keys = try scenario.notifications.storage.load()
            let before = try await webReads(server, conversationId: scenario.conversationId)
            let stats = try await server.entityStats()
            let snapshot = try await server.control.exportSnapshot()
            let document = try #require(try JSONSerialization.jsonObject(with: snapshot) as? [String: Any])
            #expect(document["version"] as? Int == Snapshot.currentVersion)
            #expect(document["scope"] as? String == "server")

            try await server.control.reset()
            #expect(try await webReads(server, conversationId: scenario.conversationId) != before, "the reset changed what the Web API reads")

            let result = try await server.control.importSnapshot(snapshot)
            #expect(result.scope == "server")
            #expect(Set(result.accounts) == ["desk", "other"])
            #expect(try await webReads(server, conversationId: scenario.conversationId) == before)
            #expect(try await server.entityStats() == stats)
            #expect(
                try sortedJSON(try await server.control.exportSnapshot(), without: ["takenAt", "clock"])
                    == sortedJSON(snapshot, without: ["takenAt", "clock"]),
                "exporting the restored state gives the same records"
            )

            // The restored device keys encrypt the next push; the keys the app kept open it.
            _ = try await scenario.agent.send("after the restore", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE")])
            let userInfo = try #require(try JSONSerialization.jsonObject(with: Data(push.payload.utf8)) as? [String: Any])
            #expect(try NotificationAPI.content(of: userInfo, keys: keys).text == "after the restore")
        }
    }

    @Test("a server snapshot carries the installed licence; a reset forgets it")
    func licence() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            func license() async throws -> [String: Any]? {
                try await server.json(.get, "global/read", as: "root", password: "root").object["currentLicense"] as? [String: Any]
            }
            #expect(try await server.json(.post, "global/installLicense", as: "root", password: "root", body: "LICENSE-B").status == 200)
            let installed = try #require(try await license()?["licenseId"] as? String)
            #expect(installed != "mock-collab")
            let snapshot = try await server.control.exportSnapshot()
            try await server.control.reset()
            #expect(try await license()?["licenseId"] as? String == "mock-collab", "the reset forgot the installed licence")
            _ = try await server.control.importSnapshot(snapshot)
            #expect(try await license()?["licenseId"] as? String == installed)
        }
    }

    @Test("an account snapshot restores that account only; the other account's changes stay; admins export their own only")
    func accountOnly() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alphaAdmin = server.admin("alpha-admin", "pw-a")
            let betaAdmin = server.admin("beta-admin", "pw-b")
            let alphaReads = try await webReads(server, username: "alpha-admin", password: "pw-a")
            let alphaStats = try await server.entityStats(account: "alpha")
            let alphaControl = ControlClient(baseURL: server.baseURL, credentials: .basic(username: "alpha-admin", password: "pw-a"))
            // The control token's export holds the credentials, so the restored users log in again; an admin's
            // own export leaves them out (SecretExposureTests).
            let snapshot = try await server.control.exportSnapshot(account: "alpha")
            let redacted = try JSONSerialization.jsonObject(with: try await alphaControl.exportSnapshot(account: "alpha")) as? [String: Any]
            #expect(redacted?["secrets"] as? String == "redacted")
            let betaSnapshot = try await server.control.exportSnapshot(account: "beta")

            // Both accounts change after the snapshot.
            _ = try await alphaAdmin.namedAreas.create(WebNamedArea(name: "Later", siteId: "alpha-later"))
            _ = try await betaAdmin.namedAreas.create(WebNamedArea(name: "Meanwhile", siteId: "beta-meanwhile"))
            let betaReads = try await webReads(server, username: "beta-admin", password: "pw-b")
            let betaStats = try await server.entityStats(account: "beta")

            // Importing changes state: super admins and the control token only.
            #expect(try await alphaControl.transport.raw("POST", "/_mock/v1/snapshot", body: snapshot).status == 403)
            let result = try await server.control.importSnapshot(snapshot)
            #expect(result.scope == "account")
            #expect(try await webReads(server, username: "alpha-admin", password: "pw-a") == alphaReads, "alpha is back where it was")
            #expect(try await server.entityStats(account: "alpha") == alphaStats)
            #expect(try await webReads(server, username: "beta-admin", password: "pw-b") == betaReads, "beta keeps its change")
            #expect(try await server.entityStats(account: "beta") == betaStats)

            // An admin does not export another account.
            await #expect(throws: CollabClientError.self) { try await alphaControl.exportSnapshot(account: "beta") }
            let own = try JSONSerialization.jsonObject(with: try await alphaControl.exportSnapshot()) as? [String: Any]
            #expect(own?["scope"] as? String == "account", "without an account, an admin exports their own")
            #expect(try await alphaControl.transport.raw("POST", "/_mock/v1/snapshot", body: betaSnapshot).status == 403)
            #expect(try await server.entityStats(account: "beta") == betaStats)

            // After a reset of alpha (new ids), its snapshot still restores it.
            try await server.control.reset(account: "alpha")
            try await server.control.importSnapshot(snapshot)
            #expect(try await webReads(server, username: "alpha-admin", password: "pw-a") == alphaReads)
        }
    }

    @Test("a newer version, malformed JSON or a snapshot at odds with another account is refused with a typed 4xx and changes nothing")
    func badInput() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let snapshot = try await server.control.exportSnapshot(account: "alpha")
            let stats = try await server.entityStats()
            var newer = try #require(try JSONSerialization.jsonObject(with: snapshot) as? [String: Any])
            newer["version"] = Snapshot.currentVersion + 1
            var taken = try #require(try JSONSerialization.jsonObject(with: snapshot) as? [String: Any])
            // Alpha under beta's name: the names, users and keys collide with beta's.
            var accounts = try #require(taken["accounts"] as? [[String: Any]])
            var account = try #require(accounts[0]["account"] as? [String: Any])
            account["id"] = "someone-else"
            accounts[0]["account"] = account
            taken["accounts"] = accounts
            // Clocks that would overflow the server's time arithmetic on every tick, and after a restart.
            func clocked(_ clock: [String: Any]) throws -> Data {
                var clocked = try #require(try JSONSerialization.jsonObject(with: snapshot) as? [String: Any])
                clocked["clock"] = clock
                return try JSONSerialization.data(withJSONObject: clocked)
            }
            let cases: [(String, Data, Int, String)] = [
                ("clock offset", try clocked(["now": 0, "offset": Int64.max, "frozen": false]), 400, "clock"),
                ("clock offset below", try clocked(["now": 0, "offset": Int64.min, "frozen": false]), 400, "clock"),
                ("frozen before 1970", try clocked(["now": Int64.min, "offset": 0, "frozen": true]), 400, "clock"),
                ("newer", try JSONSerialization.data(withJSONObject: newer), 400, "newer than this server"),
                ("not JSON", Data("{\"version\": 1, ".utf8), 400, "not valid JSON"),
                ("no accounts", Data(#"{"format":"mock-collab-snapshot","version":1,"scope":"account"}"#.utf8), 400, "accounts"),
                ("foreign record", try JSONSerialization.data(withJSONObject: taken), 400, "another account"),
            ]
            for (name, body, status, message) in cases {
                let response = try await server.control.transport.raw("POST", "/_mock/v1/snapshot", body: body)
                #expect(response.status == status, "\(name)")
                let error = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                #expect((error?["errorMessage"] as? String)?.contains(message) == true, "\(name): \(String(decoding: response.body, as: UTF8.self))")
            }
            #expect(try await server.entityStats() == stats)
        }
    }

    @Test("an account snapshot whose usernames another account holds is a conflict; an imported account survives a restart")
    func conflictAndDurability() async throws {
        let directory = try temporaryDirectory()
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let reads = try await InProcessServer.with(storage: storage, seed: twoAccountSeed) { server in
            let snapshot = try await server.control.exportSnapshot(account: "alpha")
            // The same account under a new id and name: its usernames and API key are alpha's.
            let account = try await server.admin("alpha-admin", "pw-a").accounts.current()
            let text = String(decoding: snapshot, as: UTF8.self).replacingOccurrences(of: account.id!, with: "gamma-id")
                .replacingOccurrences(of: "\"name\" : \"alpha\"", with: "\"name\" : \"gamma\"")
            let conflict = try await server.control.transport.raw("POST", "/_mock/v1/snapshot", body: Data(text.utf8))
            #expect(conflict.status == 409, "\(String(decoding: conflict.body, as: UTF8.self))")

            _ = try await server.admin("alpha-admin", "pw-a").namedAreas.create(WebNamedArea(name: "Later", siteId: "alpha-later"))
            try await server.control.importSnapshot(snapshot)
            return try await webReads(server, username: "alpha-admin", password: "pw-a")
        }
        try await InProcessServer.with(storage: storage, seed: twoAccountSeed) { reopened in
            let again = try await webReads(reopened, username: "alpha-admin", password: "pw-a")
            #expect(again == reads)
        }
    }

    @Test("a snapshot over the size limit is a 413 and changes nothing")
    func oversized() async throws {
        try await InProcessServer.with(seed: twoAccountSeed, journalCapacity: 100, configure: { $0.maxSnapshotBytes = 8 * 1024 }) { server in
            let stats = try await server.entityStats()
            var snapshot = try await server.control.exportSnapshot()
            #expect(snapshot.count > 8 * 1024, "the seeded state's snapshot is over the limit")
            snapshot.append(contentsOf: Data(repeating: 0x20, count: 1024))
            let response = try await server.control.transport.raw("POST", "/_mock/v1/snapshot", body: snapshot)
            #expect(response.status == 413)
            #expect(try await server.entityStats() == stats)
        }
    }

    @Test("a snapshot holding more than this server lets an account build is a 400 naming the option, and changes nothing")
    func beyondBudgets() async throws {
        let snapshot = try await InProcessServer.with(seed: twoAccountSeed) { try await $0.control.exportSnapshot() }
        // Alpha holds six persons, beta three; this server's own account one.
        let small = Seed(accounts: [.init(name: "solo", users: [.init(username: "solo", password: "pw", role: .admin)])])
        try await InProcessServer.with(seed: small, configure: { $0.storedRecordLimits = StoredRecordLimits(personsPerAccount: 3) }) { server in
            let stats = try await server.entityStats()
            let response = try await server.control.transport.raw("POST", "/_mock/v1/snapshot", body: snapshot)
            #expect(response.status == 400)
            let error = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            let message = error?["errorMessage"] as? String
            #expect(message?.contains("('alpha') holds persons: 6, more than 3 (--max-persons-per-account)") == true, "\(message ?? "")")
            #expect(try await server.entityStats() == stats)
        }
    }

    @Test("FILE messages are in an account snapshot; restored on the same server, their stored bytes still download")
    func fileMessages() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let bytes = pngBytes(5_000)
            let kept = try #require(
                try await scenario.app.uploadFile(data: bytes, named: "kept.png", contentType: "image/png", in: scenario.conversationId).file)
            let snapshot = try await server.control.exportSnapshot(account: "files")
            let later = try #require(
                try await scenario.app.uploadFile(
                    data: pngBytes(3_000, seed: 2), named: "later.png", contentType: "image/png", in: scenario.conversationId
                ).file)

            try await server.control.importSnapshot(snapshot)
            let files = try await scenario.app.files(in: scenario.conversationId).map(\.file)
            #expect(files == [kept], "the file uploaded after the snapshot is gone with its message")
            let download = try await scenario.agent.downloadFile(kept.id, in: scenario.conversationId)
            #expect(download.status == 200)
            #expect(download.data == bytes)
            await #expect(throws: CollabClientError.self) { try await scenario.agent.downloadFile(later.id, in: scenario.conversationId) }
        }
    }

    @Test("a version-0 snapshot (one flat list of records) is migrated and restores the same state")
    func migratesVersionZero() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let reads = try await webReads(server, username: "alpha-admin", password: "pw-a")
            let current = try #require(
                try JSONSerialization.jsonObject(with: try await server.control.exportSnapshot(account: "alpha")) as? [String: Any])
            let entry = try #require((current["accounts"] as? [[String: Any]])?.first)
            let account = try #require(entry["account"] as? [String: Any])
            let accountId = try #require(account["id"] as? String)
            var records: [[String: Any]] = [["kind": "account", "id": accountId, "accountId": accountId, "body": account]]
            for record in try #require(entry["records"] as? [[String: Any]]) {
                var flat = record
                flat["accountId"] = accountId
                records.append(flat)
            }
            let versionZero = try JSONSerialization.data(withJSONObject: ["version": 0, "clock": current["clock"] as Any, "records": records])
            _ = try await server.admin("alpha-admin", "pw-a").namedAreas.create(WebNamedArea(name: "Later", siteId: "alpha-later"))
            let result = try await server.control.importSnapshot(versionZero)
            #expect(result.version == 0)
            #expect(result.scope == "account")
            #expect(try await webReads(server, username: "alpha-admin", password: "pw-a") == reads)
        }
    }

    @Test("serve --snapshot-on-exit writes the state on SIGTERM; serve --restore starts from it, before the seed")
    func restoreAtStart() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("snapshot.json").path
        let first = try await ServerProcess(arguments: ["--storage", "memory", "--snapshot-on-exit", file])
        let admin = AdminClient(baseURL: first.baseURL, credentials: .basic(username: "admin", password: "admin"))
        let area = try await admin.namedAreas.create(WebNamedArea(name: "Prepared", siteId: "prepared"))
        first.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)
        #expect(FileManager.default.fileExists(atPath: file))

        let second = try await ServerProcess(arguments: ["--storage", "memory", "--restore", file])
        let restored = AdminClient(baseURL: second.baseURL, credentials: .basic(username: "admin", password: "admin"))
        #expect(try await restored.namedAreas.read(try #require(area.id)).siteId == "prepared")
        #expect(try await restored.apiKeys.search().items?.count == 1, "the default tenant was not seeded again on top")
        second.signal(SIGTERM)
        #expect(try await second.waitForExit() == 0)

        // A snapshot from a newer server is refused at start with a clear message.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        document["version"] = Snapshot.currentVersion + 1
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: file))
        do {
            let started = try await ServerProcess(arguments: ["--storage", "memory", "--restore", file])
            Issue.record("a newer snapshot must not start a server")
            started.signal(SIGKILL)
        } catch ServerProcessError.exited(let standardError) {
            #expect(standardError.contains("newer than this server understands"), "\(standardError)")
        }
    }
}
