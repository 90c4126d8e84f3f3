import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import Testing

@testable import CollabServer

/// A snapshot import stages its files and shows them only once its records commit: a refused import
/// leaves every stored byte as it was (issue 25, item 11). It reads the body as it arrives, so a bad
/// record is refused before the rest is sent (item 14).
@Suite("Snapshot imports: staging and streaming", .serialized)
struct SnapshotStagingTests {
    static let control = "Bearer test-control-token"

    static func sha256(_ bytes: some Sequence<UInt8>) -> String { SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined() }

    /// The same size as `FileRulesTests.png`, other bytes.
    static let otherBytes: [UInt8] = Array(FileRulesTests.png.prefix(8)) + [UInt8](repeating: 0x42, count: FileRulesTests.png.count - 8)

    /// `snapshot` with the stored file's bytes swapped for ``otherBytes`` (its FILE message agreeing) and
    /// `spoil` applied, so the import is refused only after its files were read.
    static func tampered(_ snapshot: Data, fileId: String, spoil: (inout [[String: Any]]) throws -> Void) throws -> Data {
        var document = try #require(try JSONSerialization.jsonObject(with: snapshot) as? [String: Any])
        var accounts = try #require(document["accounts"] as? [[String: Any]])
        let index = try #require(accounts.firstIndex { ($0["account"] as? [String: Any])?["name"] as? String == "files" })
        var files = try #require(accounts[index]["files"] as? [[String: Any]])
        let fileIndex = try #require(files.firstIndex { $0["id"] as? String == fileId })
        files[fileIndex]["content"] = Data(otherBytes).base64EncodedString()
        accounts[index]["files"] = files
        var records = try #require(accounts[index]["records"] as? [[String: Any]])
        for (position, record) in records.enumerated() where record["kind"] as? String == "message" {
            guard var body = record["body"] as? [String: Any], var file = body["file"] as? [String: Any], file["id"] as? String == fileId else {
                continue
            }
            file["sha256"] = sha256(otherBytes)
            body["file"] = file
            records[position]["body"] = body
        }
        accounts[index]["records"] = records
        try spoil(&accounts)
        document["accounts"] = accounts
        return try JSONSerialization.data(withJSONObject: document)
    }

    /// An API key record of the "files" account that holds the "other" account's key.
    static func stolenKey(_ accounts: inout [[String: Any]]) throws {
        let index = try #require(accounts.firstIndex { ($0["account"] as? [String: Any])?["name"] as? String == "files" })
        var records = try #require(accounts[index]["records"] as? [[String: Any]])
        var key = try #require(records.first { $0["kind"] as? String == "declared" && ($0["id"] as? String)?.hasPrefix("ApiKey/") == true })
        var body = try #require(key["body"] as? [String: Any])
        body["id"] = "stolen-key"
        body["apiKey"] = "other-key"
        key["id"] = "ApiKey/stolen-key"
        key["body"] = body
        records.append(key)
        accounts[index]["records"] = records
    }

    static let storages: [String] = ["memory", "sqlite"]

    @Test(
        "a refused import (a key another account holds; a server snapshot giving one key twice) leaves the stored file's bytes and ETag as they were",
        arguments: storages)
    func refusedImportKeepsBytes(storage: String) async throws {
        let directory = try temporaryDirectory()
        try await InProcessServer.with(seed: fileSeed, configure: { configuration in
            if storage == "sqlite" { configuration.storage = .sqlite(path: directory.appendingPathComponent("state.sqlite").path) }
        }) { server in
            let setup = try await FileRulesTests.prepare(server.client)
            let accountSnapshot = try await server.call(.get, "/_mock/v1/snapshot?account=files", authorization: Self.control)
            let serverSnapshot = try await server.call(.get, "/_mock/v1/snapshot", authorization: Self.control)
            let stats = try server.stats()
            let cases: [(String, Data, HTTPResponse.Status)] = [
                (
                    "account snapshot, key taken", try Self.tampered(Data(buffer: accountSnapshot.body), fileId: setup.fileId, spoil: Self.stolenKey),
                    .conflict
                ),
                (
                    "server snapshot, key twice", try Self.tampered(Data(buffer: serverSnapshot.body), fileId: setup.fileId, spoil: Self.stolenKey),
                    .badRequest
                ),
            ]
            for (name, body, status) in cases {
                let answer = try await server.call(
                    .post, "/_mock/v1/snapshot", authorization: Self.control, body: String(decoding: body, as: UTF8.self))
                #expect(answer.status == status, "\(name): \(answer.text)")
                let download = try await server.client.execute(
                    uri: "/agent/v1/conversations/\(setup.conversationId)/files/\(setup.fileId)", method: .get,
                    headers: [.authorization: "Bearer \(setup.agentToken)"]
                )
                #expect(Array(download.body.readableBytesView) == FileRulesTests.png, "\(name): the stored bytes are the uploaded ones")
                #expect(download.headers[.eTag] == "\"\(Self.sha256(FileRulesTests.png))\"", "\(name)")
                #expect(try server.stats() == stats, "\(name) changed the state")
                #expect(server.server.fileBytesStored == Int64(FileRulesTests.png.count), "\(name)")
            }
        }
    }

    @Test("a record that does not decode is refused while the rest of the body is still on its way (the import reads as it receives)")
    func refusedBeforeTheBodyEnds() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let stats = try await server.entityStats()
            let start = #"{"accounts":[{"records":[{"kind":"no-such-kind","id":"r1","body":{}}"#
            let head = [
                "POST /_mock/v1/snapshot HTTP/1.1", "Host: 127.0.0.1", "Authorization: \(Self.control)", "Content-Type: application/json",
                "Content-Length: \(32 << 20)",
            ]
            // Only the start of a 32 MiB body is sent: the answer must not wait for the rest.
            let exchange = await RawHTTPExchange.exchange(head.joined(separator: "\r\n") + "\r\n\r\n" + start, port: server.port)
            #expect(exchange.head.hasPrefix("HTTP/1.1 400"), "\(exchange.text)")
            #expect(exchange.text.contains("no-such-kind"))
            #expect(try await server.entityStats() == stats)
        }
    }

    @Test("a crash between an import's commit and its renames is finished at the next start: staged files the FILE messages name go into place")
    func interruptedImportFinishedAtStart() async throws {
        let directory = try temporaryDirectory()
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let filesRoot = directory.appendingPathComponent("files")
        let first = try await TestServer.start(configuration: fileConfiguration(storage: storage))
        let kept: FileView
        let conversationId: String
        do {
            let scenario = try await FileScenario.make(first)
            kept = try #require(try await scenario.app.uploadFile(data: pngBytes(900), named: "kept.png", in: scenario.conversationId).file)
            conversationId = scenario.conversationId
            try await first.stop()
        } catch {
            try? await first.stop()
            throw error
        }
        // What a crash after the records committed and before the renames leaves: the file only staged, and
        // beside it a staged file no FILE message names with those bytes.
        let stored = try #require(storedFiles(filesRoot).first)
        let staged = filesRoot.appendingPathComponent(".staging/import-crashed").appendingPathComponent(stored)
        try FileManager.default.createDirectory(at: staged.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: filesRoot.appendingPathComponent(stored), to: staged)
        try Data("not the bytes its message names".utf8).write(to: staged.deletingLastPathComponent().appendingPathComponent("stray"))

        let second = try await TestServer.start(configuration: fileConfiguration(storage: storage))
        do {
            #expect(storedFiles(filesRoot) == [stored], "the staged file is in place, the staging area gone")
            #expect(second.server.fileBytesStored == 900)
            let download = try await agent(second, "agent-a").downloadFile(kept.id, in: conversationId)
            #expect(download.data == pngBytes(900))
            try await second.stop()
        } catch {
            try? await second.stop()
            throw error
        }
    }
}
