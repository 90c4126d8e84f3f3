import CollabClient
import CollabCore
import CollabServer
import CollabWire
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Testing

/// A moderation backend: rejects texts with "forbidden", answers texts with "slow" too late, approves the rest.
final class ModerationEndpoint: Sendable {
    private let server: LoopbackHTTPServer
    private let box = ReceivedBox()
    var port: Int { server.port }
    var url: String { "http://127.0.0.1:\(port)/moderate" }

    init() async throws {
        let router = Router()
        let box = self.box
        router.post("moderate") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let body = Data(buffer.readableBytesView)
            box.append(.init(headers: headers, body: body))
            let intercepted = try? JSONDecoder().decode(WebInterceptorNewMessageRequest.self, from: body)
            let text = intercepted?.conversationMessage.flatMap { $0.text ?? $0.fallbackText } ?? ""
            if text.contains("slow") { try await Task.sleep(for: .seconds(2)) }
            let decision = text.contains("forbidden")
                ? WebMessageInterceptorDecision(approve: false, reason: "contains a forbidden word") : WebMessageInterceptorDecision(approve: true)
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(decision))))
        }
        server = await LoopbackHTTPServer(router, label: "moderation")
    }

    var all: [WebhookReceiver.Received] { box.all }

    func stop() async throws {
        try await server.stop()
    }
}

/// `fileSeed` with a message-interceptor timeout: short (for the timeout tests) or one no busy machine reaches.
func moderationSeed(timeoutMillis: Int) -> Seed {
    var seed = fileSeed
    seed.accounts[0].configuration?["com.unblu.messageinterceptor.timeoutMillis"] = String(timeoutMillis)
    return seed
}

@Suite("Message interceptors", .serialized)
struct MessageInterceptorTests {
    @Test("an external interceptor approves or rejects visitors' messages; a rejection is a 403 MESSAGE_REJECTED and fires message_rejected")
    func approveAndReject() async throws {
        let moderation = try await ModerationEndpoint()
        let hooks = try await WebhookReceiver()
        try await TestServer.with(seed: moderationSeed(timeoutMillis: 60_000)) { server in
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            let _: WebWebhookRegistration = try await admin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(
                    name: "moderation", endpoint: hooks.url, events: ["message_interceptor.message_rejected"], secret: "hook-secret")
            )
            let created: WebMessageInterceptor = try await admin.send(
                "POST", "/app/rest/v4/messageinterceptors/create",
                body: WebMessageInterceptor(
                    name: "moderation", messageFilter: "VISITOR", timeoutBehavior: "REJECT", webhookEndpoint: moderation.url,
                    webhookSecret: "mod-secret")
            )
            #expect(created.interceptorType == "EXTERNAL")
            let scenario = try await FileScenario.make(server)
            let fine = try await scenario.app.send("hello there", in: scenario.conversationId)
            #expect(fine.text == "hello there")
            let request = try #require(moderation.all.first)
            #expect(request.headers["x-unblu-event"] == "outbound.message_interceptor.new_message")
            #expect(request.headers["x-unblu-signature-256"] == FileInterceptorTests.hex(request.body, secret: "mod-secret"))
            let sent = try JSONDecoder().decode(WebInterceptorNewMessageRequest.self, from: request.body)
            #expect(sent.conversationMessage?.text == "hello there")
            #expect(sent.conversationMessage?.conversationId == scenario.conversationId)

            let error = await #expect(throws: CollabClientError.self) { try await scenario.app.send("a forbidden word", in: scenario.conversationId) }
            #expect(error?.status == 403)
            #expect(error?.message.contains("forbidden word") == true)
            #expect(try await scenario.agent.messages(in: scenario.conversationId).messages.map(\.text) == ["hello there"], "nothing stored")
            let announced = try #require(try await hooks.wait(count: 1).first)
            #expect(announced.headers["x-unblu-event"] == "message_interceptor.message_rejected")
            let event = try JSONDecoder().decode(WebMessageRejectedEvent.self, from: announced.body)
            #expect(event.type == "MessageRejectedEvent")
            #expect(event.reason == "contains a forbidden word")
            #expect(event.message?.text == "a forbidden word")

            // A FILE message goes before the interceptors too (its name is the fallback text).
            let refusedFile = await #expect(throws: CollabClientError.self) {
                try await scenario.app.uploadFile(data: pngBytes(200), named: "forbidden.png", in: scenario.conversationId)
            }
            #expect(refusedFile?.status == 403)
            #expect(refusedFile.flatMap(refusalType) == "MESSAGE_REJECTED")
            #expect(server.server.fileBytesStored == 0)
            let fileRequest = try JSONDecoder().decode(WebInterceptorNewMessageRequest.self, from: try #require(moderation.all.last).body)
            #expect(fileRequest.conversationMessage?.type == "FileMessageData")
            #expect(fileRequest.conversationMessage?.fileName == "forbidden.png")
            _ = try await hooks.wait(count: 2)

            // The filter is VISITOR: the agent's messages pass without a call (it would have rejected this one).
            let before = moderation.all.count
            _ = try await scenario.agent.send("the forbidden word, from the agent", in: scenario.conversationId)
            #expect(moderation.all.count == before)
        }
        try await moderation.stop()
        try await hooks.stop()
    }

    @Test("no answer in time on the injected clock: REJECT refuses the message, CONTINUE lets it through")
    func timeoutBehavior() async throws {
        let moderation = try await ModerationEndpoint()
        let clock = ManualClock()
        try await InProcessServer.with(seed: moderationSeed(timeoutMillis: 300), configure: { $0.uploadClock = clock }) { server in
            let admin = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-f", password: "pw"))
            var interceptor: WebMessageInterceptor = try await admin.send(
                "POST", "/app/rest/v4/messageinterceptors/create",
                body: WebMessageInterceptor(name: "slowpoke", messageFilter: "ALL", timeoutBehavior: "REJECT", webhookEndpoint: moderation.url)
            )
            let scenario = try await FileScenario.make(server)
            /// Sends a message and, once the interceptor has it and the message waits on the clock, moves
            /// the clock by the account's 300 ms: the answer, however long the machine takes.
            func sendTimedOut(_ send: @escaping @Sendable () async throws -> MessageView) async throws -> Task<MessageView, any Error> {
                let before = moderation.all.count
                let sent = Task { try await send() }
                try await eventually("the interceptor to have the message") { moderation.all.count > before }
                try await clock.waitForSleepers(1, what: "the message's wait for the interceptor's answer")
                clock.advance(by: .milliseconds(300))
                return sent
            }
            let (app, agent, conversationId) = (scenario.app, scenario.agent, scenario.conversationId)
            let refused = try await sendTimedOut { try await app.send("a slow one", in: conversationId) }
            let error = await #expect(throws: CollabClientError.self) { try await refused.value }
            #expect(error?.status == 403)
            #expect(error?.message.contains("did not answer in time") == true)
            interceptor.timeoutBehavior = "CONTINUE"
            let _: WebMessageInterceptor = try await admin.send("POST", "/app/rest/v4/messageinterceptors/update", body: interceptor)
            let passed = try await sendTimedOut { try await agent.send("another slow one", in: conversationId) }.value
            #expect(passed.text == "another slow one")
            // Management: read, search, bad input, another account.
            let id = try #require(interceptor.id)
            let read: WebMessageInterceptor = try await admin.send("GET", "/app/rest/v4/messageinterceptors/\(id)/read")
            #expect(read.timeoutBehavior == "CONTINUE")
            let found: WebResult<WebMessageInterceptor> = try await admin.send(
                "POST", "/app/rest/v4/messageinterceptors/search", body: WebQuery(type: "MessageInterceptorQuery"))
            #expect(found.items?.count == 1)
            #expect(
                try await admin.raw(
                    "POST", "/app/rest/v4/messageinterceptors/create",
                    body: Data(#"{"name":"x","webhookEndpoint":"http://a.b/c","messageFilter":"SOME"}"#.utf8)
                ).status == 400)
            #expect(
                try await admin.raw(
                    "POST", "/app/rest/v4/messageinterceptors/create", body: Data(#"{"$_type":"InternalMessageInterceptorData","name":"y"}"#.utf8)
                ).status == 400)
            let other = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin-o", password: "pw"))
            #expect(try await other.raw("GET", "/app/rest/v4/messageinterceptors/\(id)/read").status == 404)
            #expect(try await admin.raw("DELETE", "/app/rest/v4/messageinterceptors/\(id)/delete").status == 204)
        }
        try await moderation.stop()
    }
}
