import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Crypto
import Foundation
import Testing

/// Dialog bots end to end: the Web API for bots, and the onboarding dialog with a real HTTP endpoint
/// as the bot and the companion client as the visitor. Every body is checked against the vendor's schema.
@Suite("Dialog bots")
struct BotDialogTests {
    static let secret = "bot-secret"

    func hex(_ body: Data, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    /// Sends a Web API request as `transport`, expects `status`, checks the answer against `schema`.
    func call(
        _ transport: HTTPTransport, _ method: String, _ path: String, _ body: String? = nil, query: [(String, String)] = [], status: Int = 200,
        schema: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        try await transport.webAPI(method, path, body, query: query, status: status, schema: schema, sourceLocation: sourceLocation)
    }

    /// Checks a request the bot received: signed with the bot's secret, in the vendor's schema.
    func checkDelivery(_ delivery: WebhookReceiver.Received, schema: String) throws -> [String: Any] {
        let name = delivery.headers["x-unblu-event"] ?? ""
        #expect(delivery.headers["x-unblu-signature-256"] == hex(delivery.body, secret: Self.secret), "\(name): signature")
        let problems = VendorSchemaCheck.problems(delivery.body, schema: schema)
        #expect(problems.isEmpty, "\(name) does not fit \(schema): \(problems)")
        let object = try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
        #expect(object["$_type"] as? String == schema)
        return object
    }

    func botBody(_ name: String, endpoint: String, filter: String = "VISITORS", extra: String = "") -> String {
        #"{"$_type":"DialogBotData","name":"\#(name)","webhookEndpoint":"\#(endpoint)","webhookSecret":"\#(Self.secret)","#
            + #""onboardingFilter":"\#(filter)"\#(extra)}"#
    }

    @Test("create, read, getByName, search, update (versioned), sendPing and delete; the secret is never returned; bad input is a 4xx")
    func crud() async throws {
        let bot = try await BotReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let created = try await call(
                admin, "POST", "bots/create", botBody("Greeter", endpoint: bot.url, extra: #","description":"says hello""#), schema: "DialogBotData")
            let id = try #require(created["id"] as? String)
            #expect(created["webhookSecret"] == nil, "the secret is never returned")
            #expect(created["onboardingFilter"] as? String == "VISITORS")
            #expect(created["botPersonId"] as? String != nil)
            let person = try await call(admin, "GET", "persons/\(try #require(created["botPersonId"] as? String))/read", schema: "PersonData")
            #expect(person["personType"] as? String == "BOT")

            _ = try await call(admin, "GET", "bots/\(id)/read", schema: "DialogBotData")
            let byName = try await call(admin, "GET", "bots/getByName", query: [("name", "Greeter")], schema: "DialogBotData")
            #expect(byName["id"] as? String == id)
            _ = try await call(admin, "GET", "bots/getByName", query: [("name", "Nobody")], status: 404)
            let found = try await call(
                admin, "POST", "bots/search",
                #"{"$_type":"DialogBotQuery","searchFilters":[{"$_type":"NameDialogBotSearchFilter","field":"NAME","#
                    + #""operator":{"$_type":"EqualsStringOperator","type":"EQUALS","value":"Greeter"}}]}"#,
                schema: "DialogBotResult"
            )
            #expect((found["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])

            // Duplicate names, bad endpoints, bad enums and stale versions are refused and change nothing.
            _ = try await call(admin, "POST", "bots/create", botBody("Greeter", endpoint: bot.url), status: 409)
            _ = try await call(admin, "POST", "bots/create", botBody("Bad", endpoint: "ftp://x"), status: 400)
            _ = try await call(admin, "POST", "bots/create", botBody("Bad", endpoint: bot.url, filter: "EVERYONE"), status: 400)
            _ = try await call(
                admin, "POST", "bots/create", botBody("Bad", endpoint: bot.url, extra: #","outboundTimeoutMillis":999999999"#), status: 400)
            _ = try await call(admin, "GET", "bots/getByName", query: [("name", "Bad")], status: 404)
            _ = try await call(
                admin, "POST", "bots/update",
                #"{"$_type":"DialogBotData","id":"\#(id)","version":7,"name":"Greeter 2","webhookEndpoint":"\#(bot.url)"}"#, status: 409)
            let updated = try await call(
                admin, "POST", "bots/update",
                #"{"$_type":"DialogBotData","id":"\#(id)","version":1,"name":"Greeter 2","webhookEndpoint":"\#(bot.url)"}"#, schema: "DialogBotData"
            )
            #expect(updated["version"] as? Int == 2)
            #expect(updated["description"] as? String == "says hello", "absent fields stay")
            _ = try await call(admin, "GET", "bots/getByName", query: [("name", "Greeter 2")], schema: "DialogBotData")
            _ = try await call(admin, "GET", "bots/getByName", query: [("name", "Greeter")], status: 404)

            // The ping goes to the bot's endpoint, signed, and its answer comes back.
            let pong = try await call(admin, "POST", "bots/\(id)/sendPing", schema: "PingResponse")
            let ping = try checkDelivery(try await bot.wait(for: "outbound.ping"), schema: "PingRequest")
            #expect(pong["pingId"] as? String == ping["pingId"] as? String)

            _ = try await call(admin, "DELETE", "bots/\(id)/delete", status: 204)
            _ = try await call(admin, "GET", "bots/\(id)/read", status: 404)
        }
        try await bot.stop()
    }

    @Test("onboarding: the bot accepts the offer, hears the visitor, types and answers (the visitor's client sees both), hands off to the queue")
    func onboardingHandOff() async throws {
        let bot = try await BotReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let created = try await call(admin, "POST", "bots/create", botBody("Onboarder", endpoint: bot.url), schema: "DialogBotData")
            let botPersonId = try #require(created["botPersonId"] as? String)

            let app = visitor(server, device: "bot-phone")
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            let conversation = try await app.startConversation(topic: "help me")

            let offer = try checkDelivery(try await bot.wait(for: "outbound.bot.onboarding_offer"), schema: "BotOnboardingOfferRequest")
            let token = try #require(offer["dialogToken"] as? String)
            #expect((offer["conversation"] as? [String: Any])?["id"] as? String == conversation.id)
            let opened = try checkDelivery(try await bot.wait(for: "outbound.bot.dialog.opened"), schema: "BotDialogOpenRequest")
            #expect(opened["dialogToken"] as? String == token)
            #expect(opened["dialogType"] as? String == "ONBOARDING")
            #expect(try await app.conversation(conversation.id).state == "ONBOARDING", "the conversation waits for the bot, not in the queue")

            _ = try await app.send("I lost my card", in: conversation.id)
            let heard = try checkDelivery(try await bot.wait(for: "outbound.bot.dialog.message"), schema: "BotDialogMessageRequest")
            #expect(heard["dialogToken"] as? String == token)
            #expect((heard["conversationMessage"] as? [String: Any])?["text"] as? String == "I lost my card")

            for (path, typing) in [("startDialogBotTypingIndicator", "true"), ("cancelDialogBotTypingIndicator", "false")] {
                _ = try await call(admin, "POST", "bots/\(path)", #"{"dialogToken":"\#(token)"}"#, status: 204)
                _ = try await events.wait(for: "the bot typing: \(typing)") {
                    if case .live(let event) = $0 {
                        return event.type == "conversation.typing" && event.detail?["personId"] == botPersonId && event.detail?["typing"] == typing
                    }
                    return false
                }
            }
            let sent = try await call(
                admin, "POST", "bots/sendDialogMessage",
                #"{"$_type":"BotDialogPostMessage","dialogToken":"\#(token)","#
                    + #""messageData":{"$_type":"TextPostMessageData","type":"TEXT","text":"Let me find an agent"}}"#,
                schema: "SendMessageResult"
            )
            let messageId = try #require(sent["messageId"] as? String)
            _ = try await events.wait(for: "the bot's message") {
                if case .live(let event) = $0 { return event.message?.id == messageId && event.message?.senderPersonId == botPersonId }
                return false
            }
            #expect(try await app.messages(in: conversation.id).messages.map(\.text) == ["I lost my card", "Let me find an agent"])
            #expect(bot.all.filter { $0.headers["x-unblu-event"] == "outbound.bot.dialog.message" }.count == 1, "the bot does not hear itself")

            _ = try await call(admin, "POST", "bots/finishDialog", #"{"dialogToken":"\#(token)","reason":"HAND_OFF"}"#, status: 204)
            let closed = try checkDelivery(try await bot.wait(for: "outbound.bot.dialog.closed"), schema: "BotDialogClosedRequest")
            #expect(closed["conversationId"] as? String == conversation.id)
            #expect(try await app.conversation(conversation.id).state == "QUEUED")
            _ = try await call(
                admin, "POST", "bots/sendDialogMessage", #"{"dialogToken":"\#(token)","messageData":{"type":"TEXT","text":"late"}}"#, status: 409)
            _ = try await call(admin, "POST", "bots/finishDialog", #"{"dialogToken":"\#(token)","reason":"SOLVED"}"#, status: 409)

            let agentA = try await agent(server, "agent-a")
            _ = try await agentA.accept(conversation.id)
        }
        try await bot.stop()
    }

    @Test("a refused offer queues the conversation; SOLVED leaves it unassigned; ABORTED ends it; bad finish reasons are a 400")
    func offerRefusedAndFinishReasons() async throws {
        let refusing = try await BotReceiver(acceptOffers: false)
        let accepting = try await BotReceiver()
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            let refuser = try await call(admin, "POST", "bots/create", botBody("Refuser", endpoint: refusing.url), schema: "DialogBotData")
            let app = visitor(server, device: "refused-phone")
            try await app.start()
            let events = ClientEventCollector(app.clientEvents)
            let first = try await app.startConversation(topic: "refused")
            _ = try await refusing.wait(for: "outbound.bot.onboarding_offer")
            _ = try await events.wait(for: "queued after the refusal") {
                if case .live(let event) = $0 { return event.type == "conversation.queued" && event.conversation?.id == first.id }
                return false
            }
            #expect(refusing.all.allSatisfy { $0.headers["x-unblu-event"] == "outbound.bot.onboarding_offer" }, "a refused dialog never opens")

            _ = try await call(admin, "DELETE", "bots/\(try #require(refuser["id"] as? String))/delete", status: 204)
            _ = try await call(admin, "POST", "bots/create", botBody("Solver", endpoint: accepting.url), schema: "DialogBotData")
            for (reason, state) in [("SOLVED", "UNASSIGNED"), ("ABORTED", "ENDED")] {
                let conversation = try await app.startConversation(topic: reason)
                let opened = try await accepting.wait(for: "outbound.bot.dialog.opened") { delivery in
                    let object = try? JSONSerialization.jsonObject(with: delivery.body) as? [String: Any]
                    return (object?["conversation"] as? [String: Any])?["id"] as? String == conversation.id
                }
                let token = try #require((try JSONSerialization.jsonObject(with: opened.body) as? [String: Any])?["dialogToken"] as? String)
                _ = try await call(admin, "POST", "bots/finishDialog", #"{"dialogToken":"\#(token)","reason":"LATER"}"#, status: 400)
                _ = try await call(admin, "POST", "bots/finishDialog", #"{"dialogToken":"\#(token)","reason":"\#(reason)"}"#, status: 204)
                #expect(try await app.conversation(conversation.id).state == state, "\(reason)")
            }
            _ = try await call(admin, "POST", "bots/finishDialog", #"{"dialogToken":"no-such-token","reason":"SOLVED"}"#, status: 404)
        }
        try await refusing.stop()
        try await accepting.stop()
    }

    @Test("an offer the bot never answers is given up when the server clock passes its expiry; a conversation that ends closes its dialog")
    func offerExpiryAndConversationEnd() async throws {
        let silent = try await SilentEndpoint()
        let bot = try await BotReceiver()
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            try await server.control.changeClock(ClockChange(frozen: true))
            let mute = try await call(
                admin, "POST", "bots/create", botBody("Mute", endpoint: silent.url, extra: #","outboundTimeoutMillis":60000"#),
                schema: "DialogBotData"
            )
            let app = visitor(server, device: "expiry-phone")
            try await app.start(liveEvents: false)
            let waiting = try await app.startConversation(topic: "anyone?")
            #expect(try await app.conversation(waiting.id).state == "ONBOARDING")
            try await server.control.changeClock(ClockChange(advanceMillis: 120_000))
            #expect(try await app.conversation(waiting.id).state == "ONBOARDING", "not yet")
            try await server.control.changeClock(ClockChange(advanceMillis: 2_000))
            #expect(try await app.conversation(waiting.id).state == "QUEUED", "given up: handed over to the queue")
            try await silent.stop()

            _ = try await call(admin, "DELETE", "bots/\(try #require(mute["id"] as? String))/delete", status: 204)
            _ = try await call(admin, "POST", "bots/create", botBody("Listener", endpoint: bot.url), schema: "DialogBotData")
            let conversation = try await app.startConversation(topic: "bye")
            let opened = try await bot.wait(for: "outbound.bot.dialog.opened")
            let token = try #require((try JSONSerialization.jsonObject(with: opened.body) as? [String: Any])?["dialogToken"] as? String)
            _ = try await app.endConversation(conversation.id)
            let closed = try checkDelivery(try await bot.wait(for: "outbound.bot.dialog.closed"), schema: "BotDialogClosedRequest")
            #expect(closed["dialogToken"] as? String == token)
            _ = try await call(admin, "POST", "bots/finishDialog", #"{"dialogToken":"\#(token)","reason":"SOLVED"}"#, status: 409)
        }
        try await bot.stop()
    }

    @Test("bots and open dialogs are stored: after a restart on the same SQLite file the bot is found by name and its dialog goes on")
    func durable() async throws {
        let bot = try await BotReceiver()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let (token, conversationId) = try await InProcessServer.with(storage: storage, seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            _ = try await call(admin, "POST", "bots/create", botBody("Keeper", endpoint: bot.url), schema: "DialogBotData")
            let app = visitor(server, device: "durable-phone")
            try await app.start(liveEvents: false)
            let conversation = try await app.startConversation(topic: "durable")
            let opened = try await bot.wait(for: "outbound.bot.dialog.opened")
            let token = try #require((try JSONSerialization.jsonObject(with: opened.body) as? [String: Any])?["dialogToken"] as? String)
            return (token, conversation.id)
        }
        try await InProcessServer.with(storage: storage, seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            _ = try await call(admin, "GET", "bots/getByName", query: [("name", "Keeper")], schema: "DialogBotData")
            _ = try await call(
                admin, "POST", "bots/sendDialogMessage", #"{"dialogToken":"\#(token)","messageData":{"type":"TEXT","text":"still here"}}"#,
                schema: "SendMessageResult")
            _ = try await call(admin, "POST", "bots/finishDialog", #"{"dialogToken":"\#(token)","reason":"HAND_OFF"}"#, status: 204)
            let conversation = try await call(admin, "GET", "conversations/\(conversationId)/read")
            #expect(conversation["state"] as? String == "QUEUED")
        }
        try await bot.stop()
    }
}
