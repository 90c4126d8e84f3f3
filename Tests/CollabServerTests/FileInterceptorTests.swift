import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Crypto
import Foundation
import Testing

/// `fileSeed` plus a named area whose interceptor timeout is short.
let interceptorSeed: Seed = {
    var seed = fileSeed
    seed.accounts[0].namedAreas?.append(.init(siteId: "area-slow", name: "Slow", configuration: [FileRestrictions.interceptorTimeoutKey: "300"]))
    return seed
}()

@Suite("File-upload interceptors", .serialized)
struct FileInterceptorTests {
    static func hex(_ body: Data, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    /// Registers an interceptor (and, when given, a webhook for rejections) as the account's admin.
    static func register(
        _ server: some ServerUnderTest, endpoint: String, mimeTypeRegex: String? = nil, rejections: String? = nil
    ) async throws -> WebFileUploadInterceptor {
        let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
        if let rejections {
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(
                    name: "rejections", endpoint: rejections, events: ["file_upload_interceptor.file_rejected"], secret: "rejection-secret")
            )
        }
        return try await admin.send(
            "POST", "/app/rest/v4/fileuploadinterceptors/create",
            body: WebFileUploadInterceptor(
                name: "scanner", order: 1, mimeTypeRegex: mimeTypeRegex, webhookEndpoint: endpoint, webhookSecret: "scanner-secret")
        )
    }

    @Test("an interceptor gets the signed new_file event, reads the file by its link, and approves it: the upload completes")
    func approve() async throws {
        let scanner = try await WebhookReceiver()
        try await TestServer.with(seed: interceptorSeed) { server in
            let interceptor = try await Self.register(server, endpoint: scanner.url)
            #expect(interceptor.webhookStatus == "ACTIVE")
            let scenario = try await FileScenario.make(server)
            let bytes = pngBytes(4096)
            let upload = Task { try await scenario.app.uploadFile(data: bytes, named: "scan-me.png", in: scenario.conversationId) }
            let delivery = try #require(try await scanner.wait(count: 1).first)
            #expect(delivery.headers["x-unblu-event"] == "file_upload_interceptor.new_file")
            #expect(delivery.headers["x-unblu-signature-256"] == Self.hex(delivery.body, secret: "scanner-secret"))
            let event = try JSONDecoder().decode(WebInterceptorNewFileEvent.self, from: delivery.body)
            #expect(event.type == "InterceptorNewFileEvent")
            #expect(event.name == "scan-me.png")
            #expect(event.mimeType == "image/png")
            #expect(event.length == 4096)
            #expect(event.conversationId == scenario.conversationId)
            #expect(event.person?.id == scenario.app.session?.person.id)
            let token = try #require(event.apiToken)
            // The link needs no login: the token authorises it while the decision is pending.
            let link = try #require(event.downloadLink)
            let anonymous = HTTPTransport(baseURL: server.baseURL)
            #expect(try await anonymous.raw("GET", String(link.dropFirst(server.baseURL.count))).body == bytes)
            #expect(try await scenario.app.files(in: scenario.conversationId).isEmpty, "nothing is shown before the decision")

            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            // Another account's admin cannot decide for this one.
            let other = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-o", password: "pw"))
            #expect(
                try await other.raw("POST", "/app/rest/v4/fileuploadinterceptors/approveFileUpload", body: Data(#"{"token":"\#(token)"}"#.utf8))
                    .status == 404)
            let approved = try await admin.raw(
                "POST", "/app/rest/v4/fileuploadinterceptors/approveFileUpload", body: Data(#"{"token":"\#(token)"}"#.utf8))
            #expect(approved.status == 204)
            let message = try await upload.value
            #expect(message.file?.name == "scan-me.png")
            #expect(try await scenario.agent.downloadFile(try #require(message.file?.id), in: scenario.conversationId).data == bytes)
            // The token is spent: the link and a second decision find nothing.
            #expect(try await anonymous.raw("GET", String(link.dropFirst(server.baseURL.count))).status == 404)
            #expect(
                try await admin.raw("POST", "/app/rest/v4/fileuploadinterceptors/rejectFileUpload", body: Data(#"{"token":"\#(token)"}"#.utf8)).status
                    == 404)
        }
        try await scanner.stop()
    }

    @Test("a rejection refuses the upload with 403 FILE_REJECTED, leaves nothing behind and fires file_upload_interceptor.file_rejected")
    func reject() async throws {
        let scanner = try await WebhookReceiver()
        let hooks = try await WebhookReceiver()
        try await TestServer.with(seed: interceptorSeed) { server in
            let interceptor = try await Self.register(server, endpoint: scanner.url, rejections: hooks.url)
            let scenario = try await FileScenario.make(server)
            let upload = Task { try await scenario.app.uploadFile(data: pngBytes(500), named: "infected.png", in: scenario.conversationId) }
            let event = try JSONDecoder().decode(WebInterceptorNewFileEvent.self, from: try #require(try await scanner.wait(count: 1).first).body)
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let body = try JSONEncoder().encode(WebFileUploadDecision(token: try #require(event.apiToken), reason: "EICAR test signature"))
            #expect(try await admin.raw("POST", "/app/rest/v4/fileuploadinterceptors/rejectFileUpload", body: body).status == 204)
            let error = await #expect(throws: CollabClientError.self) { try await upload.value }
            #expect(error?.status == 403)
            #expect(error.flatMap(refusalType) == "FILE_REJECTED")
            #expect(error?.message.contains("EICAR test signature") == true)
            #expect(try await scenario.app.files(in: scenario.conversationId).isEmpty)
            #expect(try await scenario.agent.messages(in: scenario.conversationId).messages.isEmpty)
            #expect(server.server.fileBytesStored == 0)

            let announced = try #require(try await hooks.wait(count: 1).first)
            #expect(announced.headers["x-unblu-event"] == "file_upload_interceptor.file_rejected")
            #expect(announced.headers["x-unblu-signature-256"] == Self.hex(announced.body, secret: "rejection-secret"))
            let rejected = try JSONDecoder().decode(WebInterceptorFileRejectedEvent.self, from: announced.body)
            #expect(rejected.type == "InterceptorFileRejectedEvent")
            #expect(rejected.reason == "EICAR test signature")
            #expect(rejected.interceptorId == interceptor.id)
            #expect(rejected.name == "infected.png")
            #expect(rejected.personId == scenario.app.session?.person.id)
        }
        try await scanner.stop()
        try await hooks.stop()
    }

    @Test("no decision within the configured time on the injected clock rejects the upload; types outside mimeTypeRegex are not reviewed")
    func timeoutAndTypes() async throws {
        let scanner = try await WebhookReceiver()
        let clock = ManualClock()
        var configuration = fileConfiguration(storage: .memory)
        configuration.seed = interceptorSeed
        configuration.uploadClock = clock
        let server = try await TestServer.start(configuration: configuration)
        do {
            _ = try await Self.register(server, endpoint: scanner.url, mimeTypeRegex: "image/.*")
            let slow = try await FileScenario.make(server, device: "slow-phone", area: "area-slow")
            let upload = Task { try await slow.app.uploadFile(data: pngBytes(300), named: "late.png", in: slow.conversationId) }
            _ = try await scanner.wait(count: 1)
            // The interceptor has the event and the upload waits on the clock: 300 ms of it (the area's
            // timeout) reject the upload, however long the machine takes.
            try await clock.waitForSleepers(1, what: "the upload's wait for the interceptor's decision")
            #expect(server.server.pendingFileReviews == 1)
            clock.advance(by: .milliseconds(300))
            let error = await #expect(throws: CollabClientError.self) { try await upload.value }
            #expect(error?.status == 403)
            #expect(error?.message.contains("did not decide in time") == true)
            #expect(server.server.fileBytesStored == 0)
            #expect(server.server.pendingFileReviews == 0)
            // A PDF is not an image: it is accepted at once, without waiting for a decision (which would time out).
            let pdf = Data("%PDF-1.4\n% a document\n".utf8)
            let message = try await slow.app.uploadFile(data: pdf, named: "doc.pdf", in: slow.conversationId)
            #expect(message.file?.mimeType == "application/pdf")
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
        try await scanner.stop()
    }

    @Test("interceptors: read, getByName, search, update with version, delete; bad input refused; other accounts see none")
    func management() async throws {
        try await InProcessServer.with(seed: interceptorSeed) { server in
            let created = try await Self.register(server, endpoint: "http://127.0.0.1:9/scan")
            let id = try #require(created.id)
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let read: WebFileUploadInterceptor = try await admin.send("GET", "/app/rest/v4/fileuploadinterceptors/\(id)/read")
            #expect(read == created)
            let byName: WebFileUploadInterceptor = try await admin.send(
                "GET", "/app/rest/v4/fileuploadinterceptors/getByName", query: [("name", "scanner")])
            #expect(byName.id == id)
            let found: WebResult<WebFileUploadInterceptor> = try await admin.send(
                "POST", "/app/rest/v4/fileuploadinterceptors/search", body: WebQuery(type: "FileUploadInterceptorQuery"))
            #expect(found.items?.map(\.id) == [id])
            var change = created
            change.order = 5
            change.webhookStatus = "INACTIVE"
            let updated: WebFileUploadInterceptor = try await admin.send("POST", "/app/rest/v4/fileuploadinterceptors/update", body: change)
            #expect(updated.order == 5)
            #expect(updated.version == 2)
            #expect(
                try await admin.raw("POST", "/app/rest/v4/fileuploadinterceptors/update", body: try JSONEncoder().encode(change)).status == 409,
                "a stale version")
            for bad in [
                #"{"name":"x","order":1}"#, #"{"name":"x","order":1,"webhookEndpoint":"ftp://x"}"#, #"{"order":1,"webhookEndpoint":"http://a.b/c"}"#,
                #"{"name":"x","webhookEndpoint":"http://a.b/c"}"#, #"{"name":"x","order":1,"webhookEndpoint":"http://a.b/c","mimeTypeRegex":"("}"#,
                #"{"$_type":"WebhookRegistration","name":"x","order":1,"webhookEndpoint":"http://a.b/c"}"#,
                #"{"name":"scanner","order":1,"webhookEndpoint":"http://a.b/c"}"#,
            ] {
                let status = try await admin.raw("POST", "/app/rest/v4/fileuploadinterceptors/create", body: Data(bad.utf8)).status
                #expect((400..<500).contains(status), "\(bad) answered \(status)")
            }
            let agent = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "agent-a", password: "pw"))
            #expect(try await agent.raw("GET", "/app/rest/v4/fileuploadinterceptors/\(id)/read").status == 403)
            let other = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-o", password: "pw"))
            #expect(try await other.raw("GET", "/app/rest/v4/fileuploadinterceptors/\(id)/read").status == 404)
            #expect(try await other.raw("DELETE", "/app/rest/v4/fileuploadinterceptors/\(id)/delete").status == 404)
            #expect(try await admin.raw("DELETE", "/app/rest/v4/fileuploadinterceptors/\(id)/delete").status == 204)
            #expect(try await admin.raw("GET", "/app/rest/v4/fileuploadinterceptors/\(id)/read").status == 404)
        }
    }
}
