import CollabClient
import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOFoundationCompat
import Testing

@testable import CollabServer

/// Absolute links (the Web API's download links, an interceptor's `downloadLink`) come from the server's
/// public URL — `--public-url`, or the scheme, host and port it listens on — never from a request's
/// `Host` header (issue 25, item 6).
@Suite("Public URL", .serialized)
struct PublicURLTests {
    /// A small PDF: `fileSeed` allows PDFs, and the raw socket requests carry text bodies.
    static let pdf = "%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"

    /// One raw HTTP/1.1 request with a forged `Host` header, answered before the server closes.
    static func forged(_ method: String, _ target: String, port: Int, headers: [String] = [], body: String = "") async -> RawHTTPExchange {
        let lines = ["\(method) \(target) HTTP/1.1", "Host: attacker.example", "Connection: close", "Content-Length: \(body.utf8.count)"] + headers
        return await RawHTTPExchange.exchange(lines.joined(separator: "\r\n") + "\r\n\r\n" + body, port: port)
    }

    @Test("a Host header of the attacker's is ignored: the interceptor's downloadLink and getConversationFiles point at the listening address")
    func hostHeaderIgnored() async throws {
        let scanner = try await WebhookReceiver()
        try await TestServer.with(seed: interceptorSeed) { server in
            _ = try await FileInterceptorTests.register(server, endpoint: scanner.url)
            let scenario = try await FileScenario.make(server)
            let token = try #require(scenario.app.session?.token)
            let upload = Task {
                await Self.forged(
                    "POST", "/mobile/v1/conversations/\(scenario.conversationId)/files?name=doc.pdf", port: server.port,
                    headers: ["Authorization: Bearer \(token)", "Content-Type: application/pdf"], body: Self.pdf
                )
            }
            let delivery = try #require(try await scanner.wait(count: 1).first)
            let event = try JSONDecoder().decode(WebInterceptorNewFileEvent.self, from: delivery.body)
            let link = try #require(event.downloadLink)
            #expect(link.hasPrefix(server.baseURL + "/app/rest/v4/fileuploadinterceptors/files?token="), "\(link)")
            #expect(!link.contains("attacker"))
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let decision = Data(#"{"token":"\#(try #require(event.apiToken))"}"#.utf8)
            #expect(try await admin.raw("POST", "/app/rest/v4/fileuploadinterceptors/approveFileUpload", body: decision).status == 204)
            #expect(await upload.value.head.hasPrefix("HTTP/1.1 201"))

            let basic = "Basic " + Data("admin-f:pw".utf8).base64EncodedString()
            let listed = await Self.forged(
                "GET", "/app/rest/v4/conversations/\(scenario.conversationId)/getConversationFiles", port: server.port,
                headers: ["Authorization: \(basic)"]
            )
            let files = try JSONDecoder().decode(WebConversationFileList.self, from: Data(listed.body))
            let urls = files.items.flatMap { ($0.downloadLinks ?? []).compactMap(\.url) }
            #expect(urls.count == 2)
            for url in urls { #expect(url.hasPrefix(server.baseURL + "/"), "\(url)") }
        }
        try await scanner.stop()
    }

    @Test("with --public-url every absolute link starts with it, whatever the request says")
    func configuredPublicURL() async throws {
        try await InProcessServer.with(seed: fileSeed, configure: { $0.publicURL = "https://collab.example:8443/mock" }) { server in
            let setup = try await FileRulesTests.prepare(server.client)
            let answer = try await server.client.execute(
                uri: "/app/rest/v4/conversations/\(setup.conversationId)/getConversationFiles", method: .get,
                headers: [.authorization: InProcessServer.basic("admin-f", "pw"), HTTPField.Name("Host")!: "attacker.example"]
            )
            let files = try JSONDecoder().decode(WebConversationFileList.self, from: Data(buffer: answer.body))
            let urls = files.items.flatMap { ($0.downloadLinks ?? []).compactMap(\.url) }
            #expect(urls == [
                "https://collab.example:8443/mock/app/rest/v4/conversations/\(setup.conversationId)/files/\(setup.fileId)/download",
                "https://collab.example:8443/mock/agent/v1/conversations/\(setup.conversationId)/files/\(setup.fileId)",
            ])
        }
    }

    @Test("a public URL must be an absolute http(s) URL without query or fragment; a trailing slash is dropped")
    func validation() throws {
        #expect(try PublicURL.normalized("https://collab.example/mock/") == "https://collab.example/mock")
        #expect(try PublicURL.normalized("http://10.0.0.5:8080") == "http://10.0.0.5:8080")
        for bad in [
            "collab.example", "ftp://collab.example", "https://", "https://a.example/?x=1", "https://a.example/#top", "https://user:pw@a.example",
        ] {
            #expect(throws: CollabError.self, "\(bad)") { try PublicURL.normalized(bad) }
        }
    }
}
