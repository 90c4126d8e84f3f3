import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Calls stored per conversation are bounded: starting and ending calls in a loop cannot grow an
/// account without end, and a deleted conversation takes its calls with it (router mode).
@Suite("Calls per conversation")
struct CallBoundTests {
    @Test("a conversation holds at most its bound of calls, ended ones included; deleting it removes them")
    func callsPerConversation() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "calling-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation()
            _ = try await agentA.accept(conversation.id)
            var ids: [String] = []
            for _ in 0..<ConversationLimits.callsPerConversation {
                let call = try await agentA.startCall(in: conversation.id)
                ids.append(call.id)
                _ = try await agentA.endCall(call.id)
            }
            // calls/search for one conversation (the desk's question on every open) reads its calls.
            func search(_ conversationId: String) async throws -> [[String: Any]] {
                let body = #"{"searchFilters":[{"field":"CONVERSATION_ID","operator":{"type":"EQUALS","value":"\#(conversationId)"}}],"limit":1000}"#
                let answer = try await agentA.transport.raw("POST", "/app/rest/v4/calls/search", body: Data(body.utf8))
                #expect(answer.status == 200)
                return (try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["items"] as? [[String: Any]] ?? []
            }
            let found = try await search(conversation.id)
            #expect(Set(found.compactMap { $0["id"] as? String }) == Set(ids))
            #expect(try await search("no-such-conversation").isEmpty)
            do throws(CollabClientError) {
                _ = try await agentA.startCall(in: conversation.id)
                Issue.record("one more call than the bound was stored")
            } catch {
                #expect(error.status == 409)
                #expect(error.message.contains("maximum of \(ConversationLimits.callsPerConversation) calls"))
            }
            _ = try await agentA.end(conversation.id)
            let deleted = try await agentA.transport.raw("DELETE", "/app/rest/v4/conversations/\(conversation.id)/delete")
            #expect(deleted.status == 200 || deleted.status == 204)
            for id in [ids[0], ids[ids.count - 1]] {
                await #expect(throws: CollabClientError.self, "the deleted conversation's calls went with it") {
                    try await agentA.call(id)
                }
            }
        }
    }
}
