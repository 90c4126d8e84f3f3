import CollabClient
import CollabCore
import CollabWire
import Crypto
import Foundation
import Testing

/// External messengers over real sockets: a CUSTOM channel posts its contact's messages into a
/// conversation the agents take from the queue, and receives the agent's reply at its endpoint, signed
/// like a webhook, retried after a failure; its ping and status.
@Suite("External messengers: the round trip")
struct ExternalMessengerTests {
    @Test("a contact writes through the channel, an agent answers, the answer reaches the channel's endpoint signed and retried")
    func roundTrip() async throws {
        let endpoint = try await WebhookReceiver(failFirst: 1)
        let pinger = try await BotReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            func call(_ method: String, _ path: String, query: [(String, String)] = [], _ body: String? = nil) async throws -> (Int, [String: Any]) {
                let answer = try await admin.raw(method, "/app/rest/v4/" + path, query: query, body: body.map { Data($0.utf8) })
                return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
            }
            let (_, channel) = try await call(
                "POST", "externalmessengers/create",
                #"{"type":"CUSTOM","name":"chat-app","webhookEndpoint":"\#(endpoint.url)","webhookSecret":"channel-secret"}"#
            )
            let channelId = try #require(channel["id"] as? String)
            #expect(channel["$_type"] as? String == "CustomExternalMessengerChannel" && channel["webhookStatus"] as? String == "ACTIVE")
            #expect(channel["webhookSecret"] == nil, "the secret is never shown")
            let (_, contact) = try await call(
                "POST", "externalmessengercontacts/create", #"{"externalMessengerChannelId":"\#(channelId)","sourceId":"user-42","name":"Zed"}"#
            )
            let contactId = try #require(contact["id"] as? String)

            let agentA = try await agent(server, "agent-a")
            let events = EventCollector(try await agentA.connectEvents().events)
            func post(_ text: String) async throws -> (Int, [String: Any]) {
                let data = #"{"$_type":"TextPostMessageData","type":"TEXT","text":"\#(text)"}"#
                let body = #"{"senderExternalMessengerContactId":"\#(contactId)","messageData":\#(data)}"#
                return try await call("POST", "externalmessengers/\(channelId)/sendMessage", body)
            }
            // Refused before anything changes: no person is made for the contact.
            #expect(try await post("   ").0 == 400)
            let foreign = #"{"senderExternalMessengerContactId":"\#(contactId)","conversationId":"nope","#
                + #""messageData":{"$_type":"TextPostMessageData","type":"TEXT","text":"x"}}"#
            #expect(try await call("POST", "externalmessengers/\(channelId)/sendMessage", foreign).0 == 404)
            #expect(try await call("GET", "externalmessengercontacts/\(contactId)/read").1["personId"] == nil, "no person was made")
            let (status, sent) = try await post("hello from outside")
            #expect(status == 200 && sent["$_type"] as? String == "SendMessageResult")
            let queued = try await events.wait(for: "the contact's conversation in the queue") { $0.type == "conversation.queued" }
            let conversationId = try #require(queued.conversation?.id)
            #expect(try await agentA.queue().map(\.conversation.id) == [conversationId])
            _ = try await agentA.accept(conversationId)
            #expect(try await post("still me").0 == 200)
            _ = try await events.wait(for: "the second message") { $0.type == "conversation.new_message" && $0.message?.text == "still me" }
            let texts = try await agentA.messages(in: conversationId).messages.map(\.text)
            #expect(texts == ["hello from outside", "still me"], "one conversation per contact, continued")

            let (_, linked) = try await call("GET", "externalmessengercontacts/\(contactId)/read")
            let personId = try #require(linked["personId"] as? String, "the contact got a person")
            #expect(queued.conversation?.contextPersonId == personId)
            let (_, bySource) = try await call(
                "GET", "conversations/getBySourceIdAndChannelId", query: [("sourceId", "user-42"), ("externalMessengerChannelId", channelId)]
            )
            #expect(bySource["id"] as? String == conversationId && bySource["externalMessengerChannelId"] as? String == channelId)

            _ = try await agentA.send("hi back", in: conversationId)
            let deliveries = try await endpoint.wait(count: 2) { $0.headers["x-unblu-event"] == "outbound.external_messenger.new_message" }
            let delivered = try #require(deliveries.last, "the first attempt failed; the dispatcher retried")
            #expect(deliveries.first?.body == delivered.body)
            func signature(_ body: Data) -> String {
                let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data("channel-secret".utf8)))
                return code.map { String(format: "%02x", $0) }.joined()
            }
            #expect(delivered.headers["x-unblu-signature-256"] == signature(delivered.body))
            #expect(VendorSchemaCheck.problems(delivered.body, schema: "ExternalMessengerNewMessageRequest").isEmpty)
            let request = try #require(try JSONSerialization.jsonObject(with: delivered.body) as? [String: Any])
            #expect((request["conversationMessage"] as? [String: Any])?["text"] as? String == "hi back")
            #expect((request["receivingContacts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [contactId])
            let outbound = endpoint.all.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
            let outboundTexts = outbound.compactMap { ($0["conversationMessage"] as? [String: Any])?["text"] as? String }
            #expect(Set(outboundTexts) == ["hi back"], "the contact's own messages are not sent back to the channel")

            #expect(try await call("POST", "externalmessengers/\(channelId)/sendPing").0 == 503, "the endpoint does not answer pings")
            var pinging = channel
            pinging["webhookEndpoint"] = pinger.url
            let (updatedStatus, updated) = try await call("POST", "externalmessengers/update", try EntityLayerTests.text(pinging))
            #expect(updatedStatus == 200)
            let (pingStatus, pong) = try await call("POST", "externalmessengers/\(channelId)/sendPing")
            #expect(pingStatus == 200 && pong["$_type"] as? String == "PingResponse")
            let ping = try #require(pinger.all.last, "an update without the secret kept it: the ping is signed with it")
            #expect(ping.headers["x-unblu-signature-256"] == signature(ping.body))
            var inactive = updated
            inactive["webhookStatus"] = "INACTIVE"
            #expect(try await call("POST", "externalmessengers/update", try EntityLayerTests.text(inactive)).0 == 200)
            #expect(try await call("POST", "externalmessengers/\(channelId)/sendPing").0 == 409, "an INACTIVE channel is not pinged")
            #expect(try await call("POST", "externalmessengers/update", try EntityLayerTests.text(updated)).0 == 409, "stale version")
        }
        try await endpoint.stop()
        try await pinger.stop()
    }
}
