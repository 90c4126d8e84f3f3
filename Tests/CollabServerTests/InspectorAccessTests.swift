import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// The control API's inspector reads for admins: their own account only, another account answers
/// 404, controls stay with super admins; and the configuration cascade route.
@Suite("Inspector access")
struct InspectorAccessTests {
    struct Pushes: Decodable {
        struct Entry: Decodable {
            var accountId: String
            var kind: String
        }
        var pushes: [Entry]
    }

    struct Deliveries: Decodable {
        struct Entry: Decodable { var accountId: String }
        var deliveries: [Entry]
    }

    /// One visitor with a registered device, an accepted conversation, a message push and a
    /// co-browsing session, in `account`.
    private func populate(
        _ server: InProcessServer, key: String, area: String, agent: String, password: String
    ) async throws -> (conversation: String, coBrowsing: String) {
        let visitor = VisitorClient(
            configuration: ClientConfiguration(baseURL: server.baseURL, apiKey: key, namedArea: area, deviceId: "\(key)-device"))
        try await visitor.start(liveEvents: false)
        try await NotificationAPI(client: visitor).register(apnsToken: String(repeating: "ab", count: 32), version: .encrypted)
        try await visitor.setAppState(.background)
        let conversation = try await visitor.startConversation(topic: "help")
        let agentClient = AgentClient(baseURL: server.baseURL)
        try await agentClient.login(username: agent, password: password)
        try await agentClient.accept(conversation.id)
        try await agentClient.send("hello", in: conversation.id)
        let session = try await visitor.startCoBrowsing(in: conversation.id)
        return (conversation.id, session.id)
    }

    @Test("an admin sees its own account's devices, pushes, journal, deliveries, stats and co-browsing; another account is 404")
    func confinedToOwnAccount() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alphaId = try await server.admin("alpha-admin", "pw-a").accounts.current().id ?? ""
            let betaId = try await server.admin("beta-admin", "pw-b").accounts.current().id ?? ""
            // A webhook in beta, so beta has deliveries.
            let receiver = try await WebhookReceiver()
            defer { Task { try? await receiver.stop() } }
            let betaAdmin = server.transport(.basic(username: "beta-admin", password: "pw-b"))
            let _: WebWebhookRegistration = try await betaAdmin.send(
                "POST", "/app/rest/v4/webhookregistrations/create",
                body: WebWebhookRegistration(name: "hook", endpoint: receiver.url, events: ["conversation.created"])
            )
            _ = try await populate(server, key: "alpha-key", area: "alpha-area", agent: "alpha-agent", password: "pw-a")
            let beta = try await populate(server, key: "beta-key", area: "beta-area", agent: "beta-agent", password: "pw-b")
            let root = server.transport(.basic(username: "root", password: "root"))
            let alpha = server.transport(.basic(username: "alpha-admin", password: "pw-a"))

            // Super admins see both accounts.
            let allDevices: [DeviceView] = try await root.send("GET", "/_mock/v1/devices")
            #expect(allDevices.count == 2)
            _ = try await root.send(
                "GET", "/_mock/v1/pushes/wait", query: [("kind", "NEW_MESSAGE"), ("account", "beta"), ("timeoutMs", "5000")]
            ) as OutboxEntryID
            // The barrier: beta's first delivery is logged (a wait naming no account sees every account's).
            let first: WebhookDelivery = try await root.send("GET", "/_mock/v1/webhooks/deliveries/wait", query: [("timeoutMs", "30000")])
            #expect(first.accountId == betaId)
            let deliveries: Deliveries = try await root.send("GET", "/_mock/v1/webhooks/deliveries")
            #expect(deliveries.deliveries.contains { $0.accountId == betaId })
            let alphaOnly: Deliveries = try await root.send("GET", "/_mock/v1/webhooks/deliveries", query: [("account", "alpha")])
            #expect(alphaOnly.deliveries.allSatisfy { $0.accountId == alphaId }, "?account= narrows the log")
            #expect(try await root.raw("GET", "/_mock/v1/webhooks/deliveries", query: [("account", "nope")]).status == 404)
            #expect(try await root.raw("GET", "/_mock/v1/webhooks/deliveries", query: [("state", "BOGUS")]).status == 400)

            // The alpha admin sees alpha only.
            let devices: [DeviceView] = try await alpha.send("GET", "/_mock/v1/devices")
            #expect(devices.map(\.deviceId) == ["alpha-key-device"])
            let pushes: Pushes = try await alpha.send("GET", "/_mock/v1/pushes")
            #expect(!pushes.pushes.isEmpty)
            #expect(pushes.pushes.allSatisfy { $0.accountId == alphaId })
            let journal: JournalPage = try await alpha.send("GET", "/_mock/v1/journal")
            #expect(!journal.entries.isEmpty)
            #expect(journal.entries.allSatisfy { $0.accountId == alphaId })
            let alphaDeliveries: Deliveries = try await alpha.send("GET", "/_mock/v1/webhooks/deliveries")
            #expect(alphaDeliveries.deliveries.isEmpty)
            let stats: StateStats = try await alpha.send("GET", "/_mock/v1/stats")
            #expect(stats.accounts == 1)

            // Naming beta, or beta's session, answers 404 as another account's id does everywhere.
            for (path, query) in [
                ("/_mock/v1/devices", [("account", "beta")]), ("/_mock/v1/pushes", [("account", betaId)]),
                ("/_mock/v1/journal", [("accountId", betaId)]), ("/_mock/v1/stats", [("account", "beta")]),
                ("/_mock/v1/configuration", [("account", "beta")]), ("/_mock/v1/configuration", [("namedArea", "beta-area")]),
                ("/_mock/v1/configuration", [("apiKey", "beta-key")]), ("/_mock/v1/cobrowsing/\(beta.coBrowsing)/stats", []),
                ("/_mock/v1/webhooks/deliveries", [("account", "beta")]),
            ] {
                let response = try await alpha.raw("GET", path, query: query)
                #expect(response.status == 404, "\(path) \(query) answered \(response.status)")
            }
            #expect(
                try await server.transport(.basic(username: "beta-admin", password: "pw-b")).raw(
                    "GET", "/_mock/v1/cobrowsing/\(beta.coBrowsing)/stats"
                ).status == 200)

            // Controls stay with super admins; agents get no inspector.
            for (method, path, body) in [
                ("POST", "/_mock/v1/reset", "{}"), ("POST", "/_mock/v1/clock", #"{"advanceMillis":1}"#), ("POST", "/_mock/v1/seed", "{}"),
                ("DELETE", "/_mock/v1/journal", ""), ("DELETE", "/_mock/v1/pushes", ""), ("DELETE", "/_mock/v1/webhooks/deliveries", ""),
            ] {
                #expect(try await alpha.raw(method, path, body: body.isEmpty ? nil : Data(body.utf8)).status == 403, "\(method) \(path)")
            }
            let agent = server.transport(.basic(username: "alpha-agent", password: "pw-a"))
            for path in ["/_mock/v1/devices", "/_mock/v1/pushes", "/_mock/v1/journal", "/_mock/v1/configuration", "/_mock/v1/webhooks/deliveries"] {
                #expect(try await agent.raw("GET", path).status == 403, "\(path)")
            }
        }
    }

    @Test("configuration along the cascade: each layer and the effective value with its scope")
    func configurationCascade() async throws {
        let seed = Seed(
            global: .init(configuration: ["a": "global", "b": "global", "c": "global", "d": "global"]),
            accounts: [
                .init(
                    name: "demo", configuration: ["b": "account", "c": "account", "d": "account"],
                    apiKeys: [.init(key: "demo-api-key", configuration: ["d": "apikey"])],
                    namedAreas: [.init(siteId: "demo-area", configuration: ["c": "area", "d": "area"])],
                    users: [.init(username: "admin", password: "admin", role: .admin), .init(username: "root", password: "root", role: .superAdmin)]
                ),
            ]
        )
        try await InProcessServer.with(seed: seed) { server in
            let admin = server.transport(.basic(username: "admin", password: "admin"))
            let full = try await admin.raw("GET", "/_mock/v1/configuration", query: [("namedArea", "demo-area"), ("apiKey", "demo-api-key")])
            #expect(full.status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: full.body) as? [String: Any])
            let layers = try #require(json["layers"] as? [[String: Any]])
            #expect(layers.compactMap { $0["scope"] as? String } == ["GLOBAL", "ACCOUNT", "AREA", "APIKEY"])
            let resolved = try #require(json["resolved"] as? [String: [String: String]])
            #expect(resolved["a"] == ["value": "global", "scope": "GLOBAL"])
            #expect(resolved["b"] == ["value": "account", "scope": "ACCOUNT"])
            #expect(resolved["c"] == ["value": "area", "scope": "AREA"])
            #expect(resolved["d"] == ["value": "apikey", "scope": "APIKEY"])

            let accountOnly = try await admin.raw("GET", "/_mock/v1/configuration")
            let accountJSON = try #require(try JSONSerialization.jsonObject(with: accountOnly.body) as? [String: Any])
            #expect((accountJSON["layers"] as? [[String: Any]])?.count == 2)
            #expect((accountJSON["resolved"] as? [String: [String: String]])?["d"] == ["value": "account", "scope": "ACCOUNT"])

            #expect(try await admin.raw("GET", "/_mock/v1/configuration", query: [("namedArea", "unknown")]).status == 404)
            let root = server.transport(.basic(username: "root", password: "root"))
            #expect(try await root.raw("GET", "/_mock/v1/configuration", query: [("account", "demo")]).status == 200)
            #expect(try await server.control.transport.raw("GET", "/_mock/v1/configuration").status == 400, "the control token names an account")
        }
    }

    @Test("devices are listed in pages by record id: a Link names the next page, with the request's filters; bad limits are 400")
    func devicePages() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            // Seven devices in alpha, two in beta, each with its own push token.
            for (index, key) in (Array(repeating: "alpha-key", count: 7) + ["beta-key", "beta-key"]).enumerated() {
                let visitor = VisitorClient(
                    configuration: ClientConfiguration(baseURL: server.baseURL, apiKey: key, deviceId: "paged-\(index)"))
                try await visitor.start(liveEvents: false)
                let token = String(repeating: String(format: "%02x", index + 16), count: 32)
                try await NotificationAPI(client: visitor).register(apnsToken: token, version: .encrypted)
            }
            let root = server.transport(.basic(username: "root", password: "root"))
            func pages(_ query: [(String, String)]) async throws -> [[DeviceView]] {
                var pages: [[DeviceView]] = []
                var next: [(String, String)]? = query
                while let current = next {
                    let response = try await root.raw("GET", "/_mock/v1/devices", query: current)
                    #expect(response.status == 200)
                    pages.append(try JSONDecoder().decode([DeviceView].self, from: response.body))
                    next = response.headers.first { $0.0.lowercased() == "link" }.map { link in
                        let target = String(link.1.dropFirst().prefix { $0 != ">" })
                        return URLComponents(string: target)?.queryItems?.map { ($0.name, $0.value ?? "") } ?? []
                    }
                    #expect(pages.count <= 10, "the pages end")
                    if pages.count > 10 { break }
                }
                return pages
            }
            let whole: [DeviceView] = try await root.send("GET", "/_mock/v1/devices")
            #expect(whole.count == 9 && whole.map(\.id) == whole.map(\.id).sorted())
            let byThree = try await pages([("limit", "3")])
            #expect(byThree.map(\.count) == [3, 3, 3])
            #expect(byThree.flatMap { $0 }.map(\.id) == whole.map(\.id), "every device once, in id order, across the accounts")
            let alphaByTwo = try await pages([("account", "alpha"), ("limit", "2")])
            #expect(alphaByTwo.map(\.count) == [2, 2, 2, 1], "the next page keeps the account")
            #expect(alphaByTwo.flatMap { $0 }.count == 7)
            let after: [DeviceView] = try await root.send("GET", "/_mock/v1/devices", query: [("after", whole[4].id)])
            #expect(after.map(\.id) == whole.dropFirst(5).map(\.id))
            for limit in ["0", "10001", "-1", "x"] {
                #expect(try await root.raw("GET", "/_mock/v1/devices", query: [("limit", limit)]).status == 400, "limit \(limit)")
            }

            // Key rotation finds the device in the account the request names, without looking through the others.
            let alphaDevice = try #require(alphaByTwo.first?.first)
            let rotated = try await root.raw("POST", "/_mock/v1/devices/\(alphaDevice.id)/rotate-key", query: [("account", "alpha")])
            #expect(rotated.status == 200)
            #expect(try JSONDecoder().decode(DeviceView.self, from: rotated.body).keyId != alphaDevice.keyId)
            let elsewhere = try await root.raw("POST", "/_mock/v1/devices/\(alphaDevice.id)/rotate-key", query: [("account", "beta")])
            #expect(elsewhere.status == 404, "the device is not beta's")
            #expect(try await root.raw("POST", "/_mock/v1/devices/\(alphaDevice.id)/rotate-key", query: [("account", "gamma")]).status == 404)
            #expect(try await root.raw("POST", "/_mock/v1/devices/\(alphaDevice.id)/rotate-key").status == 200, "unnamed: any account")
        }
    }
}

/// Only the id of an outbox entry (the wait route's answer).
struct OutboxEntryID: Decodable {
    var id: Int64
}
