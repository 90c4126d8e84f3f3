import CollabClient
import CollabCore
import CollabServer
import CollabStore
import CollabWire
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationCompat
import NIOWebSocket
import Testing

@Suite("Co-browsing", .serialized)
struct CoBrowsingTests {
    struct Setup: Sendable {
        let server: any ServerUnderTest
        let clock: AdjustableClock
        let app: VisitorClient
        let agent: AgentClient
        let conversationId: String
        /// The port of a server on a socket (raw WebSockets need one).
        var port: Int? { (server as? TestServer)?.port }
    }

    /// A visitor sharing its screen with `agent-a`, on a frozen clock; in process unless the test needs `live` sockets.
    func withSetup(live: Bool = false, _ body: @escaping @Sendable (Setup) async throws -> Void) async throws {
        let clock = AdjustableClock(frozenAt: 1_900_000_000_000)
        if live {
            try await TestServer.with(seed: queueSeed, clock: clock) { server in try await Self.prepare(server, clock, body) }
        } else {
            try await InProcessServer.with(seed: queueSeed, clock: clock) { server in try await Self.prepare(server, clock, body) }
        }
    }

    static func prepare(_ server: some ServerUnderTest, _ clock: AdjustableClock, _ body: (Setup) async throws -> Void) async throws {
        let app = visitor(server, device: "cobrowse-phone")
        try await app.start(liveEvents: server.carriesWebSockets)
        let agentA = try await agent(server, "agent-a")
        let conversation = try await app.startConversation(engagementType: "MOBILE_COBROWSING_REQUEST")
        _ = try await agentA.accept(conversation.id)
        try await body(Setup(server: server, clock: clock, app: app, agent: agentA, conversationId: conversation.id))
    }

    func post(_ setup: Setup, session: String, image: Data, sequence: Int) async throws -> HTTPTransport.RawResponse {
        try await setup.app.transport.raw(
            "POST", "/mobile/v1/cobrowsing/\(session)/frames", body: image, contentType: "image/jpeg",
            headers: [("x-frame-sequence", String(sequence)), ("x-frame-width", "390"), ("x-frame-height", "844")]
        )
    }

    func stats(_ setup: Setup, _ session: String) async throws -> CoBrowsingStats {
        try await setup.server.control.transport.send("GET", "/_mock/v1/cobrowsing/\(session)/stats")
    }

    @Test("exact accepted and throttled counts under a controlled clock; duplicates counted, not forwarded")
    func throttle() async throws {
        try await withSetup { setup in
            let requested = try await setup.agent.requestCoBrowsing(in: setup.conversationId)
            #expect(requested.state == "REQUESTED")
            let session = try await setup.app.acceptCoBrowsing(requested.id)
            #expect(session.state == "ACTIVE")
            #expect(session.maxFps == 5)
            // 30 frames every 100 ms over 3 s at 5 fps: every other frame is due.
            var accepted = 0
            var throttled = 0
            for index in 0..<30 {
                let response = try await post(setup, session: session.id, image: jpeg(index), sequence: index)
                let ack = try JSONDecoder().decode(FrameAck.self, from: response.body)
                if response.status == 202 {
                    accepted += 1
                    #expect(ack.type == "frame.accepted")
                } else {
                    throttled += 1
                    #expect(response.status == 429)
                    #expect(ack.type == "frame.throttled")
                    #expect(ack.retryAfterMs == 50)
                    #expect(response.header("retry-after") == "1")
                }
                setup.clock.advance(by: 100)
            }
            #expect(accepted == 15)
            #expect(throttled == 15)
            // An unchanged screen is counted as a duplicate and not forwarded.
            setup.clock.advance(by: 200)
            let last = try await post(setup, session: session.id, image: jpeg(28), sequence: 30)
            #expect(try JSONDecoder().decode(FrameAck.self, from: last.body).type == "frame.duplicate")
            let result = try await stats(setup, session.id)
            #expect(result.accepted == 15)
            #expect(result.throttled == 15)
            #expect(result.duplicates == 1)
            #expect(result.bytes == 15 * 12_000)
            #expect(result.gapP50 == 200)
            #expect(result.gapP99 == 200)
            #expect(abs(result.effectiveFps - 5) < 0.01)
            let latest = try #require(try await setup.agent.latestFrame(session.id))
            #expect(latest.image == jpeg(28))
            #expect(latest.sequence == 28)
        }
    }

    @Test("a conversation holds at most its bound of co-browsing sessions, ended ones included; deleting it removes them")
    func sessionsPerConversation() async throws {
        try await withSetup { setup in
            var ids: [String] = []
            for _ in 0..<ConversationLimits.coBrowsingSessionsPerConversation {
                let session = try await setup.app.startCoBrowsing(in: setup.conversationId)
                ids.append(session.id)
                _ = try await setup.app.stopCoBrowsing(session.id)
            }
            do throws(CollabClientError) {
                _ = try await setup.app.startCoBrowsing(in: setup.conversationId)
                Issue.record("one more session than the bound was stored")
            } catch {
                #expect(error.status == 409)
                #expect(error.message.contains("maximum of \(ConversationLimits.coBrowsingSessionsPerConversation) co-browsing sessions"))
            }
            _ = try await setup.agent.end(setup.conversationId)
            let deleted = try await setup.agent.transport.raw("DELETE", "/app/rest/v4/conversations/\(setup.conversationId)/delete")
            #expect(deleted.status == 200 || deleted.status == 204)
            for id in [ids[0], ids[ids.count - 1]] {
                await #expect(throws: CollabClientError.self, "the deleted conversation's sessions went with it") {
                    try await setup.agent.coBrowsingSession(id)
                }
            }
        }
    }

    @Test("a property change applies to the running session")
    func propertyChange() async throws {
        try await withSetup { setup in
            let session = try await setup.app.startCoBrowsing(in: setup.conversationId)
            #expect(session.maxFps == 5)
            try await setup.server.control.seed("accounts:\n  - name: desk\n    configuration:\n      com.unblu.mobiledevice.iosMaxFpsRate: \"10\"\n")
            #expect(try await setup.app.coBrowsingSession(session.id).maxFps == 10)
            var accepted = 0
            for index in 0..<20 {
                if try await post(setup, session: session.id, image: jpeg(index), sequence: index).status == 202 { accepted += 1 }
                setup.clock.advance(by: 100)
            }
            #expect(accepted == 20, "at 10 fps every 100 ms frame is due")
            // An API-key scope wins over the account.
            try await setup.server.control.seed(
                "accounts:\n  - name: desk\n    apiKeys:\n      - key: desk-key\n"
                    + "        configuration:\n          com.unblu.mobiledevice.iosMaxFpsRate: \"1\"\n"
            )
            #expect(try await setup.app.coBrowsingSession(session.id).maxFps == 1)
        }
    }

    @Test("over-size and non-image frames are rejected; frames need an active session of your own")
    func rejects() async throws {
        try await withSetup { setup in
            let session = try await setup.app.startCoBrowsing(in: setup.conversationId)
            let garbage = try await post(setup, session: session.id, image: Data("not an image".utf8), sequence: 1)
            #expect(garbage.status == 400)
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: garbage.body).message.contains("neither JPEG nor PNG"))
            let huge = try await post(setup, session: session.id, image: jpeg(1, size: 300 * 1024), sequence: 2)
            #expect(huge.status == 413)
            let stranger = visitor(setup.server, device: "other-phone")
            try await stranger.start(liveEvents: false)
            let foreign = try await stranger.transport.raw(
                "POST", "/mobile/v1/cobrowsing/\(session.id)/frames", body: jpeg(3), contentType: "image/jpeg")
            #expect(foreign.status == 404)
            _ = try await setup.app.stopCoBrowsing(session.id)
            let stopped = try await post(setup, session: session.id, image: jpeg(4), sequence: 3)
            #expect(stopped.status == 409)
            let outsider = try await agent(setup.server, "agent-x")
            let view = try await outsider.transport.raw("GET", "/agent/v1/cobrowsing/\(session.id)/frame")
            #expect(view.status == 404, "another account's agent cannot view")
            let plain = try await setup.agent.transport.raw("GET", "/agent/v1/cobrowsing/\(session.id)/frames")
            #expect(plain.status == 400, "the viewer socket's route without a WebSocket upgrade says so")
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: plain.body).message.contains("WebSocket upgrade"))
        }
    }

    @Test("frames over the client's WebSocket, acknowledged; a live viewer sees them; a stalled viewer does not block the uploader")
    func webSocketUploadAndViewing() async throws {
        try await withSetup(live: true) { setup in
            let session = try await setup.app.startCoBrowsing(in: setup.conversationId)
            let token = try #require(setup.app.session?.token)
            let agentToken = try #require(setup.agent.session?.token)
            let wsBase = "ws://127.0.0.1:\(try #require(setup.port))"
            let logger = Logger(label: "test")

            // A viewer that reads everything, and one that never reads (stalled).
            let seen = ListBox<UInt32>()
            let viewerReady = PortBox()
            let viewer = Task {
                // Frames are larger than the WebSocket default of 16 KiB: raise the client's limit.
                try await WebSocketClient.connect(
                    url: "\(wsBase)/agent/v1/cobrowsing/\(session.id)/frames?token=\(agentToken)", configuration: .init(maxFrameSize: 1 << 20),
                    logger: logger
                ) { inbound, _, _ in
                    viewerReady.set(1)
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .binary(let buffer) = message, let frame = try? FrameHeader.decode(buffer.readableBytesView) else { continue }
                        seen.append(frame.header.sequence)
                        if frame.header.sequence == 9 { return }
                    }
                }
            }
            let stalled = Task {
                try await WebSocketClient.connect(
                    url: "\(wsBase)/agent/v1/cobrowsing/\(session.id)/frames?token=\(agentToken)", configuration: .init(maxFrameSize: 1 << 20),
                    logger: logger
                ) { _, _, _ in
                    try await Task.sleep(for: .seconds(30))
                }
            }
            _ = await viewerReady.wait()

            let acks = ListBox<FrameAck>()
            try await WebSocketClient.connect(
                url: "\(wsBase)/mobile/v1/events?token=\(token)", configuration: .init(maxFrameSize: 1 << 20), logger: logger
            ) { inbound, outbound, _ in
                var iterator = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                var sent = 0
                for index in 0..<10 {
                    let header = FrameHeader(
                        sessionId: session.id, sequence: UInt32(index), captureTime: setup.clock.now(), width: 390, height: 844,
                        privateAreas: [PrivateArea(x: 0, y: 0, width: 390, height: 60)])
                    try await outbound.write(.binary(ByteBuffer(data: header.encode(image: jpeg(index, size: 20_000)))))
                    sent += 1
                    // Read until this frame's acknowledgement arrives (events may come in between).
                    while let message = try await iterator.next() {
                        guard case .text(let text) = message, let ack = try? JSONDecoder().decode(FrameAck.self, from: Data(text.utf8)),
                            ack.sequence != nil || ack.type == "frame.rejected"
                        else { continue }
                        acks.append(ack)
                        break
                    }
                    setup.clock.advance(by: 200)
                }
                _ = sent
                try await outbound.close(.normalClosure, reason: nil)
            }
            #expect(acks.all.map(\.type) == Array(repeating: "frame.accepted", count: 10))
            _ = try await viewer.value
            #expect(seen.all.last == 9)
            #expect(seen.all == seen.all.sorted())
            stalled.cancel()
            let result = try await stats(setup, session.id)
            #expect(result.accepted == 10)
            #expect(result.privateAreas == [PrivateArea(x: 0, y: 0, width: 390, height: 60)], "the declared private areas are kept")

            // Garbage on the socket is rejected with a reason, and the socket stays usable: a frame to a session
            // that is not the visitor's is rejected too, its acknowledgement naming the frame it answers.
            let rejectedBefore = try await setup.server.control.stats(account: "desk").frames.rejected
            let refused = ListBox<FrameAck>()
            try await WebSocketClient.connect(url: "\(wsBase)/mobile/v1/events?token=\(token)", logger: logger) { inbound, outbound, _ in
                try await outbound.write(.binary(ByteBuffer(bytes: [1, 2, 3])))
                let stray = FrameHeader(sessionId: "no-such-session", sequence: 7, captureTime: setup.clock.now(), width: 390, height: 844)
                try await outbound.write(.binary(ByteBuffer(data: stray.encode(image: jpeg(99)))))
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    guard case .text(let text) = message, let ack = try? JSONDecoder().decode(FrameAck.self, from: Data(text.utf8)),
                        ack.type.hasPrefix("frame.")
                    else { continue }
                    refused.append(ack)
                    if refused.all.count == 2 { break }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            #expect(refused.all.map(\.type) == ["frame.rejected", "frame.rejected"])
            #expect(refused.all.first?.sessionId == nil && refused.all.first?.sequence == nil, "a header that does not decode names nothing")
            #expect(refused.all.last?.sessionId == "no-such-session" && refused.all.last?.sequence == 7)
            #expect(
                try await setup.server.control.stats(account: "desk").frames.rejected == rejectedBefore + 2,
                "frames refused before they reach a session count in the account's stats")
        }
    }

    @Test("the uploader never exceeds the rate and skips unchanged screens")
    func uploader() async throws {
        try await withSetup { setup in
            let session = try await setup.app.startCoBrowsing(in: setup.conversationId)
            let clock = setup.clock
            let uploader = CoBrowsingUploader(client: setup.app, sessionId: session.id, maxFps: session.maxFps, now: { clock.now() })
            var outcomes: [CoBrowsingUploader.Outcome] = []
            for index in 0..<12 {
                outcomes.append(try await uploader.submit(image: jpeg(index / 2), width: 390, height: 844))
                clock.advance(by: 50)
            }
            let sent = outcomes.filter { if case .sent(let ack) = $0 { return ack.type == "frame.accepted" } else { return false } }
            let refused = outcomes.filter { outcome in
                guard case .sent(let ack) = outcome else { return false }
                return ack.type != "frame.accepted"
            }
            #expect(refused.isEmpty, "the server never had to throttle the uploader")
            #expect(sent.count == 4, "at t = 0, 150, 350 and 550 ms: due on the schedule less the 50 ms tolerance")
            #expect(outcomes.contains(.unchanged))
            #expect(try await stats(setup, session.id).throttled == 0)
        }
    }

    @Test("either side finds the conversation's open session, and none (204) before it is requested or once it stops")
    func openSessionOfConversation() async throws {
        try await withSetup { setup in
            #expect(try await setup.agent.openCoBrowsingSession(in: setup.conversationId) == nil)
            #expect(try await setup.app.openCoBrowsingSession(in: setup.conversationId) == nil)
            let requested = try await setup.agent.requestCoBrowsing(in: setup.conversationId)
            let found = try #require(try await setup.app.openCoBrowsingSession(in: setup.conversationId))
            #expect(found.id == requested.id && found.state == "REQUESTED")
            _ = try await setup.app.acceptCoBrowsing(found.id)
            let active = try #require(try await setup.agent.openCoBrowsingSession(in: setup.conversationId))
            #expect(active.id == requested.id && active.state == "ACTIVE")
            _ = try await setup.agent.stopCoBrowsing(active.id)
            #expect(try await setup.agent.openCoBrowsingSession(in: setup.conversationId) == nil)
            #expect(try await setup.app.openCoBrowsingSession(in: setup.conversationId) == nil)
            #expect(try await setup.agent.coBrowsingSession(active.id).state == "ENDED")
        }
    }

    @Test("a visitor shares the screen in at most two conversations at once; a third is a 409 until one stops")
    func openSessionsPerVisitor() async throws {
        try await withSetup { setup in
            let first = try await setup.app.startCoBrowsing(in: setup.conversationId)
            let second = try await setup.app.startConversation(engagementType: "MOBILE_COBROWSING_REQUEST")
            _ = try await setup.app.startCoBrowsing(in: second.id)
            let third = try await setup.app.startConversation(engagementType: "MOBILE_COBROWSING_REQUEST")
            do throws(CollabClientError) {
                _ = try await setup.app.startCoBrowsing(in: third.id)
                Issue.record("a third open session was accepted")
            } catch {
                #expect(error.code == .conflict && error.message.contains("stop one first"), "\(error)")
            }
            _ = try await setup.app.stopCoBrowsing(first.id)
            #expect(try await setup.app.startCoBrowsing(in: third.id).state == "ACTIVE")
        }
    }

    @Test("co-browsing ends with the conversation")
    func endsWithConversation() async throws {
        try await withSetup { setup in
            let session = try await setup.app.startCoBrowsing(in: setup.conversationId)
            _ = try await setup.agent.end(setup.conversationId)
            #expect(try await setup.app.coBrowsingSession(session.id).state == "ENDED")
        }
    }
}
