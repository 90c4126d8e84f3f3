import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import CollabServer

/// Small things a new user tripped over, each fixed and kept fixed. In process (router mode).
@Suite("Papercuts")
struct PapercutTests {
    static let seed = Seed(accounts: [
        .init(
            name: "desk", configuration: ["com.unblu.mobiledevice.iosMaxFpsRate": "2"], apiKeys: [.init(key: "desk-key")],
            users: [
                .init(username: "admin-d", password: "pw", role: .admin), .init(username: "agent-a", password: "pw", role: .registeredUser),
            ],
            jwt: .init(testTokenSecret: "a-test-secret-of-at-least-32-bytes!!")
        )
    ])

    /// A PNG header declaring 300 × 200 pixels (signature, IHDR).
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        + Data([0, 0, 0x01, 0x2C, 0, 0, 0, 0xC8, 8, 2, 0, 0, 0])

    /// A co-browsing session a visitor started in a conversation an agent accepted.
    static func session(_ server: InProcessServer) async throws -> (visitor: String, sessionId: String) {
        let start = try await server.call(
            .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: "desk-key", deviceId: "phone", device: .init(os: "iOS"))
        ).decode(ClientStartResponse.self)
        let visitor = "Bearer " + start.token
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
            .decode(ConversationView.self)
        let agent = "Bearer " + (try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "agent-a", password: "pw"))
            .decode(AgentLoginResponse.self).token)
        _ = try await server.call(.put, "/agent/v1/presence", authorization: agent, body: PresenceRequest(presence: "ONLINE"))
        _ = try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: agent)
        let session = try await server.call(.post, "/mobile/v1/conversations/\(conversation.id)/cobrowsing", authorization: visitor)
            .decode(CoBrowsingSessionView.self)
        return (visitor, session.id)
    }

    @Test("co-browsing statistics report the resolved rate limit before the first frame")
    func statsBeforeFirstFrame() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let (_, sessionId) = try await Self.session(server)
            let stats = try await server.call(.get, "/_mock/v1/cobrowsing/\(sessionId)/stats", authorization: InProcessServer.basic("admin-d", "pw"))
                .decode(CoBrowsingStats.self)
            #expect(stats.accepted == 0)
            #expect(stats.maxFps == 2, "the account's iosMaxFpsRate, not the default 5")
        }
    }

    @Test("a frame upload without x-frame-width/height takes the size from the image; a malformed header is a 400")
    func frameWithoutSize() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let (visitor, sessionId) = try await Self.session(server)
            var headers = HTTPFields()
            headers[.authorization] = visitor
            headers[.contentType] = "image/png"
            let accepted = try await server.client.execute(
                uri: "/mobile/v1/cobrowsing/\(sessionId)/frames", method: .post, headers: headers, body: .init(bytes: Self.png)
            )
            #expect(accepted.status == .accepted, "\(String(buffer: accepted.body))")
            let accountId = try #require(server.server.environment.accountId(for: .accountName("desk")))
            let frame = try #require(server.server.environment.frames.latest(sessionId: sessionId, accountId: accountId))
            #expect(frame.header.width == 300 && frame.header.height == 200)

            headers[HTTPField.Name("x-frame-width")!] = "wide"
            let refused = try await server.client.execute(
                uri: "/mobile/v1/cobrowsing/\(sessionId)/frames", method: .post, headers: headers, body: .init(bytes: Self.png)
            )
            #expect(refused.status == .badRequest)
            #expect(String(buffer: refused.body).contains("x-frame-width must be an integer"))
        }
    }

    @Test("image sizes are read from PNG and JPEG headers")
    func dimensions() {
        #expect(FrameImageFormat.dimensions(of: Self.png)! == (300, 200))
        // SOI, an APP0 segment of length 4, then SOF0: length 17, precision 8, height 480, width 640.
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03])
        #expect(FrameImageFormat.dimensions(of: jpeg)! == (640, 480))
        #expect(FrameImageFormat.dimensions(of: Data([0xFF, 0xD8, 0xFF, 0xDA, 0, 2])) == nil, "no size before the scan")
        #expect(FrameImageFormat.dimensions(of: Data([0xFF, 0xD8, 0xFF])) == nil)
        #expect(FrameImageFormat.dimensions(of: Data("GIF89a".utf8)) == nil)
    }

    @Test("test access tokens carry whole-second exp and iat")
    func wholeSecondTimes() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let issued = try await server.call(
                .post, "/_mock/v1/accounts/desk/tokens", authorization: "Bearer test-control-token", body: TestTokenRequest(subject: "visitor-1")
            )
            #expect(issued.status == .ok, "\(issued.text)")
            let token = try issued.decode(TestTokenResponse.self).token
            var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while payload.count % 4 != 0 { payload += "=" }
            let payloadData = try #require(Data(base64Encoded: payload))
            let claims = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
            for name in ["exp", "iat"] {
                let value = try #require(claims[name] as? NSNumber, "\(name) is a number")
                #expect(value.doubleValue == value.doubleValue.rounded(), "\(name) is whole seconds: \(value)")
            }
            let text = String(decoding: payloadData, as: UTF8.self)
            #expect(!text.contains("."), "no fractional times in \(text)")
        }
    }
}
