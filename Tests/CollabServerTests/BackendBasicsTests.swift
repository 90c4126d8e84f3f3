import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// The operations a backend calls first, in the vendor's shapes.
@Suite("What a backend calls first")
struct BackendBasicsTests {
    @Test("ping, product version, metadata, visitor data, history search, message export, agents by state, presences")
    func backendBasics() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let anonymous = HTTPTransport(baseURL: server.baseURL)
            func json(
                _ method: String, _ path: String, _ body: String? = nil, as transport: HTTPTransport? = nil, schema: String? = nil
            ) async throws -> [String: Any] {
                let response = try await (transport ?? admin).raw(method, "/app/rest/v4/\(path)", body: body.map { Data($0.utf8) })
                #expect(response.status == 200, "\(method) \(path) → \(response.status): \(String(decoding: response.body, as: UTF8.self))")
                if let schema {
                    #expect(
                        VendorSchemaCheck.problems(response.body, schema: schema).isEmpty,
                        "\(path): \(VendorSchemaCheck.problems(response.body, schema: schema))")
                }
                return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
            }

            #expect(try await json("GET", "global/ping", as: anonymous, schema: "GlobalPingResponse")["status"] as? String == "OK")
            #expect(try await anonymous.raw("GET", "/app/rest/v4/global/productVersion").status == 401)
            #expect(
                try await json(
                    "GET", "global/productVersion", as: server.admin("agent-a", "pw").transport, schema: "ProductVersion"
                )["productVersion"] != nil)

            let app = visitor(server, device: "basics-phone")
            try await app.start(liveEvents: false)
            let agentA = try await agent(server, "agent-a")
            try await agentA.setPresence("ONLINE")
            let conversation = try await app.startConversation(topic: "basics")
            _ = try await agentA.accept(conversation.id)
            _ = try await app.send("first", in: conversation.id)
            _ = try await agentA.send("a note", in: conversation.id, internal: true)
            _ = try await agentA.send("second", in: conversation.id)
            // The visitor cannot count the note, nor date it.
            let seen = try await app.conversation(conversation.id)
            let visible = try await app.messages(in: conversation.id).messages
            #expect(visible.map(\.text) == ["first", "second"])
            #expect(seen.messageCount == 2 && seen.lastMessageAt == visible.last?.timestamp)
            #expect(try await agentA.conversation(conversation.id).messageCount == 2, "one view for visitors and agents")

            let path = "conversations/\(conversation.id)"
            let withMetadata = try await json("POST", "\(path)/updateMetadata", #"{"crm":"42"}"#, schema: "ConversationData")
            #expect((withMetadata["metadata"] as? [String: String]) == ["crm": "42"])
            let withData = try await json(
                "POST", "\(path)/setVisitorData", #"{"$_type":"ConversationsSetVisitorDataBody","visitorData":"order 7"}"#, schema: "ConversationData"
            )
            #expect(withData["visitorData"] as? String == "order 7")
            #expect(try await json("GET", "\(path)/read")["visitorData"] as? String == "order 7")
            let tooMuch = try await admin.raw(
                "POST", "/app/rest/v4/\(path)/setVisitorData", body: Data(#"{"visitorData":"\#(String(repeating: "x", count: 20_000))"}"#.utf8))
            #expect(tooMuch.status == 413)
            #expect(
                try await server.admin("agent-a", "pw").transport.raw(
                    "POST", "/app/rest/v4/\(path)/updateMetadata", body: Data("{}".utf8)
                ).status == 403)
            #expect(
                try await server.admin("agent-x", "pw").transport.raw(
                    "POST", "/app/rest/v4/conversationhistory/\(conversation.id)/exportMessageLog", body: Data("{}".utf8)
                ).status == 403)

            let history = try await json(
                "POST", "conversationhistory/search",
                #"{"$_type":"ConversationHistoryQuery","searchFilters":[{"field":"STATE","#
                    + #""operator":{"$_type":"EqualsEnumOperator","type":"EQUALS","value":"ACTIVE"}}]}"#,
                schema: "ConversationHistoryDataResult"
            )
            #expect((history["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [conversation.id])
            #expect(
                try await admin.raw(
                    "POST", "/app/rest/v4/conversationhistory/search",
                    body: Data(#"{"searchFilters":[{"field":"NOPE","operator":{"type":"EQUALS","value":"x"}}]}"#.utf8)
                ).status == 400)

            // The vendor's participant filter: the conversations a person took part in.
            let visitorPersonId = try #require(seen.participants.first { $0.type == "CONTEXT_PERSON" }?.personId)
            for (endpoint, schema) in [("conversations/search", nil), ("conversationhistory/search", "ConversationHistoryDataResult")] {
                let byParticipant = try await json(
                    "POST", endpoint,
                    #"{"searchFilters":[{"$_type":"ParticipantPersonIdConversationSearchFilter","field":"PARTICIPANT_PERSON_ID","#
                        + #""operator":{"$_type":"AnyOfIdListOperator","type":"ANY_OF","values":["\#(visitorPersonId)","nobody"]}}],"#
                        + #""orderBy":[{"field":"LOCALE"}]}"#,
                    schema: schema
                )
                #expect((byParticipant["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [conversation.id], "\(endpoint)")
            }
            let nobody = try await json(
                "POST", "conversations/search",
                #"{"searchFilters":[{"field":"PARTICIPANT_PERSON_ID","operator":{"type":"ALL_OF","values":["\#(visitorPersonId)","nobody"]}}]}"#
            )
            #expect((nobody["items"] as? [[String: Any]])?.isEmpty == true)

            let export = try await json(
                "POST", "conversationhistory/\(conversation.id)/exportMessageLog",
                #"{"$_type":"MessageExportQuery","orderBy":[{"field":"SEND_TIMESTAMP","order":"ASCENDING"}]}"#,
                schema: "MessageExportResult"
            )
            let items = try #require(export["items"] as? [[String: Any]])
            #expect(items.map { $0["text"] as? String } == ["first", "a note", "second"])
            #expect(items.map { $0["internal"] as? Bool } == [false, true, false])
            #expect(try await admin.raw("POST", "/app/rest/v4/conversationhistory/unknown/exportMessageLog", body: Data("{}".utf8)).status == 404)

            let online = try await json(
                "POST", "persons/searchAgentsByState",
                #"{"$_type":"AgentStateQuery","searchFilters":[{"field":"ONLINE_STATE","operator":{"type":"EQUALS","value":"ONLINE"}}]}"#,
                schema: "AgentPersonStateResult"
            )
            let onlineItems = try #require(online["items"] as? [[String: Any]])
            #expect(onlineItems.count == 1 && onlineItems.first?["onlineState"] as? String == "ONLINE")

            let presences = try await json("POST", "personpresences/search", #"{"$_type":"PersonPresenceQuery"}"#, schema: "PersonPresenceResult")
            let presence = try #require((presences["items"] as? [[String: Any]])?.first)
            let visitorId = try #require(conversation.participants.first { $0.type == "CONTEXT_PERSON" }?.personId)
            #expect(presence["personId"] as? String == visitorId)
            let started = try #require(app.session)
            #expect(presence["id"] as? String == started.clientId)
            #expect(
                !String(decoding: try JSONSerialization.data(withJSONObject: presences), as: UTF8.self).contains(started.token),
                "a presence never shows the client's token")
        }
    }
}
