import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// The show and hide requests the server makes of a running app, and what a named area set after the
/// start changes.
@Suite("UI requests and named areas")
struct UIRequestTests {
    @Test(
        "mobile co-browsing an agent asks for: a show request in the foreground with the UI closed, none in the background or with the UI open"
    )
    func coBrowsingShowRequest() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "cobrowse-phone")
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "show me")
            _ = try await agentA.accept(conversation.id)
            let request = { () async throws -> CoBrowsingSessionView in
                try await agentA.transport.send("POST", "/agent/v1/conversations/\(conversation.id)/cobrowsing", as: CoBrowsingSessionView.self)
            }

            // In the background, and with the UI open: no request (nothing to push for co-browsing).
            try await app.setAppState(.background)
            let first = try await request()
            let _: CoBrowsingSessionView = try await agentA.transport.send("POST", "/agent/v1/cobrowsing/\(first.id)/stop")
            try await app.setAppState(.foregroundUIOpen)
            let second = try await request()
            let _: CoBrowsingSessionView = try await agentA.transport.send("POST", "/agent/v1/cobrowsing/\(second.id)/stop")
            // In the foreground with the UI closed: the app is asked to show it, with the session.
            try await app.setAppState(.foregroundUIClosed)
            let third = try await request()
            let shown = try await events.wait(for: "show UI for co-browsing") {
                if case .showUIRequested(let request) = $0 { return request.reason == .mobileCoBrowsing }
                return false
            }
            #expect(shown == .showUIRequested(UIRequest(reason: .mobileCoBrowsing, requestedByUser: false, conversationId: conversation.id)))
            let shows = events.events.filter { if case .showUIRequested = $0 { return true } else { return false } }
            #expect(shows.count == 1, "only the request made with the UI closed: \(shows)")
            _ = third
        }
    }

    @Test("hide requests: a co-browsing layer activating with autoCollapseIndividualUiOnLayerActivation on; the collapse action where it is shown")
    func hideRequests() async throws {
        let seed = Seed(accounts: [
            .init(
                name: "desk", configuration: [UIRequests.autoCollapseKey: "true"],
                apiKeys: [.init(key: "desk-key"), .init(key: "collapse-key", configuration: [UIRequests.collapseActionKey: "true"])],
                namedAreas: [.init(siteId: "area-a")], users: [.init(username: "agent-a", password: "pw", role: .registeredUser)]
            )
        ])
        try await TestServer.with(seed: seed) { server in
            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "collapser")).token
            let app = visitor(server, device: "collapse-phone", apiKey: "collapse-key", accessToken: token)
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            // The same visitor on another device, where the collapse action is not shown.
            let tablet = visitor(server, device: "collapse-tablet", accessToken: token)
            try await tablet.start()
            let tabletEvents = ClientEventCollector(tablet.clientEvents)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "collapse")
            _ = try await agentA.accept(conversation.id)

            // The agent asks, the visitor accepts: the co-browsing layer activates, the UI collapses.
            let session = try await agentA.transport.send(
                "POST", "/agent/v1/conversations/\(conversation.id)/cobrowsing", as: CoBrowsingSessionView.self)
            let _: CoBrowsingSessionView = try await app.transport.send("POST", "/mobile/v1/cobrowsing/\(session.id)/accept")
            try await events.wait(for: "hide on layer activation") {
                $0 == .hideUIRequested(UIRequest(reason: .layerActivated, requestedByUser: false, conversationId: conversation.id))
            }

            // The collapse action: a hide request for that client alone.
            try await app.openConversation(conversation.id)
            try await app.collapse()
            try await events.wait(for: "hide by the collapse action") {
                $0 == .hideUIRequested(UIRequest(reason: .collapse, requestedByUser: true, conversationId: conversation.id))
            }
            // Where the action is off, tapping it is refused; the other device was not asked to hide.
            do {
                try await tablet.collapse()
                Issue.record("the collapse action worked where it is off")
            } catch let error as CollabClientError {
                #expect(error.code == .conflict)
            }
            // A sync on the tablet's socket: every event for it has arrived once its answer has.
            let syncId = try #require(tablet.liveConnection).requestSync()
            try await tabletEvents.wait(for: "the tablet's sync") {
                if case .live(let event) = $0 { return event.type == LiveEvent.sync && event.detail?["id"] == syncId }
                return false
            }
            #expect(
                !tabletEvents.events.contains {
                    if case .hideUIRequested(let request) = $0 { return request.reason == .collapse } else { return false }
                })
        }
    }

    @Test("a named area set after the start changes where new conversations queue, not the configuration the client started with")
    func namedAreaAfterStart() async throws {
        let seed = Seed(accounts: [
            .init(
                name: "desk", apiKeys: [.init(key: "desk-key")],
                namedAreas: [
                    .init(siteId: "area-a", configuration: [CoBrowsingConfiguration.iosMaxFpsRate: "3"]),
                    .init(siteId: "area-b", configuration: [CoBrowsingConfiguration.iosMaxFpsRate: "7"]),
                ],
                users: [.init(username: "agent-a", password: "pw", role: .registeredUser)]
            )
        ])
        try await InProcessServer.with(seed: seed) { server in
            let agentA = try await agent(server, "agent-a")
            for (device, startArea, expectedFps) in [("started-in-a", "area-a", 3), ("started-without", nil, 5)] as [(String, String?, Int)] {
                let app = visitor(server, device: device, namedArea: startArea)
                let started = try await app.start(liveEvents: false)
                #expect(started.configuration[CoBrowsingConfiguration.iosMaxFpsRate] == startArea.map { _ in "3" })
                let moved = try await app.setNamedArea("area-b")
                let conversation = try await app.startConversation(topic: "after the move")
                #expect(conversation.recipient.id == moved.namedAreaId, "new conversations queue in the area set last")
                _ = try await agentA.accept(conversation.id)
                let session: CoBrowsingSessionView = try await app.transport.send("POST", "/mobile/v1/conversations/\(conversation.id)/cobrowsing")
                #expect(session.maxFps == expectedFps, "\(device): the configuration stays the one the client started with")
            }
        }
    }
}
