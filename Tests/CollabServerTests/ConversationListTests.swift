import CollabCore
@testable import CollabServer
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// A person's conversation list is bounded and pages: newest first, ended ones the last ended first,
/// `before` reading on without a gap; an ended conversation names who ended it.
@Suite("Conversation lists")
struct ConversationListTests {
    static let seed = Seed(accounts: [
        .init(
            name: "list", apiKeys: [.init(key: "list-key")],
            users: [.init(username: "agent-l", password: "pw", role: .registeredUser)]
        )
    ])

    @Test("a visitor's list pages newest first without a gap; a bad limit or before is a 400")
    func visitorPages() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let start = try await server.startClient(key: "list-key", device: "lister")
            let visitor = "Bearer " + (try start.decode(ClientStartResponse.self)).token
            var created: [String] = []
            for index in 0..<5 {
                let conversation = try await server.call(
                    .post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest(topic: "topic \(index)"))
                created.append(try conversation.decode(ConversationView.self).id)
                if index < 3 {
                    _ = try await server.call(
                        .post, "/mobile/v1/conversations/\(created[index])/end", authorization: visitor, body: EndConversationRequest())
                }
            }
            var paged: [String] = []
            var path = "/mobile/v1/conversations?limit=2"
            while true {
                let page = try await server.call(.get, path, authorization: visitor).decode(ConversationList.self)
                #expect(page.conversations.count <= 2)
                paged += page.conversations.map(\.id)
                guard page.hasMore, let last = page.conversations.last?.id else { break }
                path = "/mobile/v1/conversations?limit=2&before=\(last)"
            }
            let all = try await server.call(.get, "/mobile/v1/conversations", authorization: visitor).decode(ConversationList.self)
            #expect(!all.hasMore && all.conversations.map(\.id) == paged)
            #expect(Set(paged) == Set(created) && paged.count == created.count, "every conversation once")
            let ended = all.conversations.filter { $0.state == "ENDED" }
            let personId = try start.decode(ClientStartResponse.self).person.id
            #expect(ended.count == 3 && ended.allSatisfy { $0.endedBy == personId })
            #expect(all.conversations.filter { $0.state != "ENDED" }.allSatisfy { $0.endedBy == nil })
            for bad in ["limit=0", "limit=1001", "limit=x", "before=no-such-id"] {
                #expect(try await server.call(.get, "/mobile/v1/conversations?\(bad)", authorization: visitor).status == .badRequest, "\(bad)")
            }
        }
    }

    @Test("an agent's ended conversations come last ended first")
    func agentEndedOrder() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let agent = try await server.agentBearer("agent-l", "pw")
            _ = try await server.call(.put, "/agent/v1/presence", authorization: agent, body: PresenceRequest(presence: "ONLINE"))
            var ids: [String] = []
            for index in 0..<3 {
                let visitor = try await server.visitorBearer(key: "list-key", device: "d\(index)")
                let id = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
                    .decode(ConversationView.self).id
                #expect(try await server.call(.post, "/agent/v1/conversations/\(id)/accept", authorization: agent).status == .ok)
                ids.append(id)
            }
            // Ended in another order than they were made: the second, the first, the third.
            for index in [1, 0, 2] {
                server.server.environment.clock.advance(by: 1_000)
                _ = try await server.call(.post, "/agent/v1/conversations/\(ids[index])/end", authorization: agent, body: EndConversationRequest())
            }
            let page = try await server.call(.get, "/agent/v1/conversations?state=ENDED&limit=2", authorization: agent).decode(ConversationList.self)
            #expect(page.conversations.map(\.id) == [ids[2], ids[0]] && page.hasMore)
            let rest = try await server.call(.get, "/agent/v1/conversations?state=ENDED&limit=2&before=\(ids[0])", authorization: agent)
                .decode(ConversationList.self)
            #expect(rest.conversations.map(\.id) == [ids[1]] && !rest.hasMore)
        }
    }
}
