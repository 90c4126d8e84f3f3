import CollabCore
import CollabPush
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import CollabServer

/// What one request costs on the commit path, counted through the router in process: its effects are
/// resolved under the lock the write holds, so carrying them out (webhooks, pushes, their
/// `push_notification.*` events) never takes the account's lock again.
@Suite("Commit path")
struct CommitPathTests {
    /// A server whose webhook deliveries fail at once (their host is not allowed): the delivery log is the
    /// barrier that says a delivery was carried out, without any network.
    static func withServer<T: Sendable>(_ body: @escaping @Sendable (InProcessServer) async throws -> T) async throws -> T {
        try await InProcessServer.with(configure: { $0.webhookAllowedHosts = ["allowed.invalid"] }, body)
    }

    /// Waits until the delivery log holds `count` failed deliveries of `eventType` (each a delivery carried out).
    static func deliveries(_ server: InProcessServer, _ eventType: String, count: Int) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while server.server.webhooks.log.deliveries(matching: .init(eventType: eventType, state: "FAILED"), limit: 100).count < count {
            guard clock.now < deadline else { throw CollabError(.unavailable, "no \(eventType) delivery was carried out") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("a visitor's message takes its account's lock at most 3 times; an agent's message with its push and webhooks as well")
    func lockAcquisitions() async throws {
        try await Self.withServer { server in
            let admin = InProcessServer.basic("admin", "admin")
            let registration = WebWebhookRegistration(
                name: "everything", endpoint: "https://hooks.example/in", events: ["conversation.new_message", "push_notification.new_message"]
            )
            #expect(try await server.call(.post, "/app/rest/v4/webhookregistrations/create", authorization: admin, body: registration).status == .ok)
            let phone = ClientStartRequest(apiKey: "demo-api-key", deviceId: "phone", device: .init(os: "iOS", appId: "com.example.app"))
            let start = try await server.call(.post, "/mobile/v1/clients", body: phone).decode(ClientStartResponse.self)
            let visitor = "Bearer " + start.token
            let push = PushRegistrationRequest(apnsToken: String(repeating: "a1", count: 32), version: "NOT_ENCRYPTED")
            #expect(try await server.call(.put, "/mobile/v1/clients/current/push", authorization: visitor, body: push).status == .ok)
            let background = try await server.call(
                .put, "/mobile/v1/clients/current/app-state", authorization: visitor, body: AppStateRequest(appState: "BACKGROUND")
            )
            #expect(background.status.kind == .successful)
            let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
                .decode(ConversationView.self)
            let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "agent", password: "agent"))
                .decode(AgentLoginResponse.self)
            let agent = "Bearer " + login.token
            #expect(try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: agent).status == .ok)
            let repository = server.server.environment.repository

            let beforeVisitor = try repository.lockAcquisitions(account: start.accountId)
            let sent = try await server.call(
                .post, "/mobile/v1/conversations/\(conversation.id)/messages", authorization: visitor, body: SendMessageRequest(text: "hello")
            )
            #expect(sent.status == .ok || sent.status == .created, "\(sent.text)")
            try await Self.deliveries(server, "conversation.new_message", count: 1)
            let visitorLocks = try repository.lockAcquisitions(account: start.accountId) - beforeVisitor
            #expect(visitorLocks <= 3, "authentication, interception and the write — nothing after the commit")

            let beforeAgent = try repository.lockAcquisitions(account: start.accountId)
            let answered = try await server.call(
                .post, "/agent/v1/conversations/\(conversation.id)/messages", authorization: agent, body: SendMessageRequest(text: "hi there")
            )
            #expect(answered.status == .ok || answered.status == .created, "\(answered.text)")
            #expect(await server.server.pushes.settle(timeout: .seconds(20)))
            try await Self.deliveries(server, "conversation.new_message", count: 2)
            try await Self.deliveries(server, "push_notification.new_message", count: 1)
            let agentLocks = try repository.lockAcquisitions(account: start.accountId) - beforeAgent
            #expect(agentLocks <= 3, "the push, its push_notification event and the message's event were resolved at commit")
            let composed = server.server.pushes.outbox.entries(matching: .init())
            #expect(composed.count == 1 && composed.first?.content.text == "hi there")
        }
    }
}
