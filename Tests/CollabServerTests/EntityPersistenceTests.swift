import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Declared entities kept like every other record: seeded, exported and imported (secrets redacted
/// on request, renewed on import). Durability across `kill -9`: EndToEndTests' `EntityDurabilityTests`.
@Suite("Declared entities: seeds and snapshots", .serialized)
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

    static func items(_ server: some ServerUnderTest, _ path: String) async throws -> [[String: Any]] {
        let response = try await server.admin("admin-d", "pw").transport.raw("POST", "/app/rest/v4/\(path)/search", body: Data("{}".utf8))
        #expect(response.status == 200, "\(path)/search → \(response.status)")
        return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["items"] as? [[String: Any]] ?? []
    }

    @Test("a seed's entities are created once and matched by name when applied again; an unknown kind is a 400")
    func seeded() async throws {
        try await InProcessServer.with { server in
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
        try await InProcessServer.with { server in
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
}
