import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Co-browsing frame state (latest frame, throttle, statistics buffers, viewers) is freed when its
/// session ends — stopped by either side or with its conversation — and on account reset, account
/// deletion and full reset. Read through `/_mock/v1/stats`' `framesHeld`, which the ingest keeps
/// exactly (no memory measurements).
@Suite("Co-browsing frame state is freed", .serialized)
struct FrameMemoryTests {
    static let imageSize = 200_000

    struct Setup {
        let server: InProcessServer
        let app: VisitorClient
        let agent: AgentClient
        let conversationId: String
        let accountId: String
    }

    func withSetup(
        apiKey: String = "desk-key", agentName: String = "agent-a", _ body: @escaping @Sendable (Setup) async throws -> Void
    ) async throws {
        try await InProcessServer.with(seed: queueSeed, maxBodySize: 512 * 1024) { server in
            let app = visitor(server, device: "frames-phone", apiKey: apiKey)
            let started = try await app.start(liveEvents: false)
            let agentA = try await agent(server, agentName)
            let conversation = try await app.startConversation(engagementType: "MOBILE_COBROWSING_REQUEST")
            _ = try await agentA.accept(conversation.id)
            try await body(Setup(server: server, app: app, agent: agentA, conversationId: conversation.id, accountId: started.accountId))
        }
    }

    /// Starts a session and uploads one large frame; returns the session id.
    func shareOneFrame(_ setup: Setup, _ n: Int) async throws -> String {
        let session = try await setup.app.startCoBrowsing(in: setup.conversationId)
        let response = try await setup.app.transport.raw(
            "POST", "/mobile/v1/cobrowsing/\(session.id)/frames", body: jpeg(n, size: Self.imageSize), contentType: "image/jpeg",
            headers: [("x-frame-sequence", String(n)), ("x-frame-width", "390"), ("x-frame-height", "844")]
        )
        #expect(response.status == 202)
        return session.id
    }

    func held(_ setup: Setup, account: String? = nil) async throws -> StateStats.FramesHeld {
        try await setup.server.control.stats(account: account).framesHeld
    }

    @Test("400 start/upload/stop cycles leave no frame state; the final statistics stay readable")
    func freedOnStop() async throws {
        try await withSetup { setup in
            for cycle in 0..<400 {
                let session = try await shareOneFrame(setup, cycle)
                if cycle < 3 {
                    let during = try await held(setup)
                    #expect(during.sessions == 1)
                    #expect(during.bytes >= Self.imageSize)
                }
                if cycle.isMultiple(of: 2) {
                    _ = try await setup.app.stopCoBrowsing(session)
                } else {
                    let _: CoBrowsingSessionView = try await setup.agent.transport.send("POST", "/agent/v1/cobrowsing/\(session)/stop")
                }
                if cycle < 3 {
                    let after = try await held(setup)
                    #expect(after.sessions == 0)
                    #expect(after.bytes == 0)
                    let stats: CoBrowsingStats = try await setup.server.control.transport.send("GET", "/_mock/v1/cobrowsing/\(session)/stats")
                    #expect(stats.accepted == 1)
                    #expect(stats.bytes == Self.imageSize)
                    #expect(try await setup.agent.latestFrame(session) == nil)
                }
            }
            let after = try await held(setup)
            #expect(after == StateStats.FramesHeld(sessions: 0, bytes: 0, viewers: 0, endedSessions: 400))
            #expect(try await setup.server.control.stats().frames.accepted == 400)
        }
    }

    @Test("a session that ends with its conversation frees its frame state")
    func freedWithConversation() async throws {
        try await withSetup { setup in
            _ = try await shareOneFrame(setup, 1)
            #expect(try await held(setup).sessions == 1)
            _ = try await setup.agent.end(setup.conversationId)
            #expect(try await held(setup) == StateStats.FramesHeld(sessions: 0, bytes: 0, viewers: 0, endedSessions: 1))
        }
    }

    @Test("an account reset and a full reset free the frame state of running sessions")
    func freedOnReset() async throws {
        try await withSetup { setup in
            _ = try await shareOneFrame(setup, 1)
            #expect(try await held(setup, account: "desk").sessions == 1)
            _ = try await setup.server.control.reset(account: "desk")
            #expect(try await held(setup) == StateStats.FramesHeld())
            #expect(try await setup.server.control.stats(account: "desk").frames == StateStats.FrameCounts())
        }
        try await withSetup { setup in
            let session = try await shareOneFrame(setup, 1)
            _ = try await setup.app.stopCoBrowsing(session)
            _ = try await shareOneFrame(setup, 2)
            _ = try await setup.server.control.reset()
            #expect(try await held(setup) == StateStats.FramesHeld())
            #expect(try await setup.server.control.stats().frames == StateStats.FrameCounts())
        }
    }

    @Test("deleting an account frees its frame state")
    func freedOnAccountDelete() async throws {
        try await withSetup(apiKey: "other-key", agentName: "agent-x") { setup in
            _ = try await shareOneFrame(setup, 1)
            #expect(try await held(setup, account: "other").sessions == 1)
            let control = AdminClient(baseURL: setup.server.baseURL, credentials: .bearer("test-control-token"))
            try await control.accounts.delete(setup.accountId)
            #expect(try await held(setup) == StateStats.FramesHeld())
        }
    }
}
