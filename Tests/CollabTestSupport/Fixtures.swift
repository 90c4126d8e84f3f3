package import CollabClient
package import CollabCore
package import Foundation
import Synchronization

/// A seed with two isolated accounts, each with an admin, an agent, an API key and a named area.
package let twoAccountSeed = Seed(accounts: [
    .init(
        name: "alpha", apiKeys: [.init(key: "alpha-key")], namedAreas: [.init(siteId: "alpha-area")],
        users: [
            .init(username: "root", password: "root", role: .superAdmin),
            .init(username: "alpha-admin", password: "pw-a", role: .admin),
            .init(username: "alpha-agent", password: "pw-a", role: .registeredUser),
            .init(username: "alpha-supervisor", password: "pw-a", role: .supervisor),
            .init(username: "alpha-webuser", password: "pw-a", role: .webuser),
        ],
        persons: [.init(sourceId: "alpha-visitor", personType: .visitor, firstName: "Alpha")]
    ),
    .init(
        name: "beta", apiKeys: [.init(key: "beta-key")], namedAreas: [.init(siteId: "beta-area")],
        users: [
            .init(username: "beta-admin", password: "pw-b", role: .admin),
            .init(username: "beta-agent", password: "pw-b", role: .registeredUser),
        ],
        persons: [.init(sourceId: "beta-visitor", personType: .visitor, firstName: "Beta")]
    ),
])

/// Seed with two named areas and three agents for queue tests.
package let queueSeed = Seed(accounts: [
    .init(
        name: "desk", apiKeys: [.init(key: "desk-key")],
        namedAreas: [.init(siteId: "area-a", name: "Area A"), .init(siteId: "area-b", name: "Area B")],
        users: [
            .init(username: "admin-d", password: "pw", role: .admin),
            .init(username: "agent-a", password: "pw", role: .registeredUser, displayName: "Agent A"),
            .init(username: "agent-b", password: "pw", role: .registeredUser, displayName: "Agent B"),
            .init(username: "agent-c", password: "pw", role: .registeredUser, displayName: "Agent C"),
        ]
    ),
    .init(
        name: "other", apiKeys: [.init(key: "other-key")], namedAreas: [.init(siteId: "area-a")],
        users: [.init(username: "agent-x", password: "pw", role: .registeredUser)]),
])

/// A visitor client of `server` (not started).
package func visitor(
    _ server: some ServerUnderTest, device: String, apiKey: String = "desk-key", namedArea: String? = nil, accessToken: String? = nil
) -> VisitorClient {
    VisitorClient(
        configuration: ClientConfiguration(baseURL: server.baseURL, apiKey: apiKey, accessToken: accessToken, namedArea: namedArea, deviceId: device))
}

/// An agent of `server`, logged in with the seeds' password `pw`.
package func agent(_ server: some ServerUnderTest, _ username: String) async throws -> AgentClient {
    let client = AgentClient(baseURL: server.baseURL)
    try await client.login(username: username, password: "pw")
    return client
}

/// A small JPEG-signed image; `n` makes it distinct.
package func jpeg(_ n: Int, size: Int = 12_000) -> Data {
    var data = Data([0xFF, 0xD8, 0xFF, 0xE0])
    data.append(contentsOf: withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) })
    data.append(Data(repeating: UInt8(n % 251), count: max(0, size - data.count)))
    return data
}

/// A PNG signature followed by `size - 8` deterministic bytes.
package func pngBytes(_ size: Int, seed: UInt8 = 1) -> Data {
    var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    data.append(contentsOf: (0..<max(0, size - 8)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    return data
}

/// A fresh temporary directory.
package func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("mock-collab-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// An APNs device token and a PushKit token of the right shape.
package let apnsToken = String(repeating: "a1", count: 32)
package let voipToken = String(repeating: "b2", count: 32)

/// A visitor with a started client and push registered, and an agent in an active conversation with them.
package struct PushScenario {
    package let app: VisitorClient
    package let notifications: NotificationAPI
    package let agent: AgentClient
    package let conversationId: String
    package let registration: PushRegistrationResponse

    package static func make(
        _ server: some ServerUnderTest, device: String = "push-phone", version: PushNotificationVersion = .encryptedService,
        apns: String? = apnsToken, voip: String? = voipToken, appState: ClientAppState = .background
    ) async throws -> PushScenario {
        let app = visitor(server, device: device)
        try await app.start(liveEvents: server.carriesWebSockets)
        let notifications = NotificationAPI(client: app)
        let registration = try await notifications.register(apnsToken: apns, pushKitToken: voip, version: version)
        let agentA = try await CollabTestSupport.agent(server, "agent-a")
        let conversation = try await app.startConversation(topic: "push")
        _ = try await agentA.accept(conversation.id)
        try await app.setAppState(appState)
        return PushScenario(app: app, notifications: notifications, agent: agentA, conversationId: conversation.id, registration: registration)
    }
}

/// A list filled from concurrent tasks.
package final class ListBox<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    package init() {}
    package func append(_ item: Element) { items.withLock { $0.append(item) } }
    package var all: [Element] { items.withLock { $0 } }
}
