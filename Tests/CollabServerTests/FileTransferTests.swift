import CollabClient
import CollabCore
import CollabServer
import CollabWire
import Foundation
import Testing

/// An account that allows pictures and PDFs; area B also bounds the size.
let fileSeed = Seed(accounts: [
    .init(
        name: "files",
        configuration: [
            FileRestrictions.allowedMimeTypesKey: "image/*,application/pdf",
            FileRestrictions.fileTypeInputTagHintKey: "image/*,.pdf",
        ],
        apiKeys: [.init(key: "files-key")],
        namedAreas: [
            .init(siteId: "area-a", name: "Area A"),
            .init(siteId: "area-b", name: "Area B", configuration: [FileRestrictions.maxFileSizeKey: "1000"]),
        ],
        users: [
            .init(username: "admin-f", password: "pw", role: .admin),
            .init(username: "agent-a", password: "pw", role: .registeredUser, displayName: "Agent A"),
            .init(username: "agent-b", password: "pw", role: .registeredUser, displayName: "Agent B"),
        ]
    ),
    .init(name: "other", apiKeys: [.init(key: "other-key")], users: [.init(username: "admin-o", password: "pw", role: .admin)]),
])

/// An ELF header (a Linux executable) followed by filler.
let elfBytes = Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00] + [UInt8](repeating: 0, count: 200))

/// A visitor in `area` and `agent-a` in an active conversation with them.
struct FileScenario {
    let app: VisitorClient
    let agent: AgentClient
    let conversationId: String

    static func make(_ server: some ServerUnderTest, device: String = "file-phone", area: String = "area-a") async throws -> FileScenario {
        let app = visitor(server, device: device, apiKey: "files-key", namedArea: area)
        try await app.start(liveEvents: server.carriesWebSockets)
        let agentA = try await CollabTestSupport.agent(server, "agent-a")
        let conversation = try await app.startConversation(topic: "files")
        _ = try await agentA.accept(conversation.id)
        return FileScenario(app: app, agent: agentA, conversationId: conversation.id)
    }
}

/// The typed error type a refused upload carries (the client puts it in brackets).
func refusalType(_ error: CollabClientError) -> String? {
    guard error.message.hasPrefix("["), let end = error.message.firstIndex(of: "]") else { return nil }
    return String(error.message[error.message.index(after: error.message.startIndex)..<end])
}

@Suite("Files in conversations", .serialized)
struct FileTransferTests {
    @Test("a visitor uploads an allowed picture; it flows as a FILE message and the agent downloads exactly those bytes")
    func pictureRoundTrip() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            #expect(
                scenario.app.session?.configuration[FileRestrictions.fileTypeInputTagHintKey] == "image/*,.pdf", "the input-tag hint reaches the app")
            let agentEvents = EventCollector(try await scenario.agent.connectEvents().events)
            let bytes = pngBytes(70_000)
            // Sent as octet-stream: the type comes from the content, not the client's word.
            let message = try await scenario.app.uploadFile(
                data: bytes, named: "receipt.png", contentType: "application/octet-stream", in: scenario.conversationId)
            let file = try #require(message.file)
            #expect(file.mimeType == "image/png")
            #expect(file.size == Int64(bytes.count))
            #expect(file.name == "receipt.png")
            #expect(message.text == "receipt.png")

            let live = try await agentEvents.wait(for: "the FILE message live") {
                $0.type == "conversation.new_message" && $0.message?.file?.id == file.id
            }
            #expect(live.message?.file == file)
            let history = try await scenario.agent.messages(in: scenario.conversationId)
            #expect(history.messages.last?.file == file)
            #expect(try await scenario.app.files(in: scenario.conversationId).map(\.file) == [file])

            let download = try await scenario.agent.downloadFile(file.id, in: scenario.conversationId)
            #expect(download.status == 200)
            #expect(download.data == bytes)
            #expect(download.contentType == "image/png")
            #expect(download.etag == "\"\(file.sha256)\"")
            #expect(download.contentDisposition?.contains("filename=\"receipt.png\"") == true)

            // Streamed to a file on the visitor's side.
            let target = try temporaryDirectory().appendingPathComponent("copy.png")
            let streamed = try await scenario.app.downloadFile(file.id, in: scenario.conversationId, to: target)
            #expect(streamed.byteCount == Int64(bytes.count))
            #expect(try Data(contentsOf: target) == bytes)
        }
    }

    @Test("refused files get a typed 4xx and leave nothing behind: type, renamed executable, blocked extension, size, empty")
    func refusals() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let cases: [(String, Data, String?, Int, String)] = [
                ("notes.txt", Data("plain words".utf8), "text/plain", 415, "FILE_TYPE_NOT_ALLOWED"),
                ("cat.jpg", elfBytes, "image/jpeg", 415, "FILE_TYPE_MISMATCH"),
                ("cat.png", elfBytes, "image/png", 415, "FILE_TYPE_MISMATCH"),
                ("setup.exe", pngBytes(100), "image/png", 415, "FILE_TYPE_NOT_ALLOWED"),
                ("tool", elfBytes, nil, 415, "FILE_TYPE_NOT_ALLOWED"),
                ("big.png", pngBytes(11 * 1024 * 1024), "image/png", 413, "FILE_TOO_LARGE"),
                ("empty.png", Data(), "image/png", 400, "FILE_EMPTY"),
            ]
            for (name, data, type, status, errorType) in cases {
                let error = await #expect(throws: CollabClientError.self, "\(name)") {
                    try await scenario.app.uploadFile(data: data, named: name, contentType: type, in: scenario.conversationId)
                }
                #expect(error?.status == status, "\(name)")
                #expect(error.flatMap(refusalType) == errorType, "\(name): \(error?.message ?? "")")
            }
            let bad = await #expect(throws: CollabClientError.self) {
                try await scenario.app.uploadFile(data: pngBytes(50), named: "../x.png", in: scenario.conversationId)
            }
            #expect(bad?.status == 400)
            #expect(try await scenario.app.files(in: scenario.conversationId).isEmpty)
            #expect(try await scenario.agent.messages(in: scenario.conversationId).messages.isEmpty)
            #expect(server.server.fileBytesStored == 0)
        }
    }

    @Test("the named area's maximum size applies to uploads into its conversations")
    func areaMaximum() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server, area: "area-b")
            _ = try await scenario.app.uploadFile(data: pngBytes(1000), named: "small.png", in: scenario.conversationId)
            let error = await #expect(throws: CollabClientError.self) {
                try await scenario.app.uploadFile(data: pngBytes(1001), named: "large.png", in: scenario.conversationId)
            }
            #expect(error?.status == 413)
            // Agents upload along the conversation's area too.
            let agentError = await #expect(throws: CollabClientError.self) {
                try await scenario.agent.uploadFile(data: pngBytes(1001), named: "large.png", in: scenario.conversationId)
            }
            #expect(agentError?.status == 413)
        }
    }

    @Test("single ranges, suffix ranges, unsatisfiable and malformed ranges, and If-None-Match")
    func ranges() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let bytes = pngBytes(5000)
            let file = try #require(try await scenario.app.uploadFile(data: bytes, named: "r.png", in: scenario.conversationId).file)
            let path = "/agent/v1/conversations/\(scenario.conversationId)/files/\(file.id)"
            let part = try await scenario.agent.downloadFile(file.id, in: scenario.conversationId, range: 10...19)
            #expect(part.status == 206)
            #expect(part.data == bytes[10...19])
            #expect(part.contentRange == "bytes 10-19/5000")
            let transport = scenario.agent.transport
            let suffix = try await transport.raw("GET", path, headers: [("Range", "bytes=-5")])
            #expect(suffix.status == 206)
            #expect(suffix.body == bytes.suffix(5))
            let open = try await transport.raw("GET", path, headers: [("Range", "bytes=4990-")])
            #expect(open.body == bytes.suffix(10))
            let beyond = try await transport.raw("GET", path, headers: [("Range", "bytes=6000-7000")])
            #expect(beyond.status == 416)
            #expect(beyond.header("content-range") == "bytes */5000")
            #expect(try await transport.raw("GET", path, headers: [("Range", "bytes=abc")]).status == 416)
            #expect(try await transport.raw("GET", path, headers: [("Range", "bytes=9-3")]).status == 416)
            let several = try await transport.raw("GET", path, headers: [("Range", "bytes=0-1,5-6")])
            #expect(several.status == 200, "several ranges get the whole file")
            #expect(several.body == bytes)
            let cached = try await transport.raw("GET", path, headers: [("If-None-Match", "\"\(file.sha256)\"")])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
        }
    }

    @Test("downloads: participants and the account's admins; other agents, visitors and accounts get 404")
    func downloadRights() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let file = try #require(try await scenario.app.uploadFile(data: pngBytes(300), named: "p.png", in: scenario.conversationId).file)
            let note = try #require(
                try await scenario.agent.uploadFile(data: pngBytes(300, seed: 9), named: "note.png", internal: true, in: scenario.conversationId).file
            )
            let path = "conversations/\(scenario.conversationId)/files/\(file.id)"
            // Another agent of the account who does not take part.
            let agentB = try await CollabTestSupport.agent(server, "agent-b")
            #expect(try await agentB.transport.raw("GET", "/agent/v1/\(path)").status == 404)
            // The account's admin, through the agent API and the Web API link.
            let admin = AgentClient(baseURL: server.baseURL)
            try await admin.login(username: "admin-f", password: "pw")
            #expect(try await admin.downloadFile(file.id, in: scenario.conversationId).data == pngBytes(300))
            let webAdmin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            #expect(try await webAdmin.raw("GET", "/app/rest/v4/\(path)/download").status == 200)
            // Another visitor of the account, and another account's admin.
            let stranger = visitor(server, device: "stranger", apiKey: "files-key")
            try await stranger.start()
            #expect(try await stranger.transport.raw("GET", "/mobile/v1/\(path)").status == 404)
            let otherAdmin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-o", password: "pw"))
            #expect(try await otherAdmin.raw("GET", "/app/rest/v4/\(path)/download").status == 404)
            #expect(try await otherAdmin.raw("GET", "/app/rest/v4/conversations/\(scenario.conversationId)/getConversationFiles").status == 404)
            // An internal file is the agents' only.
            #expect(try await scenario.app.transport.raw("GET", "/mobile/v1/conversations/\(scenario.conversationId)/files/\(note.id)").status == 404)
            #expect(try await scenario.app.files(in: scenario.conversationId).map(\.file?.id) == [file.id])
            // An unknown file and an unauthenticated caller.
            #expect(try await scenario.agent.transport.raw("GET", "/agent/v1/conversations/\(scenario.conversationId)/files/nope").status == 404)
            #expect(try await HTTPTransport(baseURL: server.baseURL).raw("GET", "/app/rest/v4/\(path)/download").status == 401)
        }
    }

    @Test("getConversationFiles lists the vendor's ConversationFileData with WEB_API and AGENT_DESK links that download")
    func webAPIFiles() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server)
            let bytes = pngBytes(1234)
            let file = try #require(try await scenario.app.uploadFile(data: bytes, named: "w.png", in: scenario.conversationId).file)
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let list: WebConversationFileList = try await admin.send(
                "GET", "/app/rest/v4/conversations/\(scenario.conversationId)/getConversationFiles")
            let item = try #require(list.items.first)
            #expect(item.fileStoreId == file.id)
            #expect(item.mimeType == "image/png")
            #expect(item.totalSize == 1234)
            #expect(item.ownerPersonId == scenario.app.session?.person.id)
            let links = Dictionary(uniqueKeysWithValues: (item.downloadLinks ?? []).compactMap { link in link.linkType.map { ($0, link.url ?? "") } })
            let webLink = try #require(links["WEB_API"])
            #expect(webLink.hasPrefix(server.baseURL))
            let fetched = try await admin.raw("GET", String(webLink.dropFirst(server.baseURL.count)))
            #expect(fetched.status == 200)
            #expect(fetched.body == bytes)
            let deskLink = try #require(links["AGENT_DESK"])
            #expect(try await scenario.agent.transport.raw("GET", String(deskLink.dropFirst(server.baseURL.count))).body == bytes)
            // Agents (not admins) may not list: the vendor requires ADMIN.
            let agentWeb = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "agent-a", password: "pw"))
            #expect(try await agentWeb.raw("GET", "/app/rest/v4/conversations/\(scenario.conversationId)/getConversationFiles").status == 403)
        }
    }

    @Test("a file from the agent reaches a visitor in the background as a push saying 'sent a file'")
    func pushText() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server, device: "push-files")
            _ = try await NotificationAPI(client: scenario.app).register(apnsToken: apnsToken, pushKitToken: nil, version: .notEncrypted)
            try await scenario.app.setAppState(.background)
            _ = try await scenario.agent.uploadFile(data: pngBytes(200), named: "a.png", in: scenario.conversationId)
            let push = try await server.waitForPush([("kind", "NEW_MESSAGE"), ("conversationId", scenario.conversationId)])
            #expect(push.content.text == "sent a file")
        }
    }

    @Test("a FILE message reaches webhooks as the vendor's FileMessageData")
    func webhookFileMessage() async throws {
        let receiver = try await WebhookReceiver()
        try await TestServer.with(seed: fileSeed) { server in
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "files", endpoint: receiver.url, events: ["conversation.new_message"], secret: "file-hook-secret")
            )
            let scenario = try await FileScenario.make(server)
            let file = try #require(try await scenario.app.uploadFile(data: pngBytes(321), named: "hook.png", in: scenario.conversationId).file)
            let delivery = try #require(try await receiver.wait(count: 1).first)
            let body = try JSONDecoder().decode(WebhookEventBody.self, from: delivery.body)
            let message = try #require(body.conversationMessage)
            #expect(message.type == "FileMessageData")
            #expect(message.messageType == "FILE")
            #expect(message.fileName == "hook.png")
            #expect(message.mimeType == "image/png")
            #expect(message.fileStoreId == file.id)
            #expect(message.totalSize == 321)
            #expect(message.text == nil)
        }
        try await receiver.stop()
    }
}
