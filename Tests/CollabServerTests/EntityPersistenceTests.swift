import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Declared entities kept like every other record: seeded, exported and imported (secrets redacted
/// on request, renewed on import), and durable across `kill -9` once acknowledged.
@Suite("Declared entities: seeds, snapshots, durability", .serialized)
struct EntityPersistenceTests {
    static let seedText = """
        accounts:
          - name: desk
            users:
              - {username: admin-d, password: pw, role: ADMIN}
            entities:
              personLabels:
                - {name: "tier::gold", color: gold}
              domains:
                - {domainName: "https://shop.example"}
              suggestionSources:
                - {name: helper, outboundEndpoint: "http://127.0.0.1:9/suggest", outboundSecret: s3cret, outboundTimeoutMillis: 1000}
              cannedResponses:
                - {title: Hello, text: "Hello there", ownerType: ACCOUNT, ownerId: desk}
              externalMessengerContacts:
                - {externalMessengerChannelId: chat-app, sourceId: user-1, name: Zed}
              externalMessengers:
                - {id: chat-app, type: CUSTOM, name: chat-app, webhookEndpoint: "http://127.0.0.1:9/m", webhookSecret: m3ssenger}
              teams:
                - {id: north, name: North}
                - {id: north-east, name: North-East, parentId: north}
              conversationTemplates:
                - {name: support, initialEngagementType: CHAT_REQUEST, defaultTemplate: true, configuration: {com.unblu.a: "1"}}
        """

    /// A seed of the account with its admin only (sets the admin's password again).
    static let adminOnly = "accounts:\n  - name: desk\n    users:\n      - {username: admin-d, password: pw, role: ADMIN}\n"

    static func items(_ server: TestServer, _ path: String) async throws -> [[String: Any]] {
        let response = try await server.admin("admin-d", "pw").transport.raw("POST", "/app/rest/v4/\(path)/search", body: Data("{}".utf8))
        #expect(response.status == 200, "\(path)/search → \(response.status)")
        return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["items"] as? [[String: Any]] ?? []
    }

    @Test("a seed's entities are created once and matched by name when applied again; an unknown kind is a 400")
    func seeded() async throws {
        try await TestServer.with { server in
            let first = try await server.control.seed(Self.seedText)
            #expect(first.created >= 5)
            let again = try await server.control.seed(Self.seedText)
            #expect(again.created == 0 && again.updated == 0)
            #expect(try await Self.items(server, "personlabels").compactMap { $0["name"] as? String } == ["tier::gold"])
            #expect(try await Self.items(server, "domains").count == 1)
            #expect(try await Self.items(server, "cannedresponses").compactMap { $0["title"] as? String } == ["Hello"])
            #expect(try await Self.items(server, "teams").compactMap { $0["parentId"] as? String } == ["north"])
            let contacts = try await Self.items(server, "externalmessengercontacts")
            #expect(contacts.compactMap { $0["externalMessengerChannelId"] as? String } == ["chat-app"], "contacts come after their channels")
            #expect(try await Self.items(server, "conversationtemplates").count == 1)
            do throws(CollabClientError) {
                _ = try await server.control.seed("accounts:\n  - name: desk\n    entities:\n      nothings: [{}]\n")
                Issue.record("a seed with an unknown entity kind was applied")
            } catch {
                #expect(error.status == 400 && error.message.contains("nothings"))
            }
        }
    }

    @Test("export and import restore every declared entity; a redacted export leaves the source's secret out and the import issues a new one")
    func snapshotRoundTrip() async throws {
        try await TestServer.with { server in
            _ = try await server.control.seed(Self.seedText)
            let before = try await Self.items(server, "suggestionsources")
            let labels = try await Self.items(server, "personlabels")
            let snapshot = try await server.control.exportSnapshot(includeSecrets: true)
            try await server.control.reset()
            #expect(try await server.control.seed(Self.adminOnly).created > 0)
            _ = try await server.control.importSnapshot(snapshot)
            #expect(try await Self.items(server, "personlabels").map { $0["id"] as? String } == labels.map { $0["id"] as? String })
            let secret = try await Self.items(server, "suggestionsources").first?["outboundSecret"] as? String
            #expect(secret == before.first?["outboundSecret"] as? String)

            #expect(String(decoding: snapshot, as: UTF8.self).contains("m3ssenger"), "a full snapshot keeps the channel's secret")
            let redacted = try await server.control.exportSnapshot(includeSecrets: false)
            #expect(!String(decoding: redacted, as: UTF8.self).contains("s3cret"), "a redacted snapshot carries no outbound secret")
            #expect(!String(decoding: redacted, as: UTF8.self).contains("m3ssenger"), "nor the channel's webhook secret")
            _ = try await server.control.importSnapshot(redacted)
            // A redacted import leaves passwords unset: the seed sets the admin's again.
            _ = try await server.control.seed(Self.adminOnly)
            let renewed = try #require(try await Self.items(server, "suggestionsources").first?["outboundSecret"] as? String)
            #expect(!renewed.isEmpty && renewed != "s3cret", "the import issued a new secret")
        }
    }

    @Test("every acknowledged entity write survives kill -9")
    func killNine() async throws {
        let directory = try temporaryDirectory()
        let storage = "sqlite:\(directory.path)/state.sqlite"
        let first = try await ServerProcess(arguments: ["--storage", storage])
        let admin = AdminClient(baseURL: first.baseURL, credentials: .basic(username: "admin", password: "admin")).transport
        let acknowledged = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let body = Data(#"{"domainName":"https://d\#(index).example"}"#.utf8)
                    let response = try await admin.raw("POST", "/app/rest/v4/domains/create", body: body)
                    return try #require((try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["id"] as? String)
                }
            }
            var ids: [String] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        first.signal(SIGKILL)
        #expect(try await first.waitForExit() != 0)

        let second = try await ServerProcess(arguments: ["--storage", storage])
        let reopened = AdminClient(baseURL: second.baseURL, credentials: .basic(username: "admin", password: "admin")).transport
        let body = try JSONSerialization.data(withJSONObject: acknowledged)
        let stored = try await reopened.raw("POST", "/app/rest/v4/domains/readMultiple", body: body)
        let ids = (try JSONSerialization.jsonObject(with: stored.body) as? [String: Any])?["items"] as? [[String: Any]]
        #expect(Set(ids?.compactMap { $0["id"] as? String } ?? []) == Set(acknowledged))
        let audit = try await reopened.raw("POST", "/app/rest/v4/audit/search", body: Data(#"{"limit":1000}"#.utf8))
        let entries = (try JSONSerialization.jsonObject(with: audit.body) as? [String: Any])?["items"] as? [[String: Any]]
        let audited = entries?.filter { $0["entityType"] as? String == "Domain" }.count ?? 0
        #expect(audited >= acknowledged.count, "the audit entries were stored with the writes")
        second.signal(SIGTERM)
        #expect(try await second.waitForExit() == 0)
    }
}
