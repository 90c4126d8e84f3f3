import CollabCore
@testable import CollabServer
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// Hidden participants: only secondary agents and bots may be hidden, and a visitor's views (its
/// conversation, its list, its live events) leave them out while agents see them marked `hidden`.
@Suite("Hidden participants")
struct HiddenParticipantTests {
    static let seed = Seed(accounts: [
        .init(
            name: "hidden", apiKeys: [.init(key: "hidden-key")],
            users: [
                .init(username: "admin-h", password: "pw", role: .admin),
                .init(username: "agent-a", password: "pw", role: .registeredUser),
                .init(username: "agent-b", password: "pw", role: .registeredUser),
            ]
        )
    ])

    /// A conversation agent-a accepted, with the bearers of its visitor and both agents.
    struct Scene {
        var conversationId: String
        var visitor: String
        var visitorPersonId: String
        var agentA: String
        var agentAPersonId: String
        var agentB: String
        var agentBPersonId: String
    }

    static func scene(_ server: InProcessServer) async throws -> Scene {
        let start = try await server.startClient(key: "hidden-key", device: "phone").decode(ClientStartResponse.self)
        let visitor = "Bearer " + start.token
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
            .decode(ConversationView.self)
        let a = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "agent-a", password: "pw"))
            .decode(AgentLoginResponse.self)
        let b = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "agent-b", password: "pw"))
            .decode(AgentLoginResponse.self)
        let accepted = try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: "Bearer " + a.token)
        #expect(accepted.status == .ok, "\(accepted.text)")
        return Scene(
            conversationId: conversation.id, visitor: visitor, visitorPersonId: start.person.id, agentA: "Bearer " + a.token,
            agentAPersonId: a.person.id, agentB: "Bearer " + b.token, agentBPersonId: b.person.id
        )
    }

    static let admin = InProcessServer.basic("admin-h", "pw")

    /// ``scene(_:)`` with agent-b added to the conversation hidden, through the Web API.
    static func sceneWithHiddenAgent(_ server: InProcessServer) async throws -> Scene {
        let scene = try await scene(server)
        let added = try await webAPI(server, scene.conversationId, "addParticipant", #"{"personId":"\#(scene.agentBPersonId)","hidden":true}"#)
        #expect(added.status == .ok, "\(added.text)")
        return scene
    }

    static func webAPI(_ server: InProcessServer, _ conversationId: String, _ operation: String, _ body: String) async throws
        -> InProcessServer.Answer
    {
        try await server.call(.post, "/app/rest/v4/conversations/\(conversationId)/\(operation)", authorization: admin, body: body)
    }

    @Test("a hidden secondary agent is in the agents' views, marked, and in no view of the visitor's until shown again")
    func visitorsViews() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let scene = try await Self.sceneWithHiddenAgent(server)
            let id = scene.conversationId

            let mine = try await server.call(.get, "/mobile/v1/conversations/\(id)", authorization: scene.visitor).decode(ConversationView.self)
            #expect(Set(mine.participants.map(\.personId)) == [scene.visitorPersonId, scene.agentAPersonId])
            #expect(mine.participants.allSatisfy { $0.hidden == nil })
            let list = try await server.call(.get, "/mobile/v1/conversations", authorization: scene.visitor).decode(ConversationList.self)
            #expect(list.conversations.first?.participants.map(\.personId) == mine.participants.map(\.personId))
            let raw = try await server.call(.get, "/mobile/v1/conversations/\(id)", authorization: scene.visitor).text
            #expect(!raw.contains(scene.agentBPersonId), "neither the hidden agent's id nor its name reaches the visitor")

            for agent in [scene.agentA, scene.agentB] {
                let seen = try await server.call(.get, "/agent/v1/conversations/\(id)", authorization: agent).decode(ConversationView.self)
                let hidden = seen.participants.filter { $0.hidden == true }.map(\.personId)
                #expect(hidden == [scene.agentBPersonId] && seen.participants.count == 3)
            }
            let agentList = try await server.call(.get, "/agent/v1/conversations", authorization: scene.agentB).decode(ConversationList.self)
            #expect(agentList.conversations.first { $0.id == id }?.participants.contains { $0.hidden == true } == true)

            let shown = try await Self.webAPI(
                server, id, "changeParticipantVisibility", #"{"personId":"\#(scene.agentBPersonId)","hidden":false}"#)
            #expect(shown.status == .ok, "\(shown.text)")
            let after = try await server.call(.get, "/mobile/v1/conversations/\(id)", authorization: scene.visitor).decode(ConversationView.self)
            #expect(after.participants.contains { $0.personId == scene.agentBPersonId && $0.hidden == nil && $0.type == "SECONDARY_AGENT" })
        }
    }

    @Test("hiding a visitor, the context person or the assigned agent is a 400 that changes nothing")
    func onlySecondaryAgentsAndBots() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let scene = try await Self.scene(server)
            let id = scene.conversationId
            let other = try await server.startClient(key: "hidden-key", device: "other-phone").decode(ClientStartResponse.self)
            let before = try await server.call(.get, "/agent/v1/conversations/\(id)", authorization: scene.agentA).decode(ConversationView.self)

            let hiddenVisitor = try await Self.webAPI(server, id, "addParticipant", #"{"personId":"\#(other.person.id)","hidden":true}"#)
            #expect(hiddenVisitor.status == .badRequest)
            #expect(hiddenVisitor.text.contains("only secondary agents and bots may be hidden"), "\(hiddenVisitor.text)")
            for personId in [scene.visitorPersonId, scene.agentAPersonId] {
                let refused = try await Self.webAPI(server, id, "changeParticipantVisibility", #"{"personId":"\#(personId)","hidden":true}"#)
                #expect(refused.status == .badRequest, "\(refused.text)")
                #expect(refused.text.contains("hidden:"), "\(refused.text)")
            }
            let after = try await server.call(.get, "/agent/v1/conversations/\(id)", authorization: scene.agentA).decode(ConversationView.self)
            #expect(after == before, "a refused change leaves the conversation as it was")

            // A bot may be hidden: the visitor does not see it.
            let bot = try await server.call(
                .post, "/app/rest/v4/persons/createOrUpdateBot", authorization: Self.admin, body: #"{"sourceId":"watch-bot","firstName":"Watch"}"#
            )
            struct Created: Decodable { var id: String }
            let botId = try bot.decode(Created.self).id
            let hiddenBot = try await Self.webAPI(server, id, "addParticipant", #"{"personId":"\#(botId)","hidden":true}"#)
            #expect(hiddenBot.status == .ok, "\(hiddenBot.text)")
            let seen = try await server.call(.get, "/mobile/v1/conversations/\(id)", authorization: scene.visitor).decode(ConversationView.self)
            #expect(seen.participants.map(\.personId) == before.participants.map(\.personId), "the hidden bot is not the visitor's to see")

            // Showing someone who is not hidden asks for nothing and is allowed, whoever it is.
            let noChange = try await Self.webAPI(
                server, id, "changeParticipantVisibility", #"{"personId":"\#(scene.agentAPersonId)","hidden":false}"#)
            #expect(noChange.status == .ok, "\(noChange.text)")
        }
    }

    @Test("a hidden agent who ends the conversation is not named to the visitor as the one who ended it")
    func hiddenEnder() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let scene = try await Self.sceneWithHiddenAgent(server)
            let id = scene.conversationId
            let ended = try await server.call(
                .post, "/agent/v1/conversations/\(id)/end", authorization: scene.agentB, body: EndConversationRequest())
            #expect(try ended.decode(ConversationView.self).endedBy == scene.agentBPersonId, "the agent who ended it is told it did")
            let mine = try await server.call(.get, "/mobile/v1/conversations/\(id)", authorization: scene.visitor).decode(ConversationView.self)
            #expect(mine.state == "ENDED" && mine.endedBy == nil)
            let agents = try await server.call(.get, "/agent/v1/conversations/\(id)", authorization: scene.agentA).decode(ConversationView.self)
            #expect(agents.endedBy == scene.agentBPersonId)
        }
    }

    @Test("a live event's conversation leaves hidden participants out of the visitors' form only; without any, both audiences share one form")
    func liveEventForms() throws {
        var conversation = Conversation(
            id: "c", accountId: "acc", topic: nil, recipient: .init(type: .account, id: "acc"), initialEngagementType: .chatRequest,
            creationTimestamp: 1
        )
        var watcher = Participation(personId: "watcher", type: .secondaryAgent, joinedTimestamp: 3)
        watcher.hidden = true
        conversation.participants = [
            Participation(personId: "visitor", type: .contextPerson, joinedTimestamp: 1),
            Participation(personId: "agent", type: .assignedAgent, joinedTimestamp: 2), watcher,
        ]
        var event = DomainEvent(
            kind: .messageState, accountId: "acc", timestamp: 4, conversation: conversation, personIds: ["visitor"],
            detail: ["state": "READ", "personId": "watcher"]
        )
        event.participantNames = ["visitor": "V", "agent": "A", "watcher": "W"]
        let published = PublishedEvent(id: 9, event: event)
        let decoder = JSONDecoder()
        let visitors = try decoder.decode(LiveEvent.self, from: Data(published.text(for: .visitor).utf8))
        let agents = try decoder.decode(LiveEvent.self, from: Data(published.text(for: .agent).utf8))
        #expect(visitors.conversation?.participants.map(\.personId) == ["visitor", "agent"])
        #expect(!published.text(for: .visitor).contains("watcher") && !published.text(for: .visitor).contains("\"W\""))
        #expect(agents.conversation?.participants.map(\.personId) == ["visitor", "agent", "watcher"])
        #expect(agents.conversation?.participants.last?.hidden == true && agents.conversation?.participants.last?.displayName == "W")
        #expect(visitors.detail == ["state": "READ"] && agents.detail == ["state": "READ", "personId": "watcher"], "nor its detail names the hidden")

        var shown = event
        shown.conversation?.participants[2].hidden = false
        let plain = PublishedEvent(id: 10, event: shown)
        #expect(plain.text(for: .visitor) == plain.text(for: .agent), "without hidden participants both audiences get one form")
    }
}
