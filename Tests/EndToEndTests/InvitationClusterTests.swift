import CollabClient
import CollabWire
import Foundation
import Testing

/// Invitation targets and a user's locale in a cluster (PostgreSQL's change log): what one replica
/// stores, another reads. Needs `MOCK_COLLAB_TEST_POSTGRES`.
@Suite(
    "Invitation targets and locales across replicas", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"] != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)")
)
struct InvitationClusterTests {
    @Test("a secondary target added on one replica is offered on another; a locale set on one is answered by another's login")
    func acrossReplicas() async throws {
        let (_, replicas) = try await ClusterReplicaTests.replicas(2)
        func call(_ replica: ServerProcess, _ method: String, _ path: String, _ body: String? = nil, as user: String = "admin-d") async throws
            -> (Int, [String: Any])
        {
            let client = AdminClient(baseURL: replica.baseURL, credentials: .basic(username: user, password: "pw")).transport
            let response = try await client.raw(method, "/app/rest/v4/\(path)", body: body.map { Data($0.utf8) })
            return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
        }
        func personId(_ username: String) async throws -> String {
            let (_, user) = try await call(replicas[0], "GET", "users/getByUsername?username=\(username)")
            let (_, person) = try await call(
                replicas[0], "GET", "persons/getBySource?personSource=USER_DB&sourceId=\(try #require(user["id"] as? String))")
            return try #require(person["id"] as? String)
        }
        let app = VisitorClient(configuration: ClientConfiguration(baseURL: replicas[0].baseURL, apiKey: "desk-key", deviceId: "cluster-invite"))
        try await app.start(liveEvents: false)
        let conversation = try await app.startConversation(topic: "across replicas")
        let (agentA, agentB) = (try await personId("agent-a"), try await personId("agent-b"))
        let (invited, invitation) = try await call(
            replicas[0], "POST", "invitations/inviteAgentToConversation", #"{"conversationId":"\#(conversation.id)","agentPersonId":"\#(agentA)"}"#
        )
        #expect(invited == 200)
        let id = try #require(invitation["id"] as? String)
        #expect(try await call(replicas[0], "POST", "invitations/\(id)/addSecondaryInvitationTarget", #"{"personId":"\#(agentB)"}"#).0 == 200)
        let (_, read) = try await call(replicas[1], "GET", "invitations/\(id)/read")
        #expect((read["secondaryInvitationTargets"] as? [[String: Any]])?.first?["personId"] as? String == agentB)
        let agentOnSecond = AgentClient(baseURL: replicas[1].baseURL)
        try await agentOnSecond.login(username: "agent-b", password: "pw")
        #expect(try await agentOnSecond.invitations().map(\.id) == [id], "the other replica offers it to the secondary target")

        #expect(try await call(replicas[0], "POST", "authenticator/setDefaultLocale", #"{"locale":"it"}"#, as: "agent-b").0 == 204)
        let login = try await AgentClient(baseURL: replicas[1].baseURL).transport.send(
            "POST", "/agent/v1/login", body: AgentLoginRequest(username: "agent-b", password: "pw"), as: AgentLoginResponse.self
        )
        #expect(login.locale == "it")
        try await app.stop()
        try await ClusterReplicaTests.stop(replicas)
    }
}
