import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// Secondary targets and deputy delegations across accounts (router mode): another account's admin
/// finds neither the invitation nor the conversation, another account's agent is no secondary target,
/// and none of it changes anything.
@Suite("Invitation targets: one account only")
struct InvitationTargetIsolationTests {
    @Test("another account's invitation, conversation or agent is refused and nothing changes")
    func isolation() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let start = try await server.call(
                .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: "alpha-key", deviceId: "alpha-phone", device: .init(os: "iOS"))
            ).decode(ClientStartResponse.self)
            let conversation = try await server.call(
                .post, "/mobile/v1/conversations", authorization: "Bearer " + start.token, body: StartConversationRequest()
            ).decode(ConversationView.self)
            func personId(_ username: String, _ admin: String, _ password: String) async throws -> String {
                let user = try await server.json(.get, "users/getByUsername?username=\(username)", as: admin, password: password).object
                let userId = try #require(user["id"] as? String)
                let person = try await server.json(.get, "persons/getBySource?personSource=USER_DB&sourceId=\(userId)", as: admin, password: password)
                return try #require(person.object["id"] as? String)
            }
            let alphaAgent = try await personId("alpha-agent", "alpha-admin", "pw-a")
            let betaAgent = try await personId("beta-agent", "beta-admin", "pw-b")
            let invited = try await server.json(
                .post, "invitations/inviteAgentToConversation", body: #"{"conversationId":"\#(conversation.id)","agentPersonId":"\#(alphaAgent)"}"#
            )
            let id = try #require(invited.object["id"] as? String)
            let before = try server.stats()
            let rows: [(String, String, String, Int, String)] = [
                ("invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(betaAgent)"}"#, "alpha-admin", 400, betaAgent),
                ("invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(alphaAgent)"}"#, "alpha-admin", 400, "main target"),
                ("invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(betaAgent)"}"#, "beta-admin", 404, id),
                ("invitations/\(id)/cancelSecondaryInvitationTarget", #"{"personId":"\#(alphaAgent)"}"#, "alpha-admin", 404, alphaAgent),
                ("invitations/\(id)/cancelSecondaryInvitationTarget", #"{"personId":"\#(alphaAgent)"}"#, "beta-admin", 404, id),
                ("invitations/startDeputyDelegation", #"{"conversationId":"\#(conversation.id)"}"#, "beta-admin", 404, conversation.id),
                ("invitations/startDeputyDelegation", #"{"conversationId":"\#(conversation.id)"}"#, "alpha-admin", 400, "conversationId"),
            ]
            for (path, body, user, status, named) in rows {
                let answer = try await server.json(.post, path, as: user, password: user.hasPrefix("beta") ? "pw-b" : "pw-a", body: body)
                let message = answer.object["errorMessage"] as? String ?? ""
                #expect(answer.status == status && message.contains(named), "\(path) as \(user) → \(answer.status) \(message)")
            }
            #expect(try server.stats() == before, "refused calls changed state")
        }
    }
}
