import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// A visitor trying ids of another visitor's conversation, call or co-browsing session of the same
/// account is told they do not exist — the answer an unknown id gets — so no id is confirmed.
@Suite("Another visitor's ids are not confirmed")
struct VisitorOracleTests {
    static let seed = Seed(accounts: [
        .init(
            name: "shop", apiKeys: [.init(key: "shop-key")],
            users: [.init(username: "agent-s", password: "pw", role: .registeredUser)]
        )
    ])

    @Test("co-browsing and calls in another visitor's conversation answer 404 with the unknown id's body, and change nothing")
    func sameAccount() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let owner = try await server.visitorBearer(key: "shop-key", device: "owner")
            let prober = try await server.visitorBearer(key: "shop-key", device: "prober")
            let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: owner, body: StartConversationRequest())
                .decode(ConversationView.self)
            let agent = try await server.agentBearer("agent-s", "pw")
            _ = try await server.call(.put, "/agent/v1/presence", authorization: agent, body: PresenceRequest(presence: "ONLINE"))
            #expect(try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: agent).status == .ok)
            let session = try await server.call(.post, "/mobile/v1/conversations/\(conversation.id)/cobrowsing", authorization: owner)
                .decode(CoBrowsingSessionView.self)

            let probes: [(String, String, (any Encodable & Sendable)?)] = [
                ("conversations/\(conversation.id)/cobrowsing", "conversations/unknown-id/cobrowsing", nil),
                ("conversations/\(conversation.id)/calls", "conversations/unknown-id/calls", StartCallRequest(callType: "AUDIO")),
                ("cobrowsing/\(session.id)/stop", "cobrowsing/unknown-id/stop", nil),
                ("cobrowsing/\(session.id)/accept", "cobrowsing/unknown-id/accept", nil),
            ]
            for (real, unknown, body) in probes {
                let answer = try await server.call(.post, "/mobile/v1/" + real, authorization: prober, body: body)
                let reference = try await server.call(.post, "/mobile/v1/" + unknown, authorization: prober, body: body)
                #expect(answer.status == .notFound && reference.status == .notFound, "\(real): \(answer.status) \(answer.text)")
                let code = try answer.decode(APIErrorBody.self).type
                #expect(code == (try reference.decode(APIErrorBody.self)).type, "\(real)")
            }
            let still = try await server.call(.get, "/mobile/v1/conversations/\(conversation.id)/cobrowsing", authorization: owner)
                .decode(CoBrowsingSessionView.self)
            #expect(still.state == "ACTIVE", "the prober stopped nothing")
        }
    }
}
