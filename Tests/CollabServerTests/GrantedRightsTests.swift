import CollabCore
@testable import CollabServer
import CollabWire
import Foundation
import HTTPTypes
import NIOCore
import Testing

/// Rights an admin withholds stay withheld: an agent cannot grant itself a conversation permission
/// through the conversation's own configuration, and a supervisor, whom the vendor lets update teams,
/// changes only its own team and those below it and never moves one (a team decides whose queue an
/// agent works). Router mode: each refusal is a 403 that changes nothing.
@Suite("Rights that stay withheld")
struct GrantedRightsTests {
    static let seed: Seed = {
        var account = Seed.AccountSeed(
            name: "rights", configuration: [AccountState.RecordingRule.manualKey: "false"], apiKeys: [.init(key: "rights-key")],
            users: [
                .init(username: "admin-r", password: "pw", role: .admin),
                .init(username: "agent-r", password: "pw", role: .registeredUser, teamId: "team-east"),
                .init(username: "lead-r", password: "pw", role: .supervisor, teamId: "team-east"),
            ]
        )
        account.entities = [
            "teams": [
                .object(["id": .string("team-east"), "name": .string("East")]),
                .object(["id": .string("team-east-1"), "name": .string("East One"), "parentId": .string("team-east")]),
                .object(["id": .string("team-west"), "name": .string("West")]),
            ]
        ]
        return Seed(accounts: [account])
    }()

    static let admin = InProcessServer.basic("admin-r", "pw")
    static let agent = InProcessServer.basic("agent-r", "pw")
    static let lead = InProcessServer.basic("lead-r", "pw")
    static let manual = AccountState.RecordingRule.manualKey

    /// The conversation's configuration as the Web API reads it (`expand=configuration`).
    static func configuration(_ server: InProcessServer, _ id: String) async throws -> [String: String] {
        let read = try await server.call(.get, "/app/rest/v4/conversations/\(id)/read?expand=configuration", authorization: admin)
        #expect(read.status == .ok, "\(read.text)")
        let object = try JSONSerialization.jsonObject(with: Data(read.body.readableBytesView)) as? [String: Any]
        return object?["configuration"] as? [String: String] ?? [:]
    }

    static func updateConfiguration(_ server: InProcessServer, _ id: String, as caller: String, _ body: [String: String]) async throws
        -> InProcessServer.Answer
    {
        try await server.call(
            .post, "/app/rest/v4/conversations/\(id)/updateConfiguration", authorization: caller,
            body: String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
    }

    @Test("below ADMIN, updateConfiguration keeps a conversation's permission keys as they are: another value is a 403; as read, a no-op")
    func conversationPermissions() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let start = try await server.startClient(key: "rights-key", device: "phone").decode(ClientStartResponse.self)
            let visitor = "Bearer " + start.token
            let id = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
                .decode(ConversationView.self).id
            let before = try await Self.configuration(server, id)

            let granted = try await Self.updateConfiguration(server, id, as: Self.agent, [Self.manual: "true"])
            #expect(granted.status == .forbidden && granted.text.contains(Self.manual), "\(granted.text)")
            #expect(try await Self.configuration(server, id) == before, "a refused update changed the configuration")
            let scheduling = AccountState.ScheduledTimeRule.allowedTypesKey
            let rescheduling = try await Self.updateConfiguration(server, id, as: Self.agent, [scheduling: "SECONDARY_AGENT,ASSIGNED_AGENT"])
            #expect(rescheduling.status == .forbidden && rescheduling.text.contains(scheduling), "\(rescheduling.text)")

            // The value the conversation works under (the account's), with a key no permission hangs on: accepted,
            // and the permission is not copied into the conversation's own layer, so the account's later word reaches it.
            var echoed = before
            echoed["com.unblu.conversation.example"] = "on"
            echoed[Self.manual] = "false"
            #expect(try await Self.updateConfiguration(server, id, as: Self.agent, echoed).status == .ok)
            let echoedBack = try await Self.configuration(server, id)
            #expect(echoedBack["com.unblu.conversation.example"] == "on" && echoedBack[Self.manual] == nil)

            // An admin grants it on this conversation; the agent's own layer without it keeps the admin's grant.
            #expect(try await Self.updateConfiguration(server, id, as: Self.admin, [Self.manual: "true"]).status == .ok)
            #expect(try await Self.configuration(server, id)[Self.manual] == "true")
            #expect(try await Self.updateConfiguration(server, id, as: Self.agent, ["com.unblu.conversation.other": "x"]).status == .ok)
            let kept = try await Self.configuration(server, id)
            #expect(kept[Self.manual] == "true" && kept["com.unblu.conversation.other"] == "x")
            let withdrawn = try await Self.updateConfiguration(server, id, as: Self.agent, [Self.manual: "false"])
            #expect(withdrawn.status == .forbidden, "\(withdrawn.text)")
        }
    }

    @Test("below ADMIN, conversations/create takes no permission key but the one the conversation would work under; an admin sets one")
    func createdPermissions() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            func create(as caller: String, _ manual: String) async throws -> InProcessServer.Answer {
                try await server.call(
                    .post, "/app/rest/v4/conversations/create?expand=configuration", authorization: caller,
                    body: #"{"topic":"t","configuration":{"\#(Self.manual)":"\#(manual)","com.unblu.conversation.example":"on"}}"#)
            }
            let refused = try await create(as: Self.agent, "true")
            #expect(refused.status == .forbidden && refused.text.contains(Self.manual), "\(refused.text)")
            let asItIs = try await create(as: Self.agent, "false")
            #expect(asItIs.status == .ok, "\(asItIs.text)")
            func configuration(_ answer: InProcessServer.Answer) throws -> [String: String]? {
                (try JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView)) as? [String: Any])?["configuration"] as? [String: String]
            }
            #expect(try configuration(asItIs) == ["com.unblu.conversation.example": "on"])
            let byAdmin = try await create(as: Self.admin, "true")
            #expect(byAdmin.status == .ok, "\(byAdmin.text)")
            #expect(try configuration(byAdmin)?[Self.manual] == "true")
        }
    }

    static func team(_ server: InProcessServer, _ id: String) async throws -> [String: Any] {
        let read = try await server.call(.get, "/app/rest/v4/teams/\(id)/read", authorization: admin)
        return try #require(try JSONSerialization.jsonObject(with: Data(read.body.readableBytesView)) as? [String: Any])
    }

    static func updateTeam(_ server: InProcessServer, as caller: String, _ team: [String: Any]) async throws -> InProcessServer.Answer {
        try await server.call(
            .post, "/app/rest/v4/teams/update", authorization: caller,
            body: String(decoding: try JSONSerialization.data(withJSONObject: team), as: UTF8.self))
    }

    @Test("a supervisor renames its own team and those below it, not another's, and moves none; an admin moves a team")
    func supervisorsAndTeams() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            var own = try await Self.team(server, "team-east")
            own["description"] = "the east desk"
            let renamed = try await Self.updateTeam(server, as: Self.lead, own)
            #expect(renamed.status == .ok, "\(renamed.text)")
            var below = try await Self.team(server, "team-east-1")
            below["name"] = "East First"
            #expect(try await Self.updateTeam(server, as: Self.lead, below).status == .ok)

            // Another team, renamed or hung under the supervisor's own (its queue would become theirs).
            let west = try await Self.team(server, "team-west")
            for change in [["name": "Mine now"], ["parentId": "team-east"]] {
                let refused = try await Self.updateTeam(server, as: Self.lead, west.merging(change) { $1 })
                #expect(refused.status == .forbidden, "\(change): \(refused.text)")
            }
            // Its own subtree moved: refused too.
            var moved = try await Self.team(server, "team-east-1")
            moved["parentId"] = NSNull()
            let unhung = try await Self.updateTeam(server, as: Self.lead, moved)
            #expect(unhung.status == .forbidden && unhung.text.contains("parentId"), "\(unhung.text)")
            #expect(try await Self.team(server, "team-west")["parentId"] == nil)
            #expect(try await Self.team(server, "team-east-1")["parentId"] as? String == "team-east")

            let adminMoved = try await Self.updateTeam(server, as: Self.admin, west.merging(["parentId": "team-east"]) { $1 })
            #expect(adminMoved.status == .ok, "\(adminMoved.text)")
        }
    }
}
