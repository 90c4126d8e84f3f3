import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// Every route that names an entity, called by another account's admin, agent and visitor with the
/// ids of alpha's entities: each answers 404 (or 403 where the caller's role is refused first) and
/// alpha's data stays exactly as it was. In process, through HummingbirdTesting's router mode.
@Suite("Tenant isolation table")
struct IsolationTableTests {
    /// Alpha's entities, created through the same routes a client uses.
    struct Alpha {
        var accountId: String
        var apiKeyId: String
        var areaId: String
        var userId: String
        var visitorPersonId: String
        var conversationId: String
        var callId: String
        var coBrowsingId: String
        var deviceRecordId: String
    }

    /// A caller from beta.
    enum Caller: String, CaseIterable, Sendable {
        case admin, agent, visitor
    }

    struct Row: Sendable, CustomStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var description: String { "\(method) \(path)" }
    }

    static func rows(_ alpha: Alpha) -> [Row] {
        let c = alpha.conversationId
        let webAPI: [Row] = [
            .init(method: .get, path: "/app/rest/v4/accounts/\(alpha.accountId)/read"),
            .init(method: .get, path: "/app/rest/v4/apikeys/\(alpha.apiKeyId)/read"),
            .init(method: .get, path: "/app/rest/v4/apikeys/getByKey?apiKey=alpha-key"),
            .init(method: .delete, path: "/app/rest/v4/apikeys/\(alpha.apiKeyId)/delete"),
            .init(method: .post, path: "/app/rest/v4/apikeys/update", body: #"{"id":"\#(alpha.apiKeyId)","name":"stolen","version":1}"#),
            .init(method: .get, path: "/app/rest/v4/namedareas/\(alpha.areaId)/read"),
            .init(
                method: .post, path: "/app/rest/v4/namedareas/update", body: #"{"id":"\#(alpha.areaId)","name":"stolen","siteId":"x","version":1}"#),
            .init(method: .delete, path: "/app/rest/v4/namedareas/\(alpha.areaId)/delete"),
            .init(method: .get, path: "/app/rest/v4/users/\(alpha.userId)/read"),
            .init(method: .get, path: "/app/rest/v4/users/getByUsername?username=alpha-agent"),
            .init(
                method: .post, path: "/app/rest/v4/users/update",
                body: #"{"id":"\#(alpha.userId)","username":"alpha-agent","firstName":"stolen","version":1}"#),
            .init(method: .post, path: "/app/rest/v4/users/\(alpha.userId)/setPassword", body: #"{"password":"owned-owned"}"#),
            .init(method: .delete, path: "/app/rest/v4/users/\(alpha.userId)/delete"),
            .init(method: .get, path: "/app/rest/v4/persons/\(alpha.visitorPersonId)/read"),
            .init(method: .get, path: "/app/rest/v4/persons/getBySource?personSource=VIRTUAL&sourceId=alpha-visitor"),
            .init(
                method: .post, path: "/app/rest/v4/persons/createOrUpdateVirtual",
                body: #"{"sourceId":"alpha-visitor","firstName":"Mallory","accountId":"\#(alpha.accountId)"}"#),
            .init(method: .post, path: "/app/rest/v4/apikeys/create", body: #"{"name":"planted","accountId":"\#(alpha.accountId)"}"#),
            .init(method: .get, path: "/app/rest/v4/conversations/\(c)/read"),
        ]
        let agentAPI: [Row] = [
            .init(method: .get, path: "/agent/v1/conversations/\(c)"),
            .init(method: .post, path: "/agent/v1/conversations/\(c)/accept"),
            .init(method: .post, path: "/agent/v1/conversations/\(c)/decline"),
            .init(method: .post, path: "/agent/v1/conversations/\(c)/requeue"),
            .init(method: .post, path: "/agent/v1/conversations/\(c)/end", body: "{}"),
            .init(method: .get, path: "/agent/v1/conversations/\(c)/messages"),
            .init(method: .post, path: "/agent/v1/conversations/\(c)/messages", body: #"{"text":"intrusion"}"#),
            .init(method: .post, path: "/agent/v1/conversations/\(c)/calls", body: #"{"callType":"AUDIO"}"#),
            .init(method: .get, path: "/agent/v1/calls/\(alpha.callId)"),
            .init(method: .post, path: "/agent/v1/calls/\(alpha.callId)/end"),
            .init(method: .post, path: "/agent/v1/conversations/\(c)/cobrowsing"),
            .init(method: .get, path: "/agent/v1/conversations/\(c)/cobrowsing"),
            .init(method: .get, path: "/agent/v1/cobrowsing/\(alpha.coBrowsingId)"),
            .init(method: .post, path: "/agent/v1/cobrowsing/\(alpha.coBrowsingId)/stop"),
            .init(method: .get, path: "/agent/v1/cobrowsing/\(alpha.coBrowsingId)/frame"),
        ]
        let mobileAPI: [Row] = [
            .init(method: .get, path: "/mobile/v1/conversations/\(c)"),
            .init(method: .post, path: "/mobile/v1/conversations/\(c)/open"),
            .init(method: .post, path: "/mobile/v1/conversations/\(c)/close"),
            .init(method: .post, path: "/mobile/v1/conversations/\(c)/end", body: "{}"),
            .init(method: .get, path: "/mobile/v1/conversations/\(c)/messages"),
            .init(method: .post, path: "/mobile/v1/conversations/\(c)/messages", body: #"{"text":"intrusion"}"#),
            .init(method: .get, path: "/mobile/v1/calls/\(alpha.callId)"),
            .init(method: .post, path: "/mobile/v1/calls/\(alpha.callId)/answer"),
            .init(method: .post, path: "/mobile/v1/calls/\(alpha.callId)/decline"),
            .init(method: .post, path: "/mobile/v1/calls/\(alpha.callId)/end"),
            .init(method: .post, path: "/mobile/v1/conversations/\(c)/cobrowsing"),
            .init(method: .get, path: "/mobile/v1/conversations/\(c)/cobrowsing"),
            .init(method: .get, path: "/mobile/v1/cobrowsing/\(alpha.coBrowsingId)"),
            .init(method: .post, path: "/mobile/v1/cobrowsing/\(alpha.coBrowsingId)/accept"),
            .init(method: .post, path: "/mobile/v1/cobrowsing/\(alpha.coBrowsingId)/stop"),
        ]
        let control: [Row] = [
            .init(method: .get, path: "/_mock/v1/devices?account=alpha"),
            .init(method: .get, path: "/_mock/v1/pushes?account=alpha"),
            .init(method: .get, path: "/_mock/v1/pushes/settle?account=alpha&timeoutMs=0"),
            .init(method: .get, path: "/_mock/v1/journal?account=alpha"),
            .init(method: .get, path: "/_mock/v1/webhooks/deliveries?account=alpha"),
            .init(method: .get, path: "/_mock/v1/webhooks/deliveries/wait?account=alpha&timeoutMs=0"),
            .init(method: .get, path: "/_mock/v1/pushes/wait?account=alpha&timeoutMs=0"),
            .init(method: .get, path: "/_mock/v1/stats?account=alpha"),
            .init(method: .get, path: "/_mock/v1/configuration?account=alpha"),
            .init(method: .get, path: "/_mock/v1/cobrowsing/\(alpha.coBrowsingId)/stats"),
            .init(method: .post, path: "/_mock/v1/devices/\(alpha.deviceRecordId)/rotate-key"),
            .init(method: .post, path: "/_mock/v1/reset", body: #"{"account":"alpha"}"#),
        ]
        return webAPI + agentAPI + mobileAPI + control
    }

    @Test("beta's admin, agent and visitor reach none of alpha's entities, on any route")
    func everyRoute() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alpha = try await Self.populateAlpha(server)
            let beta = try await Self.betaCallers(server)
            let alphaBefore = try server.stats(account: alpha.accountId)
            for row in Self.rows(alpha) {
                for caller in Caller.allCases {
                    let answer = try await server.call(row.method, row.path, authorization: beta[caller], body: row.body)
                    #expect(
                        [.notFound, .forbidden, .unauthorized].contains(answer.status),
                        "beta's \(caller.rawValue): \(row) answered \(answer.status.code) \(answer.text)"
                    )
                    #expect(!answer.text.contains("secret-alpha-message"), "beta's \(caller.rawValue): \(row) leaked a message")
                }
            }
            #expect(try server.stats(account: alpha.accountId) == alphaBefore, "alpha's data changed")

            // Lists and searches name beta's entities only.
            let keys = try await server.call(.post, "/app/rest/v4/apikeys/search", authorization: beta[.admin], body: "{}")
            #expect(keys.status == .ok && !keys.text.contains("alpha-key"))
            let persons = try await server.call(.post, "/app/rest/v4/persons/search", authorization: beta[.admin], body: "{}")
            #expect(persons.status == .ok && !persons.text.contains(alpha.visitorPersonId))
            let queue = try await server.call(.get, "/agent/v1/queue", authorization: beta[.agent])
            #expect(queue.status == .ok && !queue.text.contains(alpha.conversationId))
            let conversations = try await server.call(.get, "/mobile/v1/conversations", authorization: beta[.visitor])
            #expect(conversations.status == .ok && !conversations.text.contains(alpha.conversationId))
            let devices = try await server.call(.get, "/_mock/v1/devices", authorization: beta[.admin])
            #expect(devices.status == .ok && !devices.text.contains(alpha.deviceRecordId))
        }
    }

    /// A visitor with a device, a conversation an agent accepted, a message, a call and a
    /// co-browsing session.
    static func populateAlpha(_ server: InProcessServer) async throws -> Alpha {
        let start = try await server.call(
            .post, "/mobile/v1/clients",
            body: ClientStartRequest(apiKey: "alpha-key", deviceId: "alpha-phone", device: .init(os: "iOS", appId: "com.example.app"))
        ).decode(ClientStartResponse.self)
        let visitor = "Bearer " + start.token
        let registered = try await server.call(
            .put, "/mobile/v1/clients/current/push", authorization: visitor,
            body: PushRegistrationRequest(apnsToken: String(repeating: "a1", count: 32), version: "NOT_ENCRYPTED")
        )
        #expect(registered.status == .ok, "\(registered.text)")
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
            .decode(ConversationView.self)
        let message = try await server.call(
            .post, "/mobile/v1/conversations/\(conversation.id)/messages", authorization: visitor,
            body: SendMessageRequest(text: "secret-alpha-message")
        )
        #expect(message.status == .ok || message.status == .created, "\(message.text)")
        let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "alpha-agent", password: "pw-a"))
            .decode(AgentLoginResponse.self)
        let agent = "Bearer " + login.token
        _ = try await server.call(.put, "/agent/v1/presence", authorization: agent, body: PresenceRequest(presence: "ONLINE"))
        let accepted = try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: agent)
        #expect(accepted.status == .ok, "\(accepted.text)")
        let call = try await server.call(
            .post, "/agent/v1/conversations/\(conversation.id)/calls", authorization: agent, body: StartCallRequest(callType: "AUDIO")
        ).decode(CallView.self)
        let coBrowsing = try await server.call(.post, "/mobile/v1/conversations/\(conversation.id)/cobrowsing", authorization: visitor)
            .decode(CoBrowsingSessionView.self)
        let ids = try server.server.environment.read(account: start.accountId) { state in
            (
                state.apiKey(presented: "alpha-key")?.id, state.namedAreas.rows.values.first?.id,
                state.users.values.first { $0.username == "alpha-agent" }?.id, state.devices.values.first?.id
            )
        }
        return Alpha(
            accountId: start.accountId, apiKeyId: try #require(ids.0), areaId: try #require(ids.1), userId: try #require(ids.2),
            visitorPersonId: start.person.id, conversationId: conversation.id, callId: call.id, coBrowsingId: coBrowsing.id,
            deviceRecordId: try #require(ids.3)
        )
    }

    /// Authorization headers of beta's admin (basic), agent (session token) and visitor (client token).
    static func betaCallers(_ server: InProcessServer) async throws -> [Caller: String] {
        let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "beta-agent", password: "pw-b"))
            .decode(AgentLoginResponse.self)
        let start = try await server.call(
            .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: "beta-key", deviceId: "beta-phone", device: .init(os: "iOS"))
        ).decode(ClientStartResponse.self)
        return [.admin: InProcessServer.basic("beta-admin", "pw-b"), .agent: "Bearer " + login.token, .visitor: "Bearer " + start.token]
    }
}
