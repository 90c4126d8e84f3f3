import CollabCore
import Testing

@Suite("Configuration cascade")
struct ConfigurationCascadeTests {
    @Test("the most specific scope wins; unset keys fall through")
    func precedence() {
        let cascade = ConfigurationCascade(
            global: ["fps": "5", "only.global": "g"], account: ["fps": "4", "only.account": "a"], area: ["fps": "3"], apiKey: ["fps": "2"]
        )
        #expect(cascade.value(for: "fps") == ResolvedProperty(value: "2", scope: .apiKey))
        #expect(cascade.value(for: "only.global") == ResolvedProperty(value: "g", scope: .global))
        #expect(cascade.value(for: "only.account")?.scope == .account)
        #expect(cascade.value(for: "missing") == nil)
        #expect(cascade.int("fps", default: 9) == 2)
        #expect(cascade.int("missing", default: 9) == 9)
        let resolved = cascade.resolved()
        #expect(resolved.count == 3)
        #expect(resolved["fps"]?.scope == .apiKey)
    }

    @Test("absent scopes are skipped")
    func skipping() {
        let cascade = ConfigurationCascade(global: ["fps": "5"], account: ["fps": "4"], apiKey: ["other": "x"])
        #expect(cascade.value(for: "fps") == ResolvedProperty(value: "4", scope: .account))
        #expect(cascade.layers.map(\.scope) == [.global, .account, .apiKey])
    }

    @Test("the state resolves the cascade for an account, area and API key, and refuses foreign ids")
    func fromState() throws {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        let context = OperationContext(now: 1000, ids: .system)
        let seed = Seed(
            global: .init(configuration: ["fps": "5"]),
            accounts: [
                .init(
                    name: "one", configuration: ["fps": "4"], apiKeys: [.init(key: "k1", configuration: ["fps": "2"])],
                    namedAreas: [.init(siteId: "s1", configuration: ["fps": "3"])]),
                .init(name: "two", apiKeys: [.init(key: "k2")]),
            ]
        )
        _ = try shards.apply(seed: seed, passwordHashes: [:], context: context, changes: &changes)
        let state = try #require(shards.state(named: "one"))
        let other = try #require(shards.state(named: "two"))
        let one = state.account
        let two = other.account
        let area = try #require(state.namedArea(siteId: "s1", accountId: one.id))
        let key = try #require(state.apiKey(presented: "k1"))
        #expect(try state.configuration(accountId: one.id).value(for: "fps")?.value == "4")
        #expect(try state.configuration(accountId: one.id, namedAreaId: area.id).value(for: "fps")?.value == "3")
        #expect(try state.configuration(accountId: one.id, namedAreaId: area.id, apiKeyId: key.id).value(for: "fps")?.value == "2")
        #expect(try other.configuration(accountId: two.id).value(for: "fps")?.scope == .global)
        #expect(throws: CollabError.self) { try other.configuration(accountId: two.id, namedAreaId: area.id) }
        #expect(throws: CollabError.self, "a shard answers for its own account only") { try state.configuration(accountId: two.id) }
    }
}
