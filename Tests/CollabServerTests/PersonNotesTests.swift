import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Notes on visitors, agents' status messages and random passwords over real sockets, checked against
/// the vendor's schemas.
@Suite("Persons' notes and status messages, random passwords")
struct PersonNotesTests {
    @Test("an agent notes on a visitor (who and when are kept); an admin sets an agent's status message; agents have no notes")
    func notesAndStatusMessages() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let agent = server.admin("alpha-agent", "pw-a").transport
            let admin = server.admin("alpha-admin", "pw-a").transport
            let visitor = try await agent.webAPI("GET", "persons/getBySource", query: [("personSource", "VIRTUAL"), ("sourceId", "alpha-visitor")])
            let visitorId = try #require(visitor["id"] as? String)
            let noted = try await agent.webAPI("POST", "persons/\(visitorId)/setNote", #"{"note":"prefers email"}"#, schema: "PersonData")
            let me = try await agent.webAPI("GET", "authenticator/getCurrentPerson")
            #expect(noted["note"] as? String == "prefers email" && noted["noteLastEditedPersonId"] as? String == me["id"] as? String)
            #expect(noted["noteLastEditedTimestamp"] as? Int != nil)
            let read = try await admin.webAPI("GET", "persons/\(visitorId)/read", schema: "PersonData")
            #expect(read["note"] as? String == "prefers email", "the note is stored")
            let agentId = try #require(me["id"] as? String)
            _ = try await agent.webAPI("POST", "persons/\(agentId)/setNote", #"{"note":"x"}"#, status: 400)
            _ = try await server.admin("beta-agent", "pw-b").transport.webAPI("POST", "persons/\(visitorId)/setNote", #"{"note":"x"}"#, status: 404)

            let status = try await admin.webAPI(
                "POST", "persons/\(agentId)/setStatusMessage", #"{"statusMessage":"back at 2"}"#, schema: "AgentPersonStateData")
            #expect(status["statusMessage"] as? String == "back at 2" && status["personId"] as? String == agentId)
            let cleared = try await admin.webAPI("POST", "persons/\(agentId)/setStatusMessage", "{}", schema: "AgentPersonStateData")
            #expect(cleared["statusMessage"] == nil)
            _ = try await admin.webAPI("POST", "persons/\(visitorId)/setStatusMessage", #"{"statusMessage":"x"}"#, status: 400)

            // Away: at once while logged in (the agent's presence), kept for the next time it comes online.
            let desk = AgentClient(baseURL: server.baseURL)
            try await desk.login(username: "alpha-agent", password: "pw-a")
            #expect(try await desk.presence() == "OFFLINE", "until one is set")
            try await desk.setPresence("ONLINE")
            #expect(try await desk.presence() == "ONLINE")
            let away = try await admin.webAPI("POST", "persons/\(agentId)/setAway", #"{"away":true}"#, schema: "AgentPersonStateData")
            #expect(away["onlineState"] as? String == "AWAY")
            #expect(try await desk.presence() == "AWAY", "the agent reads what the admin set")
            let asked: PresenceRequest = try await desk.transport.send("PUT", "/agent/v1/presence", body: PresenceRequest(presence: "ONLINE"))
            #expect(asked.presence == "AWAY", "an agent set away who asks for ONLINE is told AWAY")
            _ = try await admin.webAPI("POST", "persons/\(agentId)/setAway", "{}", status: 400)
            _ = try await admin.webAPI("POST", "persons/\(visitorId)/setAway", #"{"away":true}"#, status: 400)
            let back = try await admin.webAPI("POST", "persons/\(agentId)/setAway", #"{"away":false}"#, schema: "AgentPersonStateData")
            #expect(back["onlineState"] as? String == "ONLINE")
            let physical = try await admin.webAPI("POST", "users/transformVirtualToPhysical", #"{"username":"alpha-agent"}"#, schema: "User")
            #expect(physical["username"] as? String == "alpha-agent")
            _ = try await agent.webAPI("POST", "persons/\(agentId)/setStatusMessage", #"{"statusMessage":"x"}"#, status: 403)
        }
    }

    @Test("setRandomPassword replaces the password, ends its sessions and journals the mail without the password")
    func randomPassword() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let admin = server.admin("alpha-admin", "pw-a").transport
            let created = try await admin.webAPI(
                "POST", "users/createWithPassword",
                #"{"user":{"$_type":"User","username":"mailer","email":"mailer@example.com","authorizationRole":"REGISTERED_USER"},"#
                    + #""password":"first-pw-1"}"#
            )
            let id = try #require(created["id"] as? String)
            _ = try await server.admin("mailer", "first-pw-1").transport.webAPI("GET", "accounts/getCurrentAccount")
            _ = try await admin.webAPI("POST", "users/\(id)/setRandomPassword", schema: "User")
            _ = try await server.admin("mailer", "first-pw-1").transport.webAPI("GET", "accounts/getCurrentAccount", status: 401)

            let journal = try await server.control.transport.raw("GET", "/_mock/v1/journal", query: [("method", "EMAIL")])
            let entries = try #require((try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]])
            #expect(entries.map { $0["path"] as? String } == ["/users/\(id)/setRandomPassword"])
            #expect(entries.first?["query"] as? String == "to=mailer@example.com")

            let agent = try await admin.webAPI("GET", "users/getByUsername", query: [("username", "alpha-agent")])
            _ = try await admin.webAPI("POST", "users/\(try #require(agent["id"] as? String))/setRandomPassword", status: 409)
            _ = try await server.admin("alpha-agent", "pw-a").transport.webAPI("POST", "users/\(id)/setRandomPassword", status: 403)
        }
    }
}
