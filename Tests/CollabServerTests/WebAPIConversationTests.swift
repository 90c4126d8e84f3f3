import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

@Suite("Web API: conversations")
struct WebAPIConversationTests {
    @Test("create, read, search, setTopic, setRecipient, addParticipant, setAssigneePerson, bots/sendMessage, end, delete")
    func lifecycle() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let areas: WebResult<WebNamedArea> = try await admin.send(
                "POST", "/app/rest/v4/namedareas/search", body: WebQuery(type: "NamedAreaQuery", orderBy: [WebOrderBy(field: "SITE_ID")]))
            let areaA = try #require(areas.items?.first?.id)
            let areaB = try #require(areas.items?.last?.id)
            let visitorPerson: WebPerson = try await admin.send(
                "POST", "/app/rest/v4/persons/createOrUpdateVirtual", body: WebPerson(sourceId: "web-visitor", personType: "VISITOR"))
            let agentB: WebPerson = try await admin.send(
                "GET", "/app/rest/v4/persons/getBySource",
                query: [("personSource", "USER_DB"), ("sourceId", try await server.admin("admin-d", "pw").users.getByUsername("agent-b").id!)])

            let created: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/create",
                body: WebConversationCreation(
                    topic: "Mortgage", recipient: WebCreationRecipient(recipientType: "NAMED_AREA", id: areaA),
                    participants: [WebCreationParticipant(personId: visitorPerson.id!, participationType: "CONTEXT_PERSON")],
                    initialEngagementType: "VIDEO_REQUEST"
                )
            )
            let id = try #require(created.id)
            #expect(created.type == "ConversationData")
            #expect(created.state == "QUEUED")
            #expect(created.recipient?.type == "NamedAreaData")
            #expect(created.initialEngagementType == "VIDEO_REQUEST")

            let read: WebConversation = try await admin.send("GET", "/app/rest/v4/conversations/\(id)/read")
            #expect(read == created)
            let found: WebResult<WebConversation> = try await admin.send(
                "POST", "/app/rest/v4/conversations/search",
                body: WebQuery(
                    type: "ConversationQuery",
                    searchFilters: [WebSearchFilter(field: "STATE", operator: WebSearchOperator(type: "EQUALS", value: .string("QUEUED")))])
            )
            #expect(found.items?.map(\.id) == [id])

            let topic: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/\(id)/setTopic", body: WebTopicBody(topic: "Mortgage renewal"))
            #expect(topic.topic == "Mortgage renewal")
            let moved: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/\(id)/setRecipient", body: WebRecipient(type: "NamedAreaData", id: areaB))
            #expect(moved.recipient?.id == areaB)
            let agentBClient = try await agent(server, "agent-b")
            #expect(try await agentBClient.queue(namedAreas: ["area-b"]).map(\.conversation.id) == [id])

            let assigned: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/\(id)/setAssigneePerson", body: WebPersonRefBody(personId: agentB.id!))
            #expect(assigned.state == "ACTIVE")
            #expect(assigned.participants?.first { $0.participationType == "ASSIGNED_AGENT" }?.personId == agentB.id)

            let second: WebPerson = try await admin.send(
                "POST", "/app/rest/v4/persons/createOrUpdateVirtual", body: WebPerson(sourceId: "web-visitor-2", personType: "VISITOR"))
            let added: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/\(id)/addParticipant", body: WebPersonRefBody(personId: second.id!))
            #expect(added.participants?.contains { $0.personId == second.id && $0.participationType == "SECONDARY_VISITOR" } == true)

            let sent: WebSendMessageResult = try await admin.send(
                "POST", "/app/rest/v4/bots/sendMessage",
                body: WebBotPostMessage(conversationId: id, senderPersonId: agentB.id!, text: "Hello from the Web API"))
            let messages = try await agentBClient.messages(in: id)
            #expect(messages.messages.map(\.id) == [sent.messageId])
            #expect(messages.messages.first?.text == "Hello from the Web API")

            let deleteEarly = try await admin.raw("DELETE", "/app/rest/v4/conversations/\(id)/delete")
            #expect(deleteEarly.status == 409, "an active conversation is ended before it is deleted")

            let ended: WebConversation = try await admin.send(
                "POST", "/app/rest/v4/conversations/\(id)/end", body: WebEndBody(reason: "SOLVED_BY_BOT", comment: "done"))
            #expect(ended.state == "ENDED")
            #expect(ended.endReason == "SOLVED_BY_BOT")
            let again = try await admin.raw("POST", "/app/rest/v4/conversations/\(id)/end", body: Data("{}".utf8))
            #expect(again.status == 409)

            try await admin.sendWithoutResult("DELETE", "/app/rest/v4/conversations/\(id)/delete")
            #expect(try await admin.raw("GET", "/app/rest/v4/conversations/\(id)/read").status == 404)
        }
    }

    @Test("agent availability follows agent presence")
    func availability() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let anonymous = server.transport(.none)
            let before: WebAgentAvailability = try await anonymous.send(
                "GET", "/app/rest/v4/availability/getAgentAvailability", query: [("apiKey", "desk-key"), ("namedAreaSiteId", "area-a")])
            #expect(before.availabilityState == "UNAVAILABLE")
            let agentA = try await agent(server, "agent-a")
            try await agentA.setPresence("ONLINE")
            let after: WebAgentAvailability = try await anonymous.send(
                "GET", "/app/rest/v4/availability/getAgentAvailability", query: [("apiKey", "desk-key")])
            #expect(after.availabilityState == "AVAILABLE")
            #expect(after.isAvailable == true)
            let agentPerson = try #require(agentA.session?.person.id)
            let agentState: WebPersonState = try await server.admin("admin-d", "pw").transport.send(
                "GET", "/app/rest/v4/persons/\(agentPerson)/readState")
            #expect(agentState.type == "AgentPersonStateData")
            #expect(agentState.onlineState == "ONLINE")
            let app = visitor(server, device: "state-phone")
            let visitorId = try await app.start(liveEvents: false).person.id
            let visitorState: WebPersonState = try await server.admin("admin-d", "pw").transport.send(
                "GET", "/app/rest/v4/persons/\(visitorId)/readState")
            #expect(visitorState.onlineState == "ONLINE")
            #expect(visitorState.personType == "VISITOR")
            try await agentA.setPresence("AWAY")
            let away: WebAgentAvailability = try await anonymous.send(
                "GET", "/app/rest/v4/availability/getAgentAvailability", query: [("apiKey", "desk-key")])
            #expect(away.isAvailable == false)
            #expect(try await anonymous.raw("GET", "/app/rest/v4/availability/getAgentAvailability", query: [("apiKey", "nope")]).status == 401)
        }
    }

    @Test("invalid creations and transitions are clear 4xx answers that change nothing")
    func invalid() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let before = try await server.entityStats()
            let cases: [(String, String, Int)] = [
                ("/app/rest/v4/conversations/create", #"{"recipient":{"type":"NAMED_AREA","id":"missing"}}"#, 404),
                ("/app/rest/v4/conversations/create", #"{"recipient":{"type":"TEAM","id":"t"}}"#, 404),
                ("/app/rest/v4/conversations/create", #"{"initialEngagementType":"TELEPATHY"}"#, 400),
                ("/app/rest/v4/conversations/create", #"{"participants":[{"personId":"nobody","participationType":"ASSIGNED_AGENT"}]}"#, 404),
                ("/app/rest/v4/conversations/create", #"{"$_type":"ConversationData"}"#, 400),
                ("/app/rest/v4/conversations/missing/end", "{}", 404),
                ("/app/rest/v4/conversations/missing/setTopic", #"{"topic":"x"}"#, 404),
                (
                    "/app/rest/v4/bots/sendMessage",
                    #"{"conversationId":"missing","senderPersonId":"x","messageData":{"$_type":"TextPostMessageData","type":"TEXT","text":"hi"}}"#,
                    404
                ),
            ]
            for (path, body, status) in cases {
                let response = try await admin.raw("POST", path, body: Data(body.utf8))
                #expect(response.status == status, "\(path) \(body) → \(response.status) \(String(decoding: response.body, as: UTF8.self))")
                #expect(try JSONDecoder().decode(WebAPIError.self, from: response.body).type == "Error")
            }
            #expect(try await server.entityStats() == before)
        }
    }
}
