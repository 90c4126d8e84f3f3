import CollabClient
import CollabWire
import Foundation
import Testing

/// Files against the real executable: an acknowledged upload survives `kill -9`.
@Suite("Files in the mock-collab process", .serialized)
struct FileProcessTests {
    @Test("every acknowledged upload survives kill -9, bytes and FILE message alike")
    func killNineAfterUploads() async throws {
        let directory = try temporaryDirectory()
        let storage = "sqlite:\(directory.path)/state.sqlite"
        // Eight uploads of one account at once: more than its default share of the upload slots.
        let first = try await ServerProcess(
            arguments: ["--storage", storage, "--password-hash-cost", "4", "--max-file-size", "200000", "--max-uploads-per-account", "8"]
        )
        let app = VisitorClient(
            configuration: ClientConfiguration(baseURL: first.baseURL, apiKey: "demo-api-key", namedArea: "demo-area", deviceId: "kill-phone"))
        try await app.start(liveEvents: false)
        let agent = AgentClient(baseURL: first.baseURL)
        try await agent.login(username: "agent", password: "agent")
        let conversation = try await app.startConversation(topic: "kill")
        _ = try await agent.accept(conversation.id)
        let acknowledged = try await withThrowingTaskGroup(of: (FileView, Data).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let bytes = pngBytes(20_000 + index * 1000, seed: UInt8(index))
                    let message = try await app.uploadFile(data: bytes, named: "f\(index).png", in: conversation.id)
                    return (message.file!, bytes)
                }
            }
            var files: [(FileView, Data)] = []
            for try await file in group { files.append(file) }
            return files
        }
        first.signal(SIGKILL)
        #expect(try await first.waitForExit() != 0)

        let second = try await ServerProcess(arguments: ["--storage", storage, "--password-hash-cost", "4"])
        let again = AgentClient(baseURL: second.baseURL)
        try await again.login(username: "agent", password: "agent")
        let listed = try await again.files(in: conversation.id).compactMap(\.file)
        #expect(Set(listed.map(\.id)) == Set(acknowledged.map(\.0.id)))
        for (file, bytes) in acknowledged {
            #expect(try await again.downloadFile(file.id, in: conversation.id).data == bytes)
        }
        second.signal(SIGTERM)
        #expect(try await second.waitForExit() == 0)
    }
}
