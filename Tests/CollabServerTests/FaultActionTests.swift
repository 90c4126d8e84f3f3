import AsyncHTTPClient
import CollabClient
import CollabCore
import CollabWire
import CollabStore
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOWebSocket
import Testing

@testable import CollabServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fault actions beyond latency and errors, over real sockets: a connection closed without an
/// answer, a reset, a truncated body, a bandwidth cap, a WebSocket closed with a chosen code, live
/// events dropped or delayed, webhook deliveries failing or timing out. Each is journaled (or, for
/// webhooks, in the delivery log) with its rule id, counted in `/metrics`, and confined to its account.
@Suite("Fault actions", .serialized)
struct FaultActionTests {
    static let whoAmI = "/app/rest/v4/authenticator/getCurrentPerson"

    static func basic(_ user: String, _ password: String) -> String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// A GET over a plain socket, as `user` (password `pw`), asking the server to close afterwards.
    static func rawGet(_ server: TestServer, _ path: String = whoAmI, as user: String = "agent-a") async -> RawHTTPExchange {
        await RawHTTPExchange.exchange(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(basic(user, "pw"))\r\nConnection: close\r\n\r\n", port: server.port)
    }

    /// The journal entries of rule `ruleId`, once there are at least `count` (the journal records a
    /// request when its middleware returns, which can be just after the client saw the connection end).
    static func journaled(_ server: TestServer, ruleId: String?, count: Int = 1) async throws -> [JournalEntry] {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let entries = try await server.control.journal().entries.filter { $0.faultRuleId == ruleId }
            if entries.count >= count || ContinuousClock.now > deadline { return entries }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static func metrics(_ server: TestServer) async throws -> String {
        String(decoding: try await server.transport(.none).raw("GET", "/metrics").body, as: UTF8.self)
    }

    @Test("EMPTY_RESPONSE closes the connection before any byte; journaled with status 0; another account is answered")
    func emptyResponse() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let rule = try await server.control.addFault(FaultRule(match: FaultMatch(path: Self.whoAmI, account: "desk"), action: .emptyResponse))
            let hit = await Self.rawGet(server)
            #expect(hit.received.isEmpty, "no byte of an answer: \(hit.text)")
            #expect(hit.failure == nil, "an orderly close, not a reset")
            let other = await Self.rawGet(server, as: "agent-x")
            #expect(other.head.hasPrefix("HTTP/1.1 200"), "a rule of account desk never touches account other: \(other.text)")
            let entries = try await Self.journaled(server, ruleId: rule.id)
            #expect(entries.count == 1)
            #expect(entries.first?.fault == "EMPTY_RESPONSE" && entries.first?.status == 0 && entries.first?.path == Self.whoAmI)
            #expect(try await Self.metrics(server).contains(#"mockcollab_faults_injected_total{action="empty_response"}"#))
            // The companion client sees a transport failure.
            await #expect(throws: CollabClientError.self) {
                _ = try await agent(server, "agent-a").transport.send("GET", Self.whoAmI, as: WebPerson.self)
            }

            // A request with a body gets the same orderly close (its body is read, not left to turn the close into a reset).
            let app = visitor(server, device: "empty-phone")
            let token = try await app.start().token
            let conversation = try await app.startConversation(topic: "empty")
            _ = try await server.control.addFault(FaultRule(match: FaultMatch(method: "POST", deviceId: "empty-phone"), action: .emptyResponse))
            let before = try await server.entityStats()
            let body = #"{"text":"\#(String(repeating: "x", count: 8_000))"}"#
            let posted = await RawHTTPExchange.exchange(
                "POST /mobile/v1/conversations/\(conversation.id)/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
                port: server.port
            )
            #expect(posted.received.isEmpty && posted.failure == nil, "\(posted.text) \(String(describing: posted.failure))")
            #expect(try await server.entityStats() == before, "nothing is changed")
        }
    }

    @Test("CONNECTION_RESET resets the socket (ECONNRESET) before the handler runs: nothing is changed")
    func connectionReset() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "reset-phone")
            let token = try await app.start().token
            let conversation = try await app.startConversation(topic: "reset")
            let rule = try await server.control.addFault(
                FaultRule(
                    match: FaultMatch(method: "POST", path: "/mobile/v1/conversations/*/messages", deviceId: "reset-phone"), action: .connectionReset)
            )
            let before = try await server.entityStats()
            let body = #"{"text":"lost in transit"}"#
            let hit = await RawHTTPExchange.exchange(
                "POST /mobile/v1/conversations/\(conversation.id)/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
                port: server.port
            )
            #expect(hit.failure == ECONNRESET, "the client's read fails with a reset: \(String(describing: hit.failure)) \(hit.text)")
            #expect(hit.received.isEmpty)
            await #expect(throws: CollabClientError.self) { _ = try await app.send("again", in: conversation.id) }
            #expect(try await server.entityStats() == before, "a reset request changes nothing")
            let entries = try await Self.journaled(server, ruleId: rule.id, count: 2)
            #expect(entries.count == 2 && entries.allSatisfy { $0.fault == "CONNECTION_RESET" && $0.status == 0 })
            #expect(try await Self.metrics(server).contains(#"action="connection_reset""#))
            // Its other requests are answered.
            #expect(try await app.conversations().contains { $0.id == conversation.id })
        }
    }

    @Test("TRUNCATED_BODY sends the real status and full Content-Length, then part of the body, then closes; only GETs are cut")
    func truncatedBody() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let whole = await Self.rawGet(server)
            let length = try #require(whole.contentLength)
            #expect(whole.body.count == length)

            let rule = try await server.control.addFault(FaultRule(match: FaultMatch(path: Self.whoAmI), action: .truncatedBody(bytes: 10)))
            let cut = await Self.rawGet(server)
            #expect(cut.head.hasPrefix("HTTP/1.1 200"), "\(cut.text)")
            #expect(cut.contentLength == length, "the promised length is the real one")
            #expect(cut.body.count == 10 && cut.body.first == UInt8(ascii: "{"), "the first 10 bytes of the real body, then the end")
            #expect(cut.failure == nil)

            _ = try await server.control.replaceFault(
                rule.id ?? "", with: FaultRule(match: FaultMatch(path: Self.whoAmI), action: .truncatedBody(fraction: 0.5)))
            let half = await Self.rawGet(server)
            #expect(half.contentLength == length && half.body.count == length / 2)
            let entries = try await Self.journaled(server, ruleId: rule.id, count: 2)
            #expect(entries.count == 2 && entries.allSatisfy { $0.fault == "TRUNCATED_BODY" && $0.status == 200 })

            // A change's answer is never cut: the rule skips anything but GET.
            _ = try await server.control.addFault(FaultRule(match: FaultMatch(path: "/mobile/v1/**"), action: .truncatedBody()))
            let app = visitor(server, device: "cut-phone")
            try await app.start()
            let conversation = try await app.startConversation(topic: "whole")
            #expect(try await app.send("sent whole", in: conversation.id).text == "sent whole")
            #expect(try await Self.metrics(server).contains(#"action="truncated_body""#))
        }
    }

    @Test("over HTTP/2 an empty response, a reset and a cut body fail that request only; the server answers the next ones", arguments: [
        FaultAction.emptyResponse, .connectionReset, .truncatedBody(bytes: 5),
    ])
    func http2Streams(action: FaultAction) async throws {
        try await TLSSetup.with { setup in
            let path = "/app/rest/v4/accounts/getCurrentAccount"
            let rule = try await setup.control().addFault(FaultRule(match: FaultMatch(path: path), action: action, limit: 1))
            var configuration = HTTPClient.Configuration(tlsConfiguration: try setup.tls().configuration)
            configuration.httpVersion = .automatic
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                var request = HTTPClientRequest(url: setup.baseURL + path)
                request.headers.add(name: "Authorization", value: Self.basic("admin", "admin"))
                await #expect(throws: (any Error).self, "\(action.type)") {
                    let response = try await client.execute(request, timeout: .seconds(10))
                    _ = try await response.body.collect(upTo: 1 << 20)
                }
                let next = try await client.execute(request, timeout: .seconds(10))
                #expect(next.version == .http2 && next.status == .ok)
                _ = try await next.body.collect(upTo: 1 << 20)
                var entries: [JournalEntry] = []
                let deadline = ContinuousClock.now + .seconds(10)
                while entries.isEmpty, ContinuousClock.now < deadline {
                    entries = try await setup.control().journal().entries.filter { $0.faultRuleId == rule.id }
                    if entries.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
                }
                #expect(entries.map(\.fault) == [action.type])
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    @Test("BANDWIDTH paces file uploads and downloads; the bytes arrive intact and the transfers are journaled")
    func bandwidth() async throws {
        try await TestServer.with(seed: fileSeed) { server in
            let scenario = try await FileScenario.make(server, device: "slow-link")
            let rule = try await server.control.addFault(
                FaultRule(
                    match: FaultMatch(path: "/mobile/v1/conversations/*/files/**", deviceId: "slow-link"),
                    action: .bandwidth(bytesPerSecond: 64 * 1024))
            )
            let bytes = pngBytes(40_000)
            let message = try await scenario.app.uploadFile(data: bytes, named: "slow.png", contentType: "image/png", in: scenario.conversationId)
            let file = try #require(message.file)
            #expect(file.size == Int64(bytes.count))
            let download = try await scenario.app.downloadFile(file.id, in: scenario.conversationId)
            #expect(download.data == bytes, "paced, not changed")
            let entries = try await Self.journaled(server, ruleId: rule.id, count: 2)
            #expect(entries.map(\.method) == ["POST", "GET"] && entries.allSatisfy { $0.fault == "BANDWIDTH" })
            // The agent's download is not on the capped device.
            #expect(try await scenario.agent.downloadFile(file.id, in: scenario.conversationId).data == bytes)
            #expect(try await Self.journaled(server, ruleId: rule.id).count == 2)
            #expect(try await Self.metrics(server).contains(#"action="bandwidth""#))
        }
    }

    @Test("BANDWIDTH paces co-browsing frames, over HTTP and over the live socket; both are accepted intact")
    func frameBandwidth() async throws {
        let clock = AdjustableClock(frozenAt: 1_900_000_000_000)
        try await TestServer.with(seed: queueSeed, clock: clock) { server in
            let app = visitor(server, device: "frame-phone")
            try await app.start()
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(engagementType: "MOBILE_COBROWSING_REQUEST")
            _ = try await agentA.accept(conversation.id)
            let session = try await app.startCoBrowsing(in: conversation.id)
            let token = try #require(app.session?.token)
            let rule = try await server.control.addFault(
                FaultRule(match: FaultMatch(deviceId: "frame-phone"), action: .bandwidth(bytesPerSecond: 100_000)))

            let posted = try await app.transport.raw(
                "POST", "/mobile/v1/cobrowsing/\(session.id)/frames", body: jpeg(1, size: 20_000), contentType: "image/jpeg",
                headers: [("x-frame-sequence", "1"), ("x-frame-width", "390"), ("x-frame-height", "844")]
            )
            #expect((200..<300).contains(posted.status), "\(String(decoding: posted.body, as: UTF8.self))")
            clock.advance(by: 200)

            let acks = ListBox<FrameAck>()
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(server.port)/mobile/v1/events?token=\(token)", configuration: .init(maxFrameSize: 1 << 20),
                logger: Logger(label: "test")
            ) { inbound, outbound, _ in
                let header = FrameHeader(sessionId: session.id, sequence: 2, captureTime: clock.now(), width: 390, height: 844)
                try await outbound.write(.binary(ByteBuffer(data: header.encode(image: jpeg(2, size: 20_000)))))
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message, let ack = try? JSONDecoder().decode(FrameAck.self, from: Data(text.utf8)),
                        ack.sequence != nil
                    else { continue }
                    acks.append(ack)
                    break
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            #expect(acks.all.map(\.type) == ["frame.accepted"])
            let stats: CoBrowsingStats = try await server.control.transport.send("GET", "/_mock/v1/cobrowsing/\(session.id)/stats")
            #expect(stats.accepted == 2)
            let entries = try await Self.journaled(server, ruleId: rule.id, count: 2)
            #expect(Set(entries.map(\.path)) == ["/mobile/v1/cobrowsing/\(session.id)/frames", "/mobile/v1/events"])
        }
    }

    @Test(
        """
        the WebSocket drops mid-call: an open socket is closed with the rule's code after its next event; \
        the client reconnects and resumes with lastEventId
        """
    )
    func webSocketDropsMidCall() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "call-phone")
            try await app.start()
            let events = EventCollector(app.events)
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "call")
            _ = try await agentA.accept(conversation.id)
            let call = try await agentA.startCall(in: conversation.id)
            try await events.wait(for: "the call ringing") { $0.type == "conversation.call.started" }
            let live = try #require(app.liveConnection)
            #expect(live.connectionCount == 1)

            // Mid-call: the open socket draws the rule before its next event and closes after it, once.
            let rule = try await server.control.addFault(
                FaultRule(
                    match: FaultMatch(path: "/mobile/v1/events", deviceId: "call-phone"),
                    action: .webSocketClose(code: 4000, reason: "network lost", afterEvents: 1), limit: 1
                )
            )
            for text in ["one", "two", "three"] { _ = try await agentA.send(text, in: conversation.id) }
            _ = try await agentA.endCall(call.id)
            try await events.wait(for: "the call's end, after the drop") { $0.type == "conversation.call.ended" }
            try await events.sync(live)
            #expect(live.connectionCount == 2, "closed once, reconnected once")
            let received = events.events
            let ids = received.map(\.id).filter { $0 > 0 }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "every event once, in order: \(ids)")
            #expect(received.compactMap { $0.type == "conversation.new_message" ? $0.message?.text : nil }.suffix(3) == ["one", "two", "three"])
            let entries = try await Self.journaled(server, ruleId: rule.id)
            #expect(entries.count == 1 && entries.first?.fault == "WEBSOCKET_CLOSE" && entries.first?.method == "WS")
            #expect(entries.first?.query?.contains("closeCode=4000") == true)
            #expect(try await server.control.faults().isEmpty, "the limit is spent")
        }
    }

    @Test("WEBSOCKET_CLOSE on connect: the agent's socket is closed before its hello and comes back")
    func webSocketCloseOnConnect() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let rule = try await server.control.addFault(
                FaultRule(
                    match: FaultMatch(surface: "AGENT", path: "/agent/v1/events"), action: .webSocketClose(code: 1012, reason: "restarting"), limit: 1
                )
            )
            let agentA = try await agent(server, "agent-a")
            let stream = try await agentA.connectEvents()
            await stream.waitUntilConnected()
            let events = EventCollector(stream.events)
            try await events.sync(stream)
            #expect(stream.connectionCount == 1, "the closed attempt never said hello")
            let entries = try await Self.journaled(server, ruleId: rule.id)
            #expect(entries.first?.fault == "WEBSOCKET_CLOSE" && entries.first?.path == "/agent/v1/events")
            #expect(try await Self.metrics(server).contains(#"action="websocket_close""#))
            stream.close()
        }
    }

    @Test("LIVE_EVENT_DROP drops one device's messages (other events and devices unaffected); LIVE_EVENT_DELAY still delivers")
    func liveEventDropAndDelay() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let agentA = try await agent(server, "agent-a")
            let dropping = visitor(server, device: "drop-phone")
            try await dropping.start()
            let droppingEvents = EventCollector(dropping.events)
            let steady = visitor(server, device: "steady-phone")
            try await steady.start()
            let steadyEvents = EventCollector(steady.events)
            let first = try await dropping.startConversation(topic: "drop")
            let second = try await steady.startConversation(topic: "steady")
            _ = try await agentA.accept(first.id)
            _ = try await agentA.accept(second.id)

            let rule = try await server.control.addFault(
                FaultRule(match: FaultMatch(deviceId: "drop-phone"), action: .dropLiveEvents(["conversation.new_message"]))
            )
            _ = try await agentA.send("never arrives", in: first.id)
            _ = try await agentA.send("arrives", in: second.id)
            try await steadyEvents.wait(for: "the steady phone's message") { $0.message?.text == "arrives" }
            try await droppingEvents.sync(dropping.liveConnection)
            #expect(!droppingEvents.events.contains { $0.type == "conversation.new_message" && $0.message?.text == "never arrives" })
            #expect(droppingEvents.events.contains { $0.type == "conversation.active" }, "other event types are sent")
            let drops = try await Self.journaled(server, ruleId: rule.id)
            #expect(
                drops.count == 1 && drops.first?.fault == "LIVE_EVENT_DROP" && drops.first?.query?.contains("type=conversation.new_message") == true)

            _ = try await server.control.replaceFault(
                rule.id ?? "",
                with: FaultRule(match: FaultMatch(deviceId: "drop-phone"), action: .delayLiveEvents(millis: 20, ["conversation.new_message"]))
            )
            _ = try await agentA.send("arrives late", in: first.id)
            try await droppingEvents.wait(for: "the delayed message") { $0.message?.text == "arrives late" }
            let delays = try await Self.journaled(server, ruleId: rule.id, count: 2)
            #expect(delays.last?.fault == "LIVE_EVENT_DELAY")
            #expect(try await Self.metrics(server).contains(#"action="live_event_drop""#))
        }
    }

    @Test("WEBHOOK_FAILURE answers for the account's endpoint: retried 5xx, final 4xx, time-outs; logged with the rule id; other accounts delivered")
    func webhookFailure() async throws {
        let receiver = try await WebhookReceiver()
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, seed: twoAccountSeed, controlToken: "test-control-token", passwordHashCost: 4,
            webhookMaxAttempts: 3, webhookInitialBackoff: .milliseconds(10)
        )
        let server = try await TestServer.start(configuration: configuration)
        do {
            func register(_ user: String, _ password: String) async throws -> (HTTPTransport, String) {
                let admin = server.admin(user, password).transport
                let registration: WebWebhookRegistration = try await admin.send(
                    "POST", "/app/rest/v4/webhookregistrations/create",
                    body: WebWebhookRegistration(name: "hooks-\(user)", endpoint: receiver.url, events: ["webhook.ping"])
                )
                return (admin, try #require(registration.id))
            }
            /// Pings and waits until the delivery is settled (DELIVERED or FAILED).
            func ping(_ admin: HTTPTransport, _ id: String) async throws -> WebhookDelivery {
                let known = try await server.control.webhookDeliveries(registrationId: id)
                try await admin.sendWithoutResult("POST", "/app/rest/v4/webhookregistrations/\(id)/sendPing")
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    let log = try await server.control.webhookDeliveries(registrationId: id)
                    if let delivery = log.first(where: { new in !known.contains { $0.deliveryId == new.deliveryId } }), delivery.state != "PENDING" {
                        return delivery
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
                throw CollectorTimeout(description: "a settled delivery", seen: [])
            }
            let (alpha, alphaId) = try await register("alpha-admin", "pw-a")
            let (beta, betaId) = try await register("beta-admin", "pw-b")

            let rule = try await server.control.addFault(
                FaultRule(match: FaultMatch(account: "alpha"), action: .webhookFailure(status: 503), limit: 2))
            let retried = try await ping(alpha, alphaId)
            #expect(retried.state == "DELIVERED")
            #expect(retried.attempts.map(\.status) == [503, 503, 204], "the dispatcher retries an injected 503 as a real one")
            #expect(retried.attempts.map(\.faultRuleId) == [rule.id, rule.id, nil])

            let final = try await server.control.addFault(FaultRule(match: FaultMatch(account: "alpha"), action: .webhookFailure(status: 410)))
            let refused = try await ping(alpha, alphaId)
            #expect(refused.state == "FAILED" && refused.attempts.map(\.status) == [410], "a 4xx is final")
            let other = try await ping(beta, betaId)
            #expect(other.state == "DELIVERED" && other.attempts.map(\.status) == [204], "account beta's deliveries are untouched")
            try await server.control.removeFault(final.id ?? "")

            let timeout = try await server.control.addFault(
                FaultRule(match: FaultMatch(account: "alpha"), action: .webhookTimeout(millis: 5), limit: 1))
            let late = try await ping(alpha, alphaId)
            #expect(late.state == "DELIVERED" && late.attempts.count == 2)
            #expect(late.attempts.first?.error?.contains("timed out") == true && late.attempts.first?.faultRuleId == timeout.id)
            #expect(try await Self.metrics(server).contains(#"action="webhook_failure""#))
            // Each injected attempt is also a journal entry of its own.
            let journaled = try await server.control.journal().entries.filter { $0.method == "WEBHOOK" }
            #expect(journaled.map(\.faultRuleId) == [rule.id, rule.id, final.id, timeout.id])
            #expect(
                journaled.map(\.status) == [503, 503, 410, 0] && journaled.allSatisfy { $0.fault == "WEBHOOK_FAILURE" && $0.path == receiver.url })
        } catch {
            try? await server.stop()
            try? await receiver.stop()
            throw error
        }
        try await server.stop()
        try await receiver.stop()
    }

    @Test("an account admin's connection and live rules act on its own account only")
    func isolationAcrossAccounts() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let alpha = ControlClient(baseURL: server.baseURL, credentials: .basic(username: "alpha-admin", password: "pw-a"))
            var rules: [FaultRule] = []
            for (match, action) in [
                (FaultMatch(path: Self.whoAmI), FaultAction.connectionReset), (FaultMatch(), .dropLiveEvents()),
                (FaultMatch(), .webSocketClose(code: 4000)), (FaultMatch(), .bandwidth(bytesPerSecond: 256)),
            ] {
                rules.append(try await alpha.addFault(FaultRule(match: match, action: action)))
            }
            #expect(Set(rules.map(\.accountId)).count == 1 && rules[0].accountId != nil, "confined to alpha")

            let app = VisitorClient(configuration: ClientConfiguration(baseURL: server.baseURL, apiKey: "beta-key", deviceId: "beta-phone"))
            try await app.start()
            let events = EventCollector(app.events)
            let betaAgent = AgentClient(baseURL: server.baseURL)
            try await betaAgent.login(username: "beta-agent", password: "pw-b")
            let conversation = try await app.startConversation(topic: "beta")
            _ = try await betaAgent.accept(conversation.id)
            _ = try await betaAgent.send("beta is fine", in: conversation.id)
            try await events.wait(for: "beta's message") { $0.message?.text == "beta is fine" }
            let live = try #require(app.liveConnection)
            try await events.sync(live)
            #expect(live.connectionCount == 1, "beta's socket was never closed")

            let beta = await RawHTTPExchange.exchange(
                "GET \(Self.whoAmI) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(Self.basic("beta-agent", "pw-b"))\r\nConnection: close\r\n\r\n",
                port: server.port
            )
            #expect(beta.head.hasPrefix("HTTP/1.1 200") && beta.failure == nil, "\(beta.text)")
            let alphaHit = await RawHTTPExchange.exchange(
                "GET \(Self.whoAmI) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(Self.basic("alpha-agent", "pw-a"))\r\nConnection: close\r\n\r\n",
                port: server.port
            )
            #expect(alphaHit.failure == ECONNRESET)
            let entries = try await Self.journaled(server, ruleId: rules[0].id)
            #expect(entries.count == 1 && entries.allSatisfy { $0.accountId == rules[0].accountId })
            let ruleIds = Set(rules.compactMap(\.id))
            #expect(
                try await server.control.journal().entries.filter { $0.faultRuleId.map(ruleIds.contains) == true }.count == 1,
                "nothing of beta's was hit")
        }
    }

    @Test("live event draws repeat with the seed, honour the event-type filter, and are never asked of another kind")
    func liveDeterminism() throws {
        func draws(seed: UInt64) throws -> [Int?] {
            let rules = FaultRules()
            var rule = FaultRule(
                match: FaultMatch(), action: FaultAction(type: "LIVE_EVENT_DELAY", distribution: "UNIFORM", minMillis: 10, maxMillis: 500),
                probability: 0.5, seed: seed
            )
            rule.id = "rule-\(seed)"
            rule.action.eventTypes = ["conversation.new_message"]
            try rules.add(rule, owner: .server, now: 0)
            let message = FaultRules.Request(
                surface: "MOBILE", method: "GET", path: "/mobile/v1/events", accountId: "a", deviceId: "d", clientId: "c",
                eventType: "conversation.new_message"
            )
            var other = message
            other.eventType = "conversation.ended"
            #expect(rules.injection(for: other, now: 0, kind: .liveEvent) == nil, "another event type is not drawn for")
            #expect(rules.injection(for: message, now: 0, kind: .request) == nil, "a live rule never hits a request")
            return (0..<40).map { _ in
                if case .delayEvent(_, let millis)? = rules.injection(for: message, now: 0, kind: .liveEvent) { return millis }
                return nil
            }
        }
        let first = try draws(seed: 42)
        #expect(try draws(seed: 42) == first)
        #expect(first.contains(nil) && first.contains { $0 != nil }, "a probability of 0.5 hits some and spares some")
        #expect(first.compactMap { $0 }.allSatisfy { (10...500).contains($0) })
        #expect(try draws(seed: 7) != first)
    }

    @Test("a replacement with a bad action is refused and the rule stays as it was")
    func badReplacement() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let rule = try await FaultRuleTests.add(server, FaultRule(match: FaultMatch(deviceId: "phone"), action: .webSocketClose(code: 4000)))
            let refused = try await server.call(
                .put, "/_mock/v1/faults/\(rule.id ?? "")", authorization: FaultRuleTests.root,
                body: #"{"match":{"deviceId":"phone"},"action":{"type":"WEBSOCKET_CLOSE","closeCode":1006}}"#
            )
            #expect(refused.status == .badRequest && refused.text.contains("action.closeCode"))
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: FaultRuleTests.root).decode(FaultRuleList.self).rules == [rule])
        }
    }

    @Test("bad fault actions get a 400 naming the field and add nothing", .serialized, arguments: [
        (#"{"match":{},"action":{"type":"WEBSOCKET_CLOSE","closeCode":1005}}"#, "action.closeCode"),
        (#"{"match":{},"action":{"type":"WEBSOCKET_CLOSE","closeCode":999}}"#, "action.closeCode"),
        (#"{"match":{},"action":{"type":"WEBSOCKET_CLOSE","closeCode":5000}}"#, "action.closeCode"),
        (#"{"match":{},"action":{"type":"WEBSOCKET_CLOSE","afterEvents":-1}}"#, "action.afterEvents"),
        (#"{"match":{},"action":{"type":"WEBSOCKET_CLOSE","reason":"\#(String(repeating: "x", count: 124))"}}"#, "action.reason"),
        (#"{"match":{"surface":"WEB_API"},"action":{"type":"WEBSOCKET_CLOSE"}}"#, "match.surface"),
        (#"{"match":{},"action":{"type":"BANDWIDTH","bytesPerSecond":10}}"#, "action.bytesPerSecond"),
        (#"{"match":{},"action":{"type":"BANDWIDTH"}}"#, "action.bytesPerSecond"),
        (#"{"match":{},"action":{"type":"TRUNCATED_BODY","fraction":1}}"#, "action.fraction"),
        (#"{"match":{},"action":{"type":"TRUNCATED_BODY","bytes":-1}}"#, "action.bytes"),
        (#"{"match":{},"action":{"type":"TRUNCATED_BODY","bytes":3,"fraction":0.5}}"#, "action.bytes"),
        (#"{"match":{},"action":{"type":"LIVE_EVENT_DROP","eventTypes":["no.such.event"]}}"#, "action.eventTypes"),
        (#"{"match":{},"action":{"type":"LIVE_EVENT_DROP","eventTypes":[]}}"#, "action.eventTypes"),
        (#"{"match":{},"action":{"type":"ERROR","eventTypes":["conversation.ended"]}}"#, "action.eventTypes"),
        (#"{"match":{},"action":{"type":"LIVE_EVENT_DELAY","millis":60001}}"#, "action.millis"),
        (#"{"match":{},"action":{"type":"WEBHOOK_FAILURE","status":200}}"#, "action.status"),
        (#"{"match":{},"action":{"type":"WEBHOOK_FAILURE","status":503,"timeout":true}}"#, "action.timeout"),
        (#"{"match":{"deviceId":"phone"},"action":{"type":"WEBHOOK_FAILURE"}}"#, "account only"),
    ])
    func badActions(body: String, field: String) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let answer = try await server.call(.post, "/_mock/v1/faults", authorization: FaultRuleTests.root, body: body)
            #expect(answer.status == .badRequest, "\(body): \(answer.text)")
            #expect(answer.text.contains(field), "\(body): \(answer.text)")
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: FaultRuleTests.root).decode(FaultRuleList.self).rules.isEmpty)
        }
    }
}
