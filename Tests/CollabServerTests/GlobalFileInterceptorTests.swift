import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Foundation
import Testing

/// `interceptorSeed` with a super admin in the *other* account: global interceptors are the server's,
/// whoever runs their backend.
let globalInterceptorSeed: Seed = {
    var seed = interceptorSeed
    seed.accounts[1].users?.append(.init(username: "root-o", password: "pw", role: .superAdmin))
    return seed
}()

/// Global file-upload interceptors over real sockets: an upload passes the account's interceptors
/// first, then the global ones, each deciding through its own tag; the list survives a restart.
@Suite("Global file-upload interceptors", .serialized)
struct GlobalFileInterceptorTests {
    /// Registers a global interceptor as the super admin.
    static func registerGlobal(_ server: some ServerUnderTest, endpoint: String, mimeTypeRegex: String? = nil) async throws
        -> WebFileUploadInterceptor
    {
        let root = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "root-o", password: "pw"))
        return try await root.send(
            "POST", "/app/rest/v4/fileuploadglobalinterceptors/create",
            body: WebFileUploadInterceptor(
                name: "global-scanner", order: 1, mimeTypeRegex: mimeTypeRegex, webhookEndpoint: endpoint, webhookSecret: "global-secret"
            )
        )
    }

    static func decide(_ transport: HTTPTransport, _ tag: String, _ operation: String, token: String, reason: String? = nil) async throws -> Int {
        let body = try JSONEncoder().encode(WebFileUploadDecision(token: token, reason: reason))
        return try await transport.raw("POST", "/app/rest/v4/\(tag)/\(operation)", body: body).status
    }

    @Test("the account's interceptor reviews first, then the global one, with the same signed new_file event; each tag decides its own")
    func accountThenGlobal() async throws {
        let accountScanner = try await WebhookReceiver()
        let globalScanner = try await WebhookReceiver()
        let hooks = try await WebhookReceiver()
        try await TestServer.with(seed: globalInterceptorSeed) { server in
            _ = try await FileInterceptorTests.register(server, endpoint: accountScanner.url, rejections: hooks.url)
            let global = try await Self.registerGlobal(server, endpoint: globalScanner.url)
            #expect(global.accountId == nil)
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let otherAdmin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-o", password: "pw"))
            let root = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "root-o", password: "pw"))
            let scenario = try await FileScenario.make(server)

            let bytes = pngBytes(2048)
            let upload = Task { try await scenario.app.uploadFile(data: bytes, named: "first.png", in: scenario.conversationId) }
            let accountEvent = try JSONDecoder().decode(
                WebInterceptorNewFileEvent.self, from: try #require(try await accountScanner.wait(count: 1).first).body)
            let accountToken = try #require(accountEvent.apiToken)
            // The global interceptor is asked only once the account's has approved.
            #expect(try await globalScanner.wait(count: 0).isEmpty)
            #expect(
                try await Self.decide(root, "fileuploadglobalinterceptors", "approveFileUpload", token: accountToken) == 404, "not a global review")
            #expect(try await Self.decide(admin, "fileuploadinterceptors", "approveFileUpload", token: accountToken) == 204)

            let delivery = try #require(try await globalScanner.wait(count: 1).first)
            #expect(delivery.headers["x-unblu-event"] == "file_upload_interceptor.new_file")
            #expect(delivery.headers["x-unblu-signature-256"] == FileInterceptorTests.hex(delivery.body, secret: "global-secret"))
            let globalEvent = try JSONDecoder().decode(WebInterceptorNewFileEvent.self, from: delivery.body)
            #expect(globalEvent.type == "InterceptorNewFileEvent")
            #expect(globalEvent.accountId == accountEvent.accountId && globalEvent.accountId != nil)
            #expect(globalEvent.conversationId == scenario.conversationId && globalEvent.name == "first.png" && globalEvent.length == 2048)
            let globalToken = try #require(globalEvent.apiToken)
            #expect(globalToken != accountToken)
            let link = try #require(globalEvent.downloadLink)
            let anonymous = HTTPTransport(baseURL: server.baseURL)
            #expect(
                try await anonymous.raw("GET", String(link.dropFirst(server.baseURL.count))).body == bytes,
                "the global interceptor reads the file too")
            #expect(
                try await Self.decide(admin, "fileuploadinterceptors", "approveFileUpload", token: globalToken) == 404, "not the account's review")
            #expect(
                try await Self.decide(otherAdmin, "fileuploadglobalinterceptors", "approveFileUpload", token: globalToken) == 404,
                "another account's admin")
            #expect(try await scenario.app.files(in: scenario.conversationId).isEmpty, "nothing is shown before the global decision")
            #expect(try await Self.decide(root, "fileuploadglobalinterceptors", "approveFileUpload", token: globalToken) == 204)
            let message = try await upload.value
            #expect(try await scenario.agent.downloadFile(try #require(message.file?.id), in: scenario.conversationId).data == bytes)

            // The second upload: the account approves, the global interceptor rejects (here through the
            // uploading account's admin, whom the vendor's ADMIN role lets decide too).
            let second = Task { try await scenario.app.uploadFile(data: pngBytes(700), named: "second.png", in: scenario.conversationId) }
            let secondAccount = try JSONDecoder().decode(WebInterceptorNewFileEvent.self, from: try await accountScanner.wait(count: 2)[1].body)
            #expect(try await Self.decide(admin, "fileuploadinterceptors", "approveFileUpload", token: try #require(secondAccount.apiToken)) == 204)
            let secondGlobal = try JSONDecoder().decode(WebInterceptorNewFileEvent.self, from: try await globalScanner.wait(count: 2)[1].body)
            let token = try #require(secondGlobal.apiToken)
            #expect(try await Self.decide(admin, "fileuploadglobalinterceptors", "rejectFileUpload", token: token, reason: "policy: no PNGs") == 204)
            let error = await #expect(throws: CollabClientError.self) { try await second.value }
            #expect(error?.status == 403)
            #expect(error?.message.contains("policy: no PNGs") == true)
            let rejected = try JSONDecoder().decode(
                WebInterceptorFileRejectedEvent.self, from: try #require(try await hooks.wait(count: 1).first).body)
            #expect(rejected.interceptorId == global.id && rejected.reason == "policy: no PNGs" && rejected.name == "second.png")
            #expect(try await scenario.app.files(in: scenario.conversationId).count == 1)
        }
        try await accountScanner.stop()
        try await globalScanner.stop()
        try await hooks.stop()
    }

    @Test("an account's rejection ends the upload before any global interceptor is asked")
    func accountRejectionFirst() async throws {
        let accountScanner = try await WebhookReceiver()
        let globalScanner = try await WebhookReceiver()
        try await TestServer.with(seed: globalInterceptorSeed) { server in
            _ = try await FileInterceptorTests.register(server, endpoint: accountScanner.url)
            _ = try await Self.registerGlobal(server, endpoint: globalScanner.url)
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let scenario = try await FileScenario.make(server)
            let upload = Task { try await scenario.app.uploadFile(data: pngBytes(300), named: "no.png", in: scenario.conversationId) }
            let event = try JSONDecoder().decode(
                WebInterceptorNewFileEvent.self, from: try #require(try await accountScanner.wait(count: 1).first).body)
            #expect(
                try await Self.decide(
                    admin, "fileuploadinterceptors", "rejectFileUpload", token: try #require(event.apiToken), reason: "account says no") == 204)
            let error = await #expect(throws: CollabClientError.self) { try await upload.value }
            #expect(error?.message.contains("account says no") == true)
            // The upload's request has ended: had the global interceptor been asked, its event would be here.
            #expect(try await globalScanner.wait(count: 0).isEmpty)
        }
        try await accountScanner.stop()
        try await globalScanner.stop()
    }

    @Test("a global interceptor's ping is a signed WebhookPingEvent naming no account")
    func ping() async throws {
        let receiver = try await WebhookReceiver()
        try await TestServer.with(seed: globalInterceptorSeed) { server in
            let global = try await Self.registerGlobal(server, endpoint: receiver.url)
            let root = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "root-o", password: "pw"))
            let answer = try await root.raw("POST", "/app/rest/v4/fileuploadglobalinterceptors/\(try #require(global.id))/sendPing")
            #expect(answer.status == 204)
            let delivery = try #require(try await receiver.wait(count: 1).first)
            #expect(delivery.headers["x-unblu-event"] == "ping")
            #expect(delivery.headers["x-unblu-signature-256"] == FileInterceptorTests.hex(delivery.body, secret: "global-secret"))
            let body = try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
            #expect(body["$_type"] as? String == "WebhookPingEvent" && body["accountId"] == nil)
        }
        try await receiver.stop()
    }

    @Test("global interceptors are stored on the GLOBAL level: kept over a restart on SQLite, with their secret and version")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("global-interceptors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let created = try await TestServer.with(storage: storage, seed: globalInterceptorSeed) { server in
            var global = try await Self.registerGlobal(server, endpoint: "http://127.0.0.1:9/scan", mimeTypeRegex: "image/.*")
            global.order = 4
            let root = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "root-o", password: "pw"))
            let updated: WebFileUploadInterceptor = try await root.send("POST", "/app/rest/v4/fileuploadglobalinterceptors/update", body: global)
            return updated
        }
        #expect(created.version == 2)
        try await TestServer.with(storage: storage, seed: globalInterceptorSeed) { server in
            let root = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "root-o", password: "pw"))
            let read: WebFileUploadInterceptor = try await root.send(
                "GET", "/app/rest/v4/fileuploadglobalinterceptors/\(try #require(created.id))/read")
            #expect(read == created)
            #expect(read.webhookSecret == "global-secret" && read.mimeTypeRegex == "image/.*" && read.order == 4)
        }
    }
}
