import AsyncHTTPClient
import CollabClient
import CollabWire
import Foundation
import NIOCore
import Synchronization

/// The two accounts of `bench noisy-neighbour`, seeded afresh for each run: each with a visitor in a
/// conversation an agent accepted, a co-browsing session and an admin.
struct NoisyTenants: Sendable {
    let quiet: BenchTenant
    let noisy: BenchTenant

    /// Seeds both accounts; each account's requests go through its own client.
    static func make(url: String, controlToken: String, quietHTTP: HTTPClient, noisyHTTP: HTTPClient) async throws -> NoisyTenants {
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let control = ControlClient(baseURL: url, credentials: .bearer(controlToken), client: quietHTTP)
        let names = ["quiet-\(run)", "noisy-\(run)"]
        _ = try await control.seed(
            "accounts:\n"
                + names.map { name in
                    """
                      - name: \(name)
                        apiKeys: [{key: \(name)-key}]
                        namedAreas: [{siteId: \(name)-area}]
                        users:
                          - {username: \(name)-admin, password: \(name)-pw, role: ADMIN}
                          - {username: \(name)-agent, password: \(name)-pw, role: REGISTERED_USER}

                    """
                }.joined()
        )
        return NoisyTenants(
            quiet: try await BenchTenant.make(name: names[0], url: url, http: quietHTTP),
            noisy: try await BenchTenant.make(name: names[1], url: url, http: noisyHTTP)
        )
    }
}

/// One account of the benchmark and what it can do.
final class BenchTenant: Sendable {
    let url: String
    let http: HTTPClient
    let visitor: HTTPTransport
    let admin: HTTPTransport
    let agent: AgentClient
    /// The agent's username, for password checks.
    let agentUsername: String
    let conversation: String
    let coBrowsing: String
    /// The agent's live events, and who waits for which message text.
    let events: LiveEventStream
    let waiters = Mutex<[String: CheckedContinuation<Bool, Never>]>([:])

    private init(
        url: String, http: HTTPClient, visitor: HTTPTransport, admin: HTTPTransport, agent: AgentClient, agentUsername: String, conversation: String,
        coBrowsing: String, events: LiveEventStream
    ) {
        (self.url, self.http, self.visitor, self.admin, self.agent, self.agentUsername) = (url, http, visitor, admin, agent, agentUsername)
        (self.conversation, self.coBrowsing, self.events) = (conversation, coBrowsing, events)
    }

    static func make(name: String, url: String, http: HTTPClient) async throws -> BenchTenant {
        let app = VisitorClient(
            configuration: ClientConfiguration(baseURL: url, apiKey: "\(name)-key", namedArea: "\(name)-area", deviceId: "\(name)-phone"),
            client: http
        )
        let started = try await app.start(liveEvents: false)
        let conversation = try await app.startConversation(topic: "noisy neighbour").id
        let agent = AgentClient(baseURL: url, client: http)
        _ = try await agent.login(username: "\(name)-agent", password: "\(name)-pw")
        try await agent.setPresence("ONLINE")
        _ = try await agent.accept(conversation)
        let session = try await agent.requestCoBrowsing(in: conversation)
        _ = try await app.acceptCoBrowsing(session.id)
        let events = try await agent.connectEvents()
        await events.waitUntilConnected()
        let tenant = BenchTenant(
            url: url, http: http, visitor: HTTPTransport(baseURL: url, credentials: .bearer(started.token), client: http),
            admin: HTTPTransport(baseURL: url, credentials: .basic(username: "\(name)-admin", password: "\(name)-pw"), client: http), agent: agent,
            agentUsername: "\(name)-agent", conversation: conversation, coBrowsing: session.id, events: events
        )
        Task { [tenant] in
            for await event in events.events {
                guard event.type == "conversation.new_message", let text = event.message?.text else { continue }
                tenant.waiters.withLock { $0.removeValue(forKey: text) }?.resume(returning: true)
            }
        }
        return tenant
    }

    /// A PNG of `bytes` bytes, different for each `seed`.
    static func png(_ bytes: Int, seed: Int) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<max(0, bytes - 8)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) })
    }

    /// The visitor uploads a picture: `true` when it is stored.
    func upload(bytes: Int, seed: Int) async throws -> Bool {
        let response = try await visitor.raw(
            "POST", "/mobile/v1/conversations/\(conversation)/files", query: [("name", "b\(seed).png")], body: Self.png(bytes, seed: seed),
            contentType: "image/png"
        )
        return response.status == 201
    }

    /// The visitor starts a 1 MiB upload whose body trickles (a byte every 200 ms) until the server cuts it.
    func trickle() async throws -> Bool {
        (try? await visitor.uploadFile(
            "/mobile/v1/conversations/\(conversation)/files", name: "slow.png", contentType: "image/png", length: 1 << 20, body: Trickle()
        )) != nil
    }

    /// The visitor sends a message: `true` when it is stored.
    func message(_ text: String) async throws -> Bool {
        let body = try JSONEncoder().encode(SendMessageRequest(text: text))
        return (200..<300).contains(try await visitor.raw("POST", "/mobile/v1/conversations/\(conversation)/messages", body: body).status)
    }

    /// The agent logs in with a wrong password, a new one each time so that no check is cached or shared
    /// with another: `true` when bcrypt checked it (401), `false` when the check was refused (429) or
    /// anything else came back.
    func wrongPasswordLogin() async throws -> Bool {
        let login = AgentLoginRequest(username: agentUsername, password: "wrong-\(UInt64.random(in: 0...UInt64.max))")
        let anonymous = HTTPTransport(baseURL: url, client: http)
        return try await anonymous.raw("POST", "/agent/v1/login", body: try JSONEncoder().encode(login)).status == 401
    }

    /// The visitor reads the conversation's latest messages.
    func readMessages() async throws -> Bool {
        try await visitor.raw("GET", "/mobile/v1/conversations/\(conversation)/messages", query: [("limit", "20")]).status == 200
    }

    /// The visitor sends a message and waits for it on the agent's live events (at most 30 s).
    func messageToLiveEvent(_ index: Int) async throws -> Bool {
        let text = "live \(index) \(UInt32.random(in: 0...UInt32.max))"
        let arrived = Task {
            await withCheckedContinuation { continuation in waiters.withLock { $0[text] = continuation } }
        }
        while waiters.withLock({ $0[text] == nil }) { await Task.yield() }
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            waiters.withLock { $0.removeValue(forKey: text) }?.resume(returning: false)
        }
        defer { deadline.cancel() }
        guard try await message(text) else {
            waiters.withLock { $0.removeValue(forKey: text) }?.resume(returning: false)
            return false
        }
        return await arrived.value
    }

    /// `count` more live event sockets of the agent, each read to the end.
    func listen(count: Int) async throws -> [Task<Void, Never>] {
        var listeners: [Task<Void, Never>] = []
        for _ in 0..<count {
            let stream = try await agent.connectEvents()
            listeners.append(Task {
                await withTaskCancellationHandler {
                    for await _ in stream.events {}
                } onCancel: {
                    stream.close()
                }
            })
        }
        return listeners
    }

    /// The visitor sends a 20 KB JPEG frame: `true` when it is taken (not throttled, not refused).
    func frame(sequence: Int) async throws -> Bool {
        let image = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: UInt8(truncatingIfNeeded: sequence), count: 20_000)
        let response = try await visitor.raw(
            "POST", "/mobile/v1/cobrowsing/\(coBrowsing)/frames", body: image, contentType: "image/jpeg",
            headers: [("x-frame-sequence", String(sequence)), ("x-frame-width", "390"), ("x-frame-height", "844")]
        )
        return response.status == 202
    }

    /// A fault rule on a path nobody requests.
    private func ruleBody(_ index: Int) -> Data {
        Data(#"{"match":{"path":"/mobile/v1/nothing/\#(index)"},"action":{"type":"ERROR"}}"#.utf8)
    }

    /// The admin adds rules until the account's budget is spent; returns their ids.
    func fillRules() async throws -> [String] {
        var ids: [String] = []
        while ids.count < 10_000 {
            let response = try await admin.raw("POST", "/_mock/v1/faults", body: ruleBody(ids.count))
            guard response.status == 201, let rule = try? JSONDecoder().decode(FaultRule.self, from: response.body), let id = rule.id else { break }
            ids.append(id)
        }
        return ids
    }

    func removeRules(_ ids: [String]) async {
        for id in ids { _ = try? await admin.raw("DELETE", "/_mock/v1/faults/\(id)") }
    }

    /// The admin registers a webhook for pings to `endpoint`; returns its id.
    func registerWebhook(_ endpoint: String) async throws -> String {
        let registration: WebWebhookRegistration = try await admin.send(
            "POST", "/app/rest/v4/webhookregistrations/create",
            body: WebWebhookRegistration(name: "noisy-neighbour-\(UInt32.random(in: 0...UInt32.max))", endpoint: endpoint, events: ["webhook.ping"])
        )
        guard let id = registration.id else {
            throw CollabClientError(code: .decoding, status: nil, message: "the registration came back without an id")
        }
        return id
    }

    /// The admin asks for a ping to registration `id`: `true` when it is queued.
    func sendPing(_ id: String) async throws -> Bool {
        (200..<300).contains(try await admin.raw("POST", "/app/rest/v4/webhookregistrations/\(id)/sendPing").status)
    }

    /// The admin adds a rule and removes it again: `true` when both worked.
    func addAndRemoveRule(_ index: Int) async throws -> Bool {
        let response = try await admin.raw("POST", "/_mock/v1/faults", body: ruleBody(index))
        guard response.status == 201, let id = (try? JSONDecoder().decode(FaultRule.self, from: response.body))?.id else { return false }
        return try await admin.raw("DELETE", "/_mock/v1/faults/\(id)").status == 204
    }
}

/// A body that brings a byte every 200 ms, for ever.
struct Trickle: AsyncSequence, Sendable {
    struct AsyncIterator: AsyncIteratorProtocol {
        mutating func next() async throws -> ByteBuffer? {
            try await Task.sleep(for: .milliseconds(200))
            return ByteBuffer(bytes: [0])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}
