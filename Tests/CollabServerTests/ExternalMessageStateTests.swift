import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import Testing

/// What an external messenger channel reports about the agents' messages it was sent, over real sockets:
/// delivered and read (once each, announced as `conversation.message_state`), sent on or not; bad reports
/// are typed 4xx errors that change nothing; a restart on the same SQLite file keeps every report.
@Suite("External messengers: message states")
struct ExternalMessageStateTests {
    /// The ids a scenario made: channel, its contact, the conversation, two agent replies.
    struct Scenario {
        var channelId: String, contactId: String, contactPersonId: String, conversationId: String
        var firstReply: String, secondReply: String, contactMessage: String
    }

    @Test("delivered, read, sent and failed are stored once, announced once, shown, refused when wrong, and kept across a restart")
    func messageStates() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let endpoint = try await WebhookReceiver()
        let (scenario, stored) = try await TestServer.with(storage: storage, seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let agentA = try await agent(server, "agent-a")
            let stream = try await agentA.connectEvents()
            let events = EventCollector(stream.events)
            let scenario = try await Self.scenario(admin, agentA, events, endpoint: endpoint.url)
            let path = "externalmessengers/\(scenario.channelId)/"
            func body(_ messageId: String, _ extra: String = "") -> String {
                #"{"conversationId":"\#(scenario.conversationId)","messageId":"\#(messageId)"\#(extra)}"#
            }
            let byContact = #","externalMessengerContactId":"\#(scenario.contactId)""#
            func states(of messageId: String) -> [String] {
                events.events.filter { $0.type == "conversation.message_state" && $0.message?.id == messageId }.compactMap { $0.detail?["state"] }
            }

            // Delivered, then read: each timestamp once; a second read changes nothing and announces nothing.
            _ = try await admin.webAPI("POST", path + "messageDelivered", body(scenario.firstReply, byContact), status: 204)
            _ = try await admin.webAPI("POST", path + "messageRead", body(scenario.firstReply, byContact), status: 204)
            let marked = try await Self.message(agentA, scenario.conversationId, scenario.firstReply)
            _ = try await admin.webAPI("POST", path + "messageRead", body(scenario.firstReply, byContact), status: 204)
            _ = try await admin.webAPI("POST", path + "messageDelivered", body(scenario.firstReply), status: 204)
            #expect(try await Self.message(agentA, scenario.conversationId, scenario.firstReply) == marked)
            #expect(marked.deliveredAt != nil && marked.readAt != nil)
            // Read alone, for all the channel's contacts: delivered too.
            _ = try await admin.webAPI("POST", path + "messageRead", body(scenario.secondReply), status: 204)
            let read = try await Self.message(agentA, scenario.conversationId, scenario.secondReply)
            #expect(read.deliveredAt != nil && read.readAt != nil)

            // Sent on, and failed with the channel's reason.
            _ = try await admin.webAPI("POST", path + "messageSentSuccessfully", body(scenario.firstReply), status: 204)
            _ = try await admin.webAPI("POST", path + "messageSentSuccessfully", body(scenario.firstReply), status: 204)
            let failure = #","failState":"TERMINAL","failureText":"the contact blocked the number""#
            _ = try await admin.webAPI("POST", path + "messageSendFailed", body(scenario.secondReply, failure), status: 204)
            let sent = try await Self.message(agentA, scenario.conversationId, scenario.firstReply)
            #expect(sent.externalSendState == "SENT" && sent.externalSendStateAt != nil && sent.externalSendFailState == nil)
            let failed = try await Self.message(agentA, scenario.conversationId, scenario.secondReply)
            #expect(failed.externalSendState == "SEND_FAILED" && failed.externalSendFailState == "TERMINAL")
            #expect(failed.externalSendFailureText == "the contact blocked the number")

            // Wrong reports: typed errors naming what is wrong, and nothing changes.
            let before = try await agentA.messages(in: scenario.conversationId).messages
            try await Self.refusals(admin, scenario, body: body)
            #expect(try await agentA.messages(in: scenario.conversationId).messages == before)
            try await events.sync(stream)
            #expect(states(of: scenario.firstReply) == ["DELIVERED", "READ", "SENT"])
            #expect(states(of: scenario.secondReply) == ["DELIVERED", "READ", "SEND_FAILED"])
            let delivered = events.events.first { $0.type == "conversation.message_state" && $0.message?.id == scenario.firstReply }
            #expect(delivered?.detail?["personId"] == scenario.contactPersonId, "the mark names the contact's person")
            #expect(states(of: scenario.contactMessage).isEmpty)
            return (scenario, before)
        }
        try await endpoint.stop()
        try await TestServer.with(storage: storage, seed: queueSeed) { server in
            let agentA = try await agent(server, "agent-a")
            #expect(try await agentA.messages(in: scenario.conversationId).messages == stored, "every report survives the restart")
        }
    }

    /// A CUSTOM channel with two contacts, the first writing; `agent-a` accepts and replies twice.
    static func scenario(_ admin: HTTPTransport, _ agentA: AgentClient, _ events: EventCollector, endpoint: String) async throws -> Scenario {
        let channel = try await admin.webAPI(
            "POST", "externalmessengers/create", #"{"type":"CUSTOM","name":"chat-app","webhookEndpoint":"\#(endpoint)","webhookSecret":"s"}"#
        )
        let channelId = try #require(channel["id"] as? String)
        func contact(_ sourceId: String) async throws -> [String: Any] {
            try await admin.webAPI(
                "POST", "externalmessengercontacts/create", #"{"externalMessengerChannelId":"\#(channelId)","sourceId":"\#(sourceId)","name":"Zed"}"#
            )
        }
        let contactId = try #require(try await contact("user-1")["id"] as? String)
        let data = #"{"$_type":"TextPostMessageData","type":"TEXT","text":"hello"}"#
        let posted = try await admin.webAPI(
            "POST", "externalmessengers/\(channelId)/sendMessage", #"{"senderExternalMessengerContactId":"\#(contactId)","messageData":\#(data)}"#
        )
        let contactMessage = try #require(posted["messageId"] as? String)
        let queued = try await events.wait(for: "the contact's conversation in the queue") { $0.type == "conversation.queued" }
        let conversationId = try #require(queued.conversation?.id)
        _ = try await agentA.accept(conversationId)
        let contactPersonId = try #require(try await admin.webAPI("GET", "externalmessengercontacts/\(contactId)/read")["personId"] as? String)
        return Scenario(
            channelId: channelId, contactId: contactId, contactPersonId: contactPersonId, conversationId: conversationId,
            firstReply: try await agentA.send("first", in: conversationId).id, secondReply: try await agentA.send("second", in: conversationId).id,
            contactMessage: contactMessage
        )
    }

    /// Reports that name another channel's contact, a contact not in the conversation, another channel's
    /// conversation, an unknown message, the contact's own message or an unknown fail state.
    static func refusals(_ admin: HTTPTransport, _ scenario: Scenario, body: (String, String) -> String) async throws {
        let path = "externalmessengers/\(scenario.channelId)/"
        let other = try await admin.webAPI(
            "POST", "externalmessengers/create", #"{"type":"CUSTOM","name":"other-app","webhookEndpoint":"http://127.0.0.1:9/x","webhookSecret":"s"}"#
        )
        let otherId = try #require(other["id"] as? String)
        func contact(_ channelId: String, _ sourceId: String) async throws -> String {
            let created = try await admin.webAPI(
                "POST", "externalmessengercontacts/create", #"{"externalMessengerChannelId":"\#(channelId)","sourceId":"\#(sourceId)","name":"Y"}"#
            )
            return try #require(created["id"] as? String)
        }
        let foreign = try await contact(otherId, "user-9")
        let absent = try await contact(scenario.channelId, "user-2")
        _ = try await admin.webAPI(
            "POST", path + "messageRead", body(scenario.secondReply, #","externalMessengerContactId":"\#(foreign)""#), status: 404
        )
        let notTaking = try await admin.webAPI(
            "POST", path + "messageDelivered", body(scenario.secondReply, #","externalMessengerContactId":"\#(absent)""#), status: 400
        )
        #expect((notTaking["errorMessage"] as? String)?.contains("externalMessengerContactId") == true)
        let wrongChannel = try await admin.webAPI(
            "POST", "externalmessengers/\(otherId)/messageSentSuccessfully", body(scenario.secondReply, ""), status: 400
        )
        #expect((wrongChannel["errorMessage"] as? String)?.contains("conversationId") == true)
        _ = try await admin.webAPI("POST", path + "messageRead", body("no-such-message", ""), status: 404)
        let own = try await admin.webAPI("POST", path + "messageSentSuccessfully", body(scenario.contactMessage, ""), status: 400)
        #expect((own["errorMessage"] as? String)?.contains("messageId") == true)
        _ = try await admin.webAPI("POST", path + "messageRead", body(scenario.contactMessage, ""), status: 400)
        _ = try await admin.webAPI("POST", path + "messageSendFailed", body(scenario.firstReply, #","failState":"LATER""#), status: 400)
    }

    /// One message as the agent sees it.
    static func message(_ agent: AgentClient, _ conversationId: String, _ id: String) async throws -> MessageView {
        try #require(try await agent.messages(in: conversationId).messages.first { $0.id == id })
    }
}
