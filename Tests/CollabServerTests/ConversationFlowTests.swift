import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

@Suite("Conversations through the queue")
struct ConversationFlowTests {
    @Test("a whole conversation: visitor in area A, agent filtering on A accepts, messages both ways in order, end")
    func wholeConversation() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let agentA = try await agent(server, "agent-a")
            let agentB = try await agent(server, "agent-b")
            try await agentA.setPresence("ONLINE")
            let streamA = EventCollector(try await agentA.connectEvents(namedAreas: ["area-a"]).events)
            let streamB = EventCollector(try await agentB.connectEvents(namedAreas: ["area-b"]).events)

            let app = visitor(server, device: "phone-1", namedArea: "area-a")
            let started = try await app.start()
            #expect(started.person.type == "VISITOR")
            let appEvents = EventCollector(app.events)
            #expect(try await app.agentAvailability().state == "AVAILABLE")

            let conversation = try await app.startConversation(topic: "Card blocked")
            #expect(conversation.state == "QUEUED")
            #expect(conversation.recipient.type == "NAMED_AREA")

            // Only the agent filtering on area A sees it, live and in the queue.
            try await streamA.wait(for: "queued in A") { $0.type == "conversation.queued" && $0.conversation?.id == conversation.id }
            #expect(try await agentA.queue(namedAreas: ["area-a"]).map(\.conversation.id) == [conversation.id])
            #expect(try await agentB.queue(namedAreas: ["area-b"]).isEmpty)
            #expect(try await agentB.queue().map(\.conversation.id) == [conversation.id], "without a filter every queued request shows")

            let accepted = try await agentA.accept(conversation.id)
            #expect(accepted.state == "ACTIVE")
            #expect(accepted.assigneePersonId == agentA.session?.person.id)
            let active = try await appEvents.wait(for: "visitor sees active") { $0.type == "conversation.active" }
            let named = active.conversation?.participants.map { [$0.type: $0.displayName] }
            #expect(named == [["CONTEXT_PERSON": nil], ["ASSIGNED_AGENT": "Agent A"]], "the live event names participants as answers do")
            #expect(try await agentA.queue(namedAreas: ["area-a"]).isEmpty)

            // Messages both ways, in order, live on both sides.
            for index in 1...5 {
                _ = try await app.send("visitor \(index)", in: conversation.id)
                _ = try await agentA.send("agent \(index)", in: conversation.id)
            }
            let atAgent = try await streamA.wait(count: 10) { $0.type == "conversation.new_message" }
            let atVisitor = try await appEvents.wait(count: 10) { $0.type == "conversation.new_message" }
            let expected = (1...5).flatMap { ["visitor \($0)", "agent \($0)"] }
            #expect(atAgent.compactMap(\.message?.text) == expected)
            #expect(atVisitor.compactMap(\.message?.text) == expected)
            #expect(atVisitor.compactMap(\.message?.sequence) == Array(1...10))
            let page = try await app.messages(in: conversation.id, after: 4, limit: 3)
            #expect(page.messages.map(\.sequence) == [5, 6, 7])
            #expect(page.hasMore)

            // Agent B never saw anything of this conversation after it left the queue.
            #expect(!streamB.events.contains { $0.type == "conversation.new_message" })

            let ended = try await agentA.end(conversation.id)
            #expect(ended.state == "ENDED")
            #expect(ended.endReason == "ENDED_BY_PARTICIPANT")
            try await appEvents.wait(for: "visitor sees ended") { $0.type == "conversation.ended" }
            do throws(CollabClientError) {
                _ = try await app.send("too late", in: conversation.id)
                Issue.record("message into an ended conversation accepted")
            } catch {
                #expect(error.code == .conflict)
            }

            // The Web API shows the same conversation the vendor's way.
            let admin = server.admin("admin-d", "pw")
            let history = try await admin.transport.send(
                "GET", "/app/rest/v4/conversationhistory/\(conversation.id)/read", as: WebConversationHistory.self
            )
            #expect(history.stateChanges?.map(\.state) == ["CREATED", "ONBOARDING", "QUEUED", "ACTIVE", "OFFBOARDING", "ENDED"])
            #expect(history.participants?.compactMap(\.participationType).sorted() == ["ASSIGNED_AGENT", "CONTEXT_PERSON"])
            #expect(history.endPerson?.username == "agent-a")
            try await app.stop()
        }
    }

    @Test("when two agents accept the same conversation exactly one wins")
    func acceptRace() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let agents = try await [agent(server, "agent-a"), agent(server, "agent-b"), agent(server, "agent-c")]
            let app = visitor(server, device: "phone-race")
            try await app.start(liveEvents: false)
            for round in 0..<10 {
                let conversation = try await app.startConversation(topic: "race \(round)")
                let outcomes = await withTaskGroup(of: Result<String, CollabClientError>.self) { group in
                    for agent in agents {
                        group.addTask {
                            do throws(CollabClientError) {
                                let accepted = try await agent.accept(conversation.id)
                                return .success(accepted.assigneePersonId ?? "")
                            } catch {
                                return .failure(error)
                            }
                        }
                    }
                    var outcomes: [Result<String, CollabClientError>] = []
                    for await outcome in group { outcomes.append(outcome) }
                    return outcomes
                }
                let winners = outcomes.compactMap { try? $0.get() }
                #expect(winners.count == 1, "round \(round): \(outcomes)")
                let losers = outcomes.compactMap { outcome -> CollabClientError? in
                    if case .failure(let error) = outcome { return error }
                    return nil
                }
                #expect(losers.count == 2)
                #expect(losers.allSatisfy { $0.code == .conflict && $0.message.contains("another agent") })
                let final = try await app.conversation(conversation.id)
                #expect(final.assigneePersonId == winners.first)
                #expect(final.participants.filter { $0.type == "ASSIGNED_AGENT" }.count == 1)
            }
        }
    }

    @Test("participants are named as the start answer names its person: an agent by display name, an unnamed visitor not at all")
    func participantNames() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let desk = try await agent(server, "agent-a")
            let app = visitor(server, device: "phone-names")
            let started = try await app.start(liveEvents: false)
            #expect(started.person.displayName == nil, "an anonymous visitor has no name")
            let conversation = try await app.startConversation(topic: "names")
            _ = try await desk.accept(conversation.id)
            let names = try await app.conversation(conversation.id).participants.map { [$0.type: $0.displayName] }
            #expect(names == [["CONTEXT_PERSON": nil], ["ASSIGNED_AGENT": "Agent A"]])
        }
    }

    @Test("decline hides a request from the decliner; requeue puts an active conversation back, FIFO by queue time")
    func declineAndRequeue() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let agentA = try await agent(server, "agent-a")
            let agentB = try await agent(server, "agent-b")
            let app = visitor(server, device: "phone-q")
            try await app.start(liveEvents: false)
            let first = try await app.startConversation(topic: "first")
            let second = try await app.startConversation(topic: "second")
            let third = try await app.startConversation(topic: "third")
            #expect(try await agentA.queue().map(\.conversation.id) == [first.id, second.id, third.id])
            #expect(try await agentA.queue().map(\.position) == [1, 2, 3])

            _ = try await agentA.decline(second.id)
            #expect(try await agentA.queue().map(\.conversation.id) == [first.id, third.id])
            #expect(try await agentB.queue().map(\.conversation.id) == [first.id, second.id, third.id])

            _ = try await agentB.accept(first.id)
            let requeued = try await agentB.requeue(first.id)
            #expect(requeued.state == "QUEUED")
            #expect(requeued.assigneePersonId == nil)
            #expect(try await agentB.queue().map(\.conversation.id) == [second.id, third.id, first.id], "a requeued conversation queues anew")
            do throws(CollabClientError) {
                _ = try await agentA.requeue(third.id)
                Issue.record("requeued a queued conversation")
            } catch {
                #expect(error.code == .forbidden || error.code == .conflict)
            }
        }
    }

    @Test("the queue of one account is invisible to every other account")
    func crossAccountQueue() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "phone-x", namedArea: "area-a")
            try await app.start()
            let conversation = try await app.startConversation()
            let outsider = try await agent(server, "agent-x")
            let outsiderStream = try await outsider.connectEvents()
            let outsiderEvents = EventCollector(outsiderStream.events)
            _ = try await app.send("hello", in: conversation.id)
            #expect(try await outsider.queue().isEmpty)
            for call in ["accept", "decline", "end"] {
                let response = try await outsider.transport.raw("POST", "/agent/v1/conversations/\(conversation.id)/\(call)")
                #expect(response.status == 404, "\(call) → \(response.status)")
                let body = try JSONDecoder().decode(APIErrorBody.self, from: response.body)
                #expect(body.type == "NOT_FOUND")
            }
            let read = try await outsider.transport.raw("GET", "/agent/v1/conversations/\(conversation.id)/messages")
            #expect(read.status == 404)
            let webRead = try await server.admin("agent-x", "pw").transport.raw("GET", "/app/rest/v4/conversations/\(conversation.id)/read")
            #expect(webRead.status == 404)
            // Another visitor of the same account cannot see it either.
            let stranger = visitor(server, device: "phone-stranger")
            try await stranger.start()
            #expect(try await stranger.conversations().isEmpty)
            do throws(CollabClientError) {
                _ = try await stranger.send("intrusion", in: conversation.id)
                Issue.record("another visitor wrote into the conversation")
            } catch {
                #expect(error.code == .notFound)
            }
            // Everything published before the sync reached the outsider's connection first.
            try await outsiderEvents.sync(outsiderStream)
            #expect(outsiderEvents.events.isEmpty, "the other account's agent received \(outsiderEvents.events.map(\.type))")
        }
    }

    @Test("a visitor who reconnects with the last event id misses nothing")
    func resume() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let agentA = try await agent(server, "agent-a")
            let app = visitor(server, device: "phone-resume")
            try await app.start()
            let appEvents = EventCollector(app.events)
            let conversation = try await app.startConversation()
            _ = try await agentA.accept(conversation.id)
            try await appEvents.wait(for: "active") { $0.type == "conversation.active" }
            let live = try #require(app.liveConnection)
            for round in 0..<5 {
                live.reconnect()
                for index in 0..<4 { _ = try await agentA.send("r\(round)-m\(index)", in: conversation.id) }
            }
            let messages = try await appEvents.wait(count: 20) { $0.type == "conversation.new_message" }
            #expect(messages.compactMap(\.message?.sequence) == Array(1...20), "lost or duplicated events across reconnects")
            #expect(live.connectionCount >= 2)
            let ids = appEvents.events.map(\.id).filter { $0 > 0 }
            #expect(ids == ids.sorted())
            #expect(Set(ids).count == ids.count)
        }
    }

    @Test("anonymous visitors keep their identity per device; access tokens identify visitors")
    func identities() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let first = try await visitor(server, device: "device-same").start(liveEvents: false)
            let second = try await visitor(server, device: "device-same").start(liveEvents: false)
            let other = try await visitor(server, device: "device-other").start(liveEvents: false)
            #expect(first.person.id == second.person.id)
            #expect(first.person.id != other.person.id)
            #expect(first.token != second.token)

            let token = try await server.control.issueToken(account: "desk", TestTokenRequest(subject: "customer-9", firstName: "Nina"))
            let identified = try await visitor(server, device: "device-3", accessToken: token.token).start(liveEvents: false)
            #expect(identified.person.sourceId == "customer-9")
            let again = try await visitor(server, device: "device-4", accessToken: token.token).start(liveEvents: false)
            #expect(again.person.id == identified.person.id, "the same user on another device is the same person")

            do throws(CollabClientError) {
                try await visitor(server, device: "d", accessToken: "not-a-token").start(liveEvents: false)
                Issue.record("bad token accepted")
            } catch {
                #expect(error.code == .authorization)
            }
            let badKey = try await server.transport(.none).raw(
                "POST", "/mobile/v1/clients", body: Data(#"{"apiKey":"nope","deviceId":"d","device":{"os":"iOS"}}"#.utf8)
            )
            #expect(badKey.status == 401)
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: badKey.body).type == "INVALID_API_KEY")
        }
    }

    @Test("app state, named area and open conversation are stored per client")
    func clientState() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "phone-state")
            let started = try await app.start(liveEvents: false)
            #expect(started.configuration.isEmpty)
            #expect(try await app.setAppState(.background).appState == "BACKGROUND")
            #expect(try await app.setNamedArea("area-b").namedAreaId != nil)
            let conversation = try await app.startConversation()
            #expect(conversation.recipient.type == "NAMED_AREA", "the client's named area routes new conversations")
            #expect(try await app.openConversation(conversation.id).openConversationId == conversation.id)
            #expect(try await app.closeConversation(conversation.id).openConversationId == nil)
            let bad = try await app.transport.raw("PUT", "/mobile/v1/clients/current/app-state", body: Data(#"{"appState":"SLEEPING"}"#.utf8))
            #expect(bad.status == 400)
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: bad.body).type == "BAD_REQUEST")
            try await app.stop()
            let after = try await app.transport.raw("GET", "/mobile/v1/clients/current")
            #expect(after.status == 401)
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: after.body).type == "AUTHORIZATION")
        }
    }
}
