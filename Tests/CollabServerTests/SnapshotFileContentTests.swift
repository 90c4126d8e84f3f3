import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Crypto
import Foundation
import Testing

/// Two accounts whose visitors and agents share files (the "files" account of `fileSeed` and a twin).
private let twoFileAccountsSeed = Seed(accounts: [
    fileSeed.accounts[0],
    .init(
        name: "files-b", configuration: [FileRestrictions.allowedMimeTypesKey: "image/*"], apiKeys: [.init(key: "files-b-key")],
        namedAreas: [.init(siteId: "area-b1", name: "Area B1")],
        users: [.init(username: "agent-b1", password: "pw", role: .registeredUser)]
    ),
])

/// A visitor's conversation with an agent in `account`, for uploads and downloads.
private func fileConversation(
    _ server: TestServer, apiKey: String, area: String, agent username: String, device: String
) async throws -> FileScenario {
    let app = visitor(server, device: device, apiKey: apiKey, namedArea: area)
    try await app.start()
    let agentClient = try await agent(server, username)
    let conversation = try await app.startConversation(topic: "files")
    _ = try await agentClient.accept(conversation.id)
    return FileScenario(app: app, agent: agentClient, conversationId: conversation.id)
}

private func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

private func jsonObject(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite("Snapshots with file contents", .serialized)
struct SnapshotFileContentTests {
    @Test("a server snapshot holds the files' bytes: export, full reset, import, and the download is identical (ETag, Range), also after a restart")
    func serverRoundTrip() async throws {
        let directory = try temporaryDirectory()
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let server = try await TestServer.start(storage: storage, seed: fileSeed)
        let scenario = try await FileScenario.make(server)
        let bytes = pngBytes(40_000, seed: 7)
        let file = try #require(
            try await scenario.app.uploadFile(data: bytes, named: "receipt.png", contentType: "image/png", in: scenario.conversationId).file)

        let snapshot = try await server.control.exportSnapshot()
        let document = try jsonObject(snapshot)
        #expect(document["version"] as? Int == Snapshot.currentVersion)
        let account = try #require(
            (document["accounts"] as? [[String: Any]])?.first { ($0["account"] as? [String: Any])?["name"] as? String == "files" })
        let entry = try #require((account["files"] as? [[String: Any]])?.first)
        #expect(entry["id"] as? String == file.id)
        #expect((entry["content"] as? String).flatMap { Data(base64Encoded: $0) } == bytes)

        try await server.control.reset()
        #expect(server.server.fileBytesStored == 0, "a full reset removes every stored file")
        let result = try await server.control.importSnapshot(snapshot)
        #expect(result.version == Snapshot.currentVersion)
        #expect(server.server.fileBytesStored == Int64(bytes.count))

        // The restored session of the agent is gone with the reset's tokens: log in again.
        let agentAgain = try await agent(server, "agent-a")
        let whole = try await agentAgain.downloadFile(file.id, in: scenario.conversationId)
        #expect(whole.status == 200)
        #expect(whole.data == bytes)
        #expect(whole.etag == "\"\(sha256(bytes))\"")
        let range = try await agentAgain.downloadFile(file.id, in: scenario.conversationId, range: 100...1_099)
        #expect(range.status == 206)
        #expect(range.data == bytes.subdata(in: 100..<1_100))
        #expect(range.contentRange == "bytes 100-1099/\(bytes.count)")

        // The restored bytes were stored durably: the start-up sweep keeps them.
        try await server.stop()
        let reopened = try await TestServer.start(storage: storage, seed: fileSeed)
        let afterRestart = try await agent(reopened, "agent-a").downloadFile(file.id, in: scenario.conversationId)
        #expect(afterRestart.data == bytes)
        try await reopened.stop()
    }

    @Test("a snapshot may restore an empty file: its download is an empty 200")
    func emptyFile() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let file = try #require(
                try await scenario.app.uploadFile(
                    data: pngBytes(2_000, seed: 5), named: "blank.png", contentType: "image/png", in: scenario.conversationId
                ).file)
            // The file's contents and every record naming it (its FILE message) made empty.
            func emptied(_ value: Any) -> Any {
                if var object = value as? [String: Any] {
                    if object["id"] as? String == file.id {
                        if object["sha256"] != nil { (object["sha256"], object["size"]) = (sha256(Data()), 0) }
                        if object["content"] != nil { object["content"] = "" }
                    }
                    return object.mapValues(emptied)
                }
                return (value as? [Any]).map { $0.map(emptied) } ?? value
            }
            let snapshot = emptied(try jsonObject(try await server.control.exportSnapshot(account: "files")))
            try await server.control.importSnapshot(try JSONSerialization.data(withJSONObject: snapshot))
            let download = try await agent(server, "agent-a").downloadFile(file.id, in: scenario.conversationId)
            #expect(download.status == 200)
            #expect(download.data?.isEmpty == true)
            #expect(download.etag == "\"\(sha256(Data()))\"")
        }
    }

    @Test("an account snapshot carries its files to another server: the same bytes and ETag download there")
    func anotherServer() async throws {
        let bytes = pngBytes(12_000, seed: 9)
        let (snapshot, file, conversationId) = try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let file = try #require(
                try await scenario.app.uploadFile(data: bytes, named: "travels.png", contentType: "image/png", in: scenario.conversationId).file)
            return (try await server.control.exportSnapshot(account: "files"), file, scenario.conversationId)
        }
        try await TestServer.with(seed: fileSeed) { fresh in
            // The fresh server's "files" account (another id, same name) is replaced by the snapshot's.
            try await fresh.control.importSnapshot(snapshot)
            let download = try await agent(fresh, "agent-a").downloadFile(file.id, in: conversationId)
            #expect(download.data == bytes)
            #expect(download.etag == "\"\(file.sha256)\"")
            #expect(fresh.server.fileBytesStored == Int64(bytes.count))
        }
    }

    @Test("restoring one account brings back its files' bytes, removes the files uploaded after, and leaves another account's files untouched")
    func accountRestoreLeavesOthers() async throws {
        try await TestServer.with(seed: twoFileAccountsSeed) { server in
            let a = try await FileScenario.make(server)
            let b = try await fileConversation(server, apiKey: "files-b-key", area: "area-b1", agent: "agent-b1", device: "b-phone")
            let a1Bytes = pngBytes(9_000, seed: 1)
            let b1Bytes = pngBytes(8_000, seed: 2)
            let a1 = try #require(try await a.app.uploadFile(data: a1Bytes, named: "a1.png", contentType: "image/png", in: a.conversationId).file)
            let b1 = try #require(try await b.app.uploadFile(data: b1Bytes, named: "b1.png", contentType: "image/png", in: b.conversationId).file)
            let snapshot = try await server.control.exportSnapshot(account: "files")
            let files = try #require(try jsonObject(snapshot)["accounts"] as? [[String: Any]]).first?["files"] as? [[String: Any]]
            #expect(files?.map { $0["id"] as? String } == [a1.id], "an account snapshot holds that account's files only")

            let a2 = try #require(
                try await a.app.uploadFile(data: pngBytes(7_000, seed: 3), named: "a2.png", contentType: "image/png", in: a.conversationId).file)
            let b2Bytes = pngBytes(6_000, seed: 4)
            let b2 = try #require(try await b.app.uploadFile(data: b2Bytes, named: "b2.png", contentType: "image/png", in: b.conversationId).file)
            try await server.control.reset(account: "files")

            try await server.control.importSnapshot(snapshot)
            let agentA = try await agent(server, "agent-a")
            #expect(try await agentA.downloadFile(a1.id, in: a.conversationId).data == a1Bytes)
            await #expect(throws: CollabClientError.self, "the file uploaded after the snapshot is gone") {
                try await agentA.downloadFile(a2.id, in: a.conversationId)
            }
            #expect(try await b.agent.downloadFile(b1.id, in: b.conversationId).data == b1Bytes)
            #expect(try await b.agent.downloadFile(b2.id, in: b.conversationId).data == b2Bytes)
            #expect(
                server.server.fileBytesStored == Int64(a1Bytes.count + b1Bytes.count + b2Bytes.count), "nothing left over counts against the quota")
        }
    }

    @Test(
        """
        file contents at odds with their FILE message, or named by none, are refused with a 400 and change nothing; \
        a version-1 snapshot still imports
        """
    )
    func badFileContents() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let bytes = pngBytes(5_000)
            let file = try #require(
                try await scenario.app.uploadFile(data: bytes, named: "kept.png", contentType: "image/png", in: scenario.conversationId).file)
            let snapshot = try await server.control.exportSnapshot(account: "files")
            let stats = try await server.entityStats()
            let stored = server.server.fileBytesStored

            func altered(_ change: (inout [String: Any]) -> Void) throws -> Data {
                var document = try jsonObject(snapshot)
                var accounts = try #require(document["accounts"] as? [[String: Any]])
                var files = try #require(accounts[0]["files"] as? [[String: Any]])
                change(&files[0])
                accounts[0]["files"] = files
                document["accounts"] = accounts
                return try JSONSerialization.data(withJSONObject: document)
            }
            var tampered = bytes
            tampered[200] ^= 0xFF
            let cases: [(String, Data, String)] = [
                ("other bytes", try altered { $0["content"] = tampered.base64EncodedString() }, "do not match"),
                ("unnamed file", try altered { $0["id"] = "not-a-file" }, "no FILE message"),
                ("not base64", try altered { $0["content"] = "%%%" }, "not base64"),
                ("no content", try altered { $0["content"] = nil }, "needs 'conversationId', 'id' and 'content'"),
            ]
            for (name, body, message) in cases {
                let response = try await server.control.transport.raw("POST", "/_mock/v1/snapshot", body: body)
                #expect(response.status == 400, "\(name)")
                let error = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                #expect((error?["errorMessage"] as? String)?.contains(message) == true, "\(name): \(String(decoding: response.body, as: UTF8.self))")
            }
            #expect(try await server.entityStats() == stats)
            #expect(server.server.fileBytesStored == stored)

            // Version 1 had no `files`: it migrates, and the bytes stored on this server still download.
            var versionOne = try jsonObject(snapshot)
            versionOne["version"] = 1
            versionOne["accounts"] = try #require(versionOne["accounts"] as? [[String: Any]]).map { entry in
                var entry = entry
                entry["files"] = nil
                return entry
            }
            let result = try await server.control.importSnapshot(try JSONSerialization.data(withJSONObject: versionOne))
            #expect(result.version == 1)
            #expect(try await agent(server, "agent-a").downloadFile(file.id, in: scenario.conversationId).data == bytes)
        }
    }

    @Test("an export whose files would pass the snapshot size limit is refused with a 413 naming the limit")
    func exportOverTheLimit() async throws {
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, seed: fileSeed, controlToken: "test-control-token", maxBodySize: 64 * 1024,
            journalCapacity: 100, passwordHashCost: 4
        )
        configuration.maxSnapshotBytes = 64 * 1024
        let server = try await TestServer.start(configuration: configuration)
        let scenario = try await FileScenario.make(server)
        _ = try await scenario.app.uploadFile(data: pngBytes(60_000), named: "big.png", contentType: "image/png", in: scenario.conversationId)
        let response = try await server.control.transport.raw("GET", "/_mock/v1/snapshot", query: [("account", "files")])
        #expect(response.status == 413)
        let error = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(
            (error?["errorMessage"] as? String)?.contains("more than the 65536 bytes a snapshot may have") == true,
            "\(String(decoding: response.body, as: UTF8.self))")
        // The other account, without files, still exports.
        #expect(try await server.control.transport.raw("GET", "/_mock/v1/snapshot", query: [("account", "other")]).status == 200)
        try await server.stop()
    }
}
