import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Foundation
import Testing

/// A configuration with `fileSeed`, SQLite storage in `directory` and the given file settings.
func fileConfiguration(storage: StorageLocation, files: FileSettings = FileSettings()) -> ServerConfiguration {
    var configuration = ServerConfiguration(
        host: "127.0.0.1", port: 0, storage: storage, seed: fileSeed, controlToken: "test-control-token", maxBodySize: 64 * 1024,
        passwordHashCost: 4, clientIdleTimeout: 365 * 24 * 3600 * 1000
    )
    configuration.files = files
    return configuration
}

/// Waits until `condition` holds (a barrier for work the server finishes after answering).
func eventually(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimeout(what: what) }
        try await Task.sleep(for: .milliseconds(20))
    }
}

struct WaitTimeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// The regular files below `directory`, relative paths.
func storedFiles(_ directory: URL) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
    return walker.compactMap { $0 as? String }.filter { path in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }.sorted()
}

@Suite("File storage", .serialized)
struct FileStorageTests {
    @Test("files live beside the SQLite file by id, count against the quota (507 beyond it, nothing left), and go with their conversation")
    func diskQuotaAndConversationDelete() async throws {
        let directory = try temporaryDirectory()
        let server = try await TestServer.start(
            configuration: fileConfiguration(
                storage: .sqlite(path: directory.appendingPathComponent("state.sqlite").path),
                files: FileSettings(quota: 10_000, accountQuota: 10_000))
        )
        do {
            let scenario = try await FileScenario.make(server)
            let file = try #require(try await scenario.app.uploadFile(data: pngBytes(6000), named: "one.png", in: scenario.conversationId).file)
            let filesRoot = directory.appendingPathComponent("files")
            #expect(storedFiles(filesRoot).count == 1)
            #expect(storedFiles(filesRoot).first?.hasSuffix("/\(scenario.conversationId)/\(file.id)") == true)
            #expect(server.server.fileBytesStored == 6000)

            let error = await #expect(throws: CollabClientError.self) {
                try await scenario.app.uploadFile(data: pngBytes(6000, seed: 2), named: "two.png", in: scenario.conversationId)
            }
            #expect(error?.status == 507)
            #expect(error.flatMap(refusalType) == "FILE_QUOTA_EXCEEDED")
            #expect(storedFiles(filesRoot).count == 1, "a refused upload leaves nothing behind, not even in staging")
            #expect(server.server.fileBytesStored == 6000)
            #expect(try await scenario.app.files(in: scenario.conversationId).count == 1)

            _ = try await scenario.agent.end(scenario.conversationId)
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            #expect(try await admin.raw("DELETE", "/app/rest/v4/conversations/\(scenario.conversationId)/delete").status == 204)
            try await eventually("the conversation's files to go") { storedFiles(filesRoot).isEmpty && server.server.fileBytesStored == 0 }
            // The quota is free again.
            let next = try await FileScenario.make(server, device: "second-phone")
            _ = try await next.app.uploadFile(data: pngBytes(9000), named: "three.png", in: next.conversationId)
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("resetting an account removes its files; a restart keeps acknowledged files and sweeps orphans and staging leftovers")
    func resetAndRestart() async throws {
        let directory = try temporaryDirectory()
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let filesRoot = directory.appendingPathComponent("files")
        let first = try await TestServer.start(configuration: fileConfiguration(storage: storage))
        let kept: FileView
        let conversationId: String
        do {
            let doomed = try await FileScenario.make(first, device: "doomed")
            _ = try await doomed.app.uploadFile(data: pngBytes(500), named: "doomed.png", in: doomed.conversationId)
            let control = ControlClient(baseURL: first.baseURL, credentials: .bearer("test-control-token"))
            _ = try await control.reset(account: "files")
            #expect(storedFiles(filesRoot).isEmpty)
            #expect(first.server.fileBytesStored == 0)

            let scenario = try await FileScenario.make(first, device: "keeper")
            kept = try #require(try await scenario.app.uploadFile(data: pngBytes(700), named: "kept.png", in: scenario.conversationId).file)
            conversationId = scenario.conversationId
            try await first.stop()
        } catch {
            try? await first.stop()
            throw error
        }
        // What a crash between storing a file and committing its message, or mid-upload, leaves.
        let conversationDirectory = try #require(
            storedFiles(filesRoot).first.map { filesRoot.appendingPathComponent($0).deletingLastPathComponent() })
        try Data("orphan".utf8).write(to: conversationDirectory.appendingPathComponent("orphanfile"))
        try FileManager.default.createDirectory(at: filesRoot.appendingPathComponent(".staging"), withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: filesRoot.appendingPathComponent(".staging/partial"))
        try FileManager.default.createDirectory(at: filesRoot.appendingPathComponent("unknown-account/c"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: filesRoot.appendingPathComponent("unknown-account/c/f"))

        let second = try await TestServer.start(configuration: fileConfiguration(storage: storage))
        do {
            #expect(storedFiles(filesRoot).count == 1)
            #expect(second.server.fileBytesStored == 700)
            let agentA = try await CollabTestSupport.agent(second, "agent-a")
            let download = try await agentA.downloadFile(kept.id, in: conversationId)
            #expect(download.data == pngBytes(700))
            try await second.stop()
        } catch {
            try? await second.stop()
            throw error
        }
    }

    @Test("a file whose bytes on disk no longer match its record is a typed 500, whole or ranged, and the server goes on")
    func truncatedOnDisk() async throws {
        let directory = try temporaryDirectory()
        let server = try await TestServer.start(
            configuration: fileConfiguration(storage: .sqlite(path: directory.appendingPathComponent("state.sqlite").path)))
        do {
            let scenario = try await FileScenario.make(server)
            let file = try #require(try await scenario.app.uploadFile(data: pngBytes(4000), named: "cut.png", in: scenario.conversationId).file)
            let filesRoot = directory.appendingPathComponent("files")
            let stored = filesRoot.appendingPathComponent(try #require(storedFiles(filesRoot).first))
            // What a disk error or a hand edit leaves: fewer bytes than the record names.
            try Data(pngBytes(4000).prefix(1000)).write(to: stored)

            for range: ClosedRange<Int64>? in [nil, 0...7, 3000...3999] {
                let error = await #expect(throws: CollabClientError.self) {
                    try await scenario.agent.downloadFile(file.id, in: scenario.conversationId, range: range)
                }
                #expect(error?.status == 500)
                #expect(error.flatMap(refusalType) == "INTERNAL")
                #expect(error?.message.contains("do not match its record (4000 bytes)") == true)
            }
            // The record and the other routes are untouched.
            #expect(try await scenario.app.files(in: scenario.conversationId).map(\.file?.id) == [file.id])
            let upload = try await scenario.app.uploadFile(data: pngBytes(300, seed: 5), named: "ok.png", in: scenario.conversationId)
            let next = try #require(upload.file)
            #expect(try await scenario.agent.downloadFile(next.id, in: scenario.conversationId).data == pngBytes(300, seed: 5))
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("memory storage keeps files in memory within its quota")
    func memoryQuota() async throws {
        let server = try await TestServer.start(
            configuration: fileConfiguration(storage: .memory, files: FileSettings(quota: 4000, accountQuota: 4000)))
        do {
            let scenario = try await FileScenario.make(server)
            let file = try #require(try await scenario.app.uploadFile(data: pngBytes(3000), named: "m.png", in: scenario.conversationId).file)
            #expect(try await scenario.agent.downloadFile(file.id, in: scenario.conversationId, range: 0...7).data == pngBytes(8))
            let error = await #expect(throws: CollabClientError.self) {
                try await scenario.app.uploadFile(data: pngBytes(3000, seed: 3), named: "n.png", in: scenario.conversationId)
            }
            #expect(error?.status == 507)
            #expect(server.server.fileBytesStored == 3000)
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }
}
