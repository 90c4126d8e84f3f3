import AsyncHTTPClient
import CollabClient
import CollabCore
import CollabServer
import CollabWire
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOWebSocket
import Testing

/// The cluster's nginx configuration (`docker/nginx.conf`, started by `scripts/cluster front`) in front
/// of real servers: every surface works through it (live event WebSockets both ways, file uploads
/// and downloads, co-browsing frames larger than a WebSocket's default limit, the server's own typed
/// 413), and a server that goes away is stepped around. Needs nginx (`scripts/cluster setup`).
@Suite(
    "Through the cluster's nginx", .serialized,
    .enabled(if: LoopbackNginx.available, "nginx is not installed (scripts/cluster setup installs it; scripts/test runs it)")
)
struct NginxFrontTests {
    @Test("live events both ways, a 3 MB file, a 100 KB co-browsing frame to a viewer and a typed 413, all through nginx")
    func everySurface() async throws {
        let clock = AdjustableClock(frozenAt: 1_900_000_000_000)
        try await TestServer.with(seed: queueSeed, clock: clock) { server in
            try await LoopbackNginx.with(inFrontOf: [server.port]) { nginx in
                let agentA = AgentClient(baseURL: nginx.url)
                try await agentA.login(username: "agent-a", password: "pw")
                let agentEvents = EventCollector(try await agentA.connectEvents().events)
                let app = VisitorClient(configuration: ClientConfiguration(baseURL: nginx.url, apiKey: "desk-key", deviceId: "nginx-phone"))
                try await app.start()
                let appEvents = EventCollector(app.events)

                // A conversation, live on both WebSockets through nginx.
                let conversation = try await app.startConversation(engagementType: "MOBILE_COBROWSING_REQUEST")
                try await agentEvents.wait(for: "queued") { $0.type == "conversation.queued" && $0.conversation?.id == conversation.id }
                _ = try await agentA.accept(conversation.id)
                try await appEvents.wait(for: "active") { $0.type == "conversation.active" }
                _ = try await app.send("through nginx", in: conversation.id)
                try await agentEvents.wait(for: "visitor's message") { $0.type == "conversation.new_message" && $0.message?.text == "through nginx" }
                _ = try await agentA.send("and back", in: conversation.id)
                try await appEvents.wait(for: "agent's message") { $0.type == "conversation.new_message" && $0.message?.text == "and back" }

                // A file larger than nginx's default body limit, streamed up and down.
                let bytes = pngBytes(3_000_000)
                let message = try await app.uploadFile(data: bytes, named: "big.png", in: conversation.id)
                let file = try #require(message.file)
                #expect(file.size == Int64(bytes.count))
                let downloaded = try await agentA.downloadFile(file.id, in: conversation.id)
                #expect(downloaded.status == 200)
                #expect(downloaded.data == bytes)

                // A co-browsing frame larger than a WebSocket's default 16 KiB: uploaded over HTTP,
                // received by a viewer on the WebSocket (the latest frame comes first).
                let session = try await app.startCoBrowsing(in: conversation.id)
                let image = jpeg(1, size: 100_000)
                let posted = try await app.transport.raw(
                    "POST", "/mobile/v1/cobrowsing/\(session.id)/frames", body: image, contentType: "image/jpeg",
                    headers: [("x-frame-sequence", "1"), ("x-frame-width", "390"), ("x-frame-height", "844")]
                )
                #expect((200..<300).contains(posted.status), "\(posted.status) \(String(decoding: posted.body, as: UTF8.self))")
                let agentToken = try #require(agentA.session?.token)
                let received = ListBox<Data>()
                try await WebSocketClient.connect(
                    url: "ws://127.0.0.1:\(nginx.port)/agent/v1/cobrowsing/\(session.id)/frames?token=\(agentToken)",
                    configuration: .init(maxFrameSize: 1 << 20), logger: Logger(label: "nginx-viewer")
                ) { inbound, outbound, _ in
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .binary(let buffer) = message, let frame = try? FrameHeader.decode(buffer.readableBytesView) else { continue }
                        received.append(frame.image)
                        break
                    }
                    try await outbound.close(.normalClosure, reason: nil)
                }
                #expect(received.all == [image])

                // A body over the server's limit is answered by the server (typed), not by nginx.
                var request = HTTPClientRequest(url: nginx.url + "/app/rest/v4/namedareas/create")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Basic " + Data("admin-d:pw".utf8).base64EncodedString())
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(repeating: UInt8(ascii: " "), count: 200_000))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(response.status.code == 413)
                #expect(String(buffer: body).contains("\"$_type\":\"Error\""), "\(String(buffer: body))")
            }
        }
    }

    @Test("with one of two servers gone, requests through nginx are answered by the other")
    func stepsAroundAGoneServer() async throws {
        let first = try await TestServer.start(seed: queueSeed)
        let second = try await TestServer.start(seed: queueSeed)
        do {
            try await LoopbackNginx.with(inFrontOf: [first.port, second.port]) { nginx in
                try await second.stop()
                let admin = AdminClient(baseURL: nginx.url, credentials: .basic(username: "admin-d", password: "pw"))
                for index in 0..<4 {
                    var request = HTTPClientRequest(url: nginx.url + "/readyz")
                    request.method = .GET
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                    #expect(response.status.code == 200, "GET /readyz #\(index)")
                    _ = try await response.body.collect(upTo: 1 << 16)
                    // A write, too: nginx never sent it to the server that is gone.
                    let area = try await admin.namedAreas.create(WebNamedArea(name: "Area \(index)", siteId: "area-\(index)"))
                    #expect(area.name == "Area \(index)")
                }
            }
            try await first.stop()
        } catch {
            try? await first.stop()
            try? await second.stop()
            throw error
        }
    }
}
