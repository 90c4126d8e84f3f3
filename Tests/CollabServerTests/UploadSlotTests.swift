import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Foundation
import Testing

/// Upload slots over real sockets: one account holding uploads open takes only its share of the slots,
/// and a body that trickles in is cut by the minimum rate (issue 25, item 2).
@Suite("Upload slots", .serialized)
struct UploadSlotTests {
    static func configuration(_ files: FileSettings = FileSettings()) -> ServerConfiguration {
        var configuration = fileConfiguration(storage: .memory, files: files)
        configuration.seed = twoFileTenantsSeed
        return configuration
    }

    /// A started visitor of an account with a conversation.
    static func conversation(_ server: TestServer, apiKey: String, area: String, device: String) async throws -> (VisitorClient, String) {
        let app = visitor(server, device: device, apiKey: apiKey, namedArea: area)
        try await app.start()
        return (app, try await app.startConversation(topic: "uploads").id)
    }

    /// The statuses of the first `count` of `uploads` to be answered (`nil` for one the server closed
    /// without an answer, or none within the bound); the others stay open.
    static func firstAnswers(_ uploads: [HeldUpload], count: Int) async -> [Int?] {
        let (answers, continuation) = AsyncStream.makeStream(of: Int?.self)
        for upload in uploads { Task { continuation.yield(await upload.status()) } }
        var statuses: [Int?] = []
        for await status in answers {
            statuses.append(status)
            if statuses.count == count { break }
        }
        return statuses
    }

    @Test("one account's visitor holding 16 uploads open keeps 4 (its share): the other 12 are answered 429 at once and another account uploads")
    func slotsPerAccount() async throws {
        let server = try await TestServer.start(configuration: Self.configuration())
        do {
            let (greedy, greedyConversation) = try await Self.conversation(server, apiKey: "files-key", area: "area-a", device: "greedy")
            let token = try #require(greedy.session?.token)
            let held = try (0..<16).map { _ in try HeldUpload(port: server.port, token: token, conversationId: greedyConversation) }
            #expect(
                await Self.firstAnswers(held, count: 12) == Array(repeating: 429, count: 12),
                "the uploads beyond the account's share of 4 are refused at once")

            // While four of its uploads stay open, the other tenant uploads.
            let (quiet, quietConversation) = try await Self.conversation(server, apiKey: "files-b-key", area: "area-b1", device: "quiet")
            let message = try await quiet.uploadFile(data: pngBytes(67), named: "small.png", in: quietConversation)
            #expect(message.file?.size == 67)
            for upload in held { upload.close() }
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test(
        "an upload that trickles in is cut once it falls behind the minimum rate on the injected clock: 408 FILE_UPLOAD_TOO_SLOW, its slot free again"
    )
    func minimumRate() async throws {
        let clock = ManualClock()
        // One upload at a time for the account, at least 100 bytes per second after 10 seconds.
        var configuration = Self.configuration(
            FileSettings(maxUploadsPerAccount: 1, minimumRate: MinimumRate(bytesPerSecond: 100, grace: .seconds(10))))
        configuration.uploadClock = clock
        let server = try await TestServer.start(configuration: configuration)
        do {
            let (app, conversation) = try await Self.conversation(server, apiKey: "files-key", area: "area-a", device: "trickle")
            let slow = try HeldUpload(
                port: server.port, token: try #require(app.session?.token), conversationId: conversation, length: 5_000, sent: 8)
            try await clock.waitForSleepers(1, what: "the upload's minimum-rate watch")
            // 8 bytes buy 10.08 s: at 11 s the upload is behind.
            clock.advance(by: .seconds(11))
            #expect(await slow.status() == 408)
            slow.close()
            let message = try await app.uploadFile(data: pngBytes(300), named: "fast.png", in: conversation)
            #expect(message.file?.size == 300, "the account's one slot is free again")
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }
}
