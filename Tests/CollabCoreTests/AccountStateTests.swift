import CollabCore
import Foundation
import Testing

@Suite("Collab state rules")
struct CollabStateTests {
    let context = OperationContext(now: 1_000, ids: .system)

    func seededShards() throws -> ShardSet {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(
            seed: Seed(accounts: [
                .init(name: "a", users: [.init(username: "a-admin", role: .admin), .init(username: "a-agent", role: .registeredUser)]),
                .init(name: "b", users: [.init(username: "b-admin", role: .admin)]),
            ]),
            passwordHashes: [:], context: context, changes: &changes
        )
        return shards
    }

    /// The shard of account "a".
    func seeded() throws -> AccountState {
        try #require(try seededShards().state(named: "a"))
    }

    func principal(_ state: AccountState, _ username: String) throws -> Principal {
        let user = try #require(state.user(loginName: username))
        return Principal(
            accountId: user.accountId, userId: user.id, personId: state.person(ofUser: user)?.id, role: user.authorizationRole, method: .basic)
    }

    @Test("a failed operation reports no changes")
    func failureChangesNothing() throws {
        var state = try seeded()
        let admin = try principal(state, "a-admin")
        var changes = ChangeSet()
        _ = try state.createEntity(NamedArea(siteId: "x", name: "x"), for: admin, context: context, changes: &changes)
        var failed = ChangeSet()
        #expect(throws: CollabError.self) {
            _ = try state.createEntity(NamedArea(siteId: "x", name: "y"), for: admin, context: context, changes: &failed)
        }
        #expect(failed.isEmpty)
        #expect(try state.searchEntities(NamedArea.self, SearchQuery(), for: admin).items.count == 1)
    }

    @Test("versions: updates need the current one and bump it")
    func versions() throws {
        var state = try seeded()
        let admin = try principal(state, "a-admin")
        var changes = ChangeSet()
        var area = try state.createEntity(NamedArea(siteId: "x", name: "x"), for: admin, context: context, changes: &changes)
        area.name = "y"
        let updated = try state.updateEntity(area, for: admin, context: context, changes: &changes)
        #expect(updated.version == 2)
        area.name = "z"
        #expect(throws: CollabError.conflict("NamedArea was modified concurrently: version 1 is stale, the current version is 2")) {
            _ = try state.updateEntity(area, for: admin, context: context, changes: &changes)
        }
        area.version = nil
        #expect(throws: CollabError.self) { _ = try state.updateEntity(area, for: admin, context: context, changes: &changes) }
    }

    @Test("other accounts' entities are not found, and roles cannot be escalated")
    func isolationAndRoles() throws {
        let shards = try seededShards()
        var state = try #require(shards.state(named: "a"))
        let aAdmin = try principal(state, "a-admin")
        let bAdmin = try principal(try #require(shards.state(named: "b")), "b-admin")
        let aAgent = try principal(state, "a-agent")
        var changes = ChangeSet()
        let area = try state.createEntity(NamedArea(siteId: "x", name: "x"), for: aAdmin, context: context, changes: &changes)
        #expect(throws: CollabError.notFound("Account", bAdmin.accountId ?? "")) { try state.entity(NamedArea.self, area.id, for: bAdmin) }
        #expect(throws: CollabError.self) { try state.deleteEntity(NamedArea.self, area.id, for: bAdmin, context: context, changes: &changes) }
        #expect(try state.entity(NamedArea.self, area.id, for: aAgent).id == area.id)

        let agentUser = try #require(state.user(loginName: "a-agent"))
        #expect(throws: CollabError.self) {
            _ = try state.updateUser(
                id: agentUser.id, version: agentUser.version, UserInput(username: "a-agent", authorizationRole: .admin), for: aAgent,
                context: context, changes: &changes
            )
        }
        #expect(throws: CollabError.forbidden("cannot grant the role SUPER_ADMIN, which is above your own")) {
            _ = try state.createUser(
                UserInput(username: "root", authorizationRole: .superAdmin), passwordHash: nil, accountId: aAdmin.accountId!, grantor: .admin,
                context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) { try state.deleteUser(aAdmin.userId!, for: aAdmin, context: context, changes: &changes) }
    }

    @Test("seeding twice reports everything unchanged and records no changes")
    func seedIdempotence() throws {
        var shards = ShardSet(directory: Directory())
        var first = ChangeSet()
        let report1 = try shards.apply(
            seed: Seed.defaultTenant, passwordHashes: ["admin": "h1", "agent": "h2", "superadmin": "h3"], context: context, changes: &first)
        #expect(report1.created == 6)
        var second = ChangeSet()
        let report2 = try shards.apply(seed: Seed.defaultTenant, passwordHashes: [:], context: context, changes: &second)
        #expect(report2.created == 0)
        #expect(report2.updated == 0)
        #expect(report2.unchanged == 6)
        #expect(second.isEmpty)
    }

    @Test("records round-trip: the state rebuilt from its changes equals the state")
    func roundTrip() throws {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(seed: Seed.defaultTenant, passwordHashes: ["admin": "hash"], context: context, changes: &changes)
        let state = try #require(shards.state(named: "demo"))
        var records: [EntityKind: [String: StoredRecord]] = [:]
        for change in changes.changes {
            switch change {
            case .put(let entity):
                let record = StoredRecord(encoding: entity)
                records[record.kind, default: [:]][record.id] = record
            case .delete(let kind, let id): records[kind]?[id] = nil
            case .deleteAccountData: Issue.record("a seed removes no account")
            }
        }
        let accountRecord = try #require(records[.account]?.values.first)
        let directory = Directory()
        let rebuilt = try AccountState.load(
            account: try RecordCoding.decode(Account.self, from: accountRecord), records: records.values.flatMap(\.values), directory: directory
        )
        #expect(rebuilt.account == state.account)
        #expect(directory.accountId(for: .username("admin")) == state.accountId)
        #expect(rebuilt.users == state.users)
        #expect(rebuilt.persons == state.persons)
        #expect(rebuilt.apiKeys == state.apiKeys)
        #expect(rebuilt.namedAreas == state.namedAreas)
        #expect(rebuilt.user(loginName: "admin")?.passwordHash == "hash")
        #expect(rebuilt.apiKey(presented: "demo-api-key") != nil)
    }

    /// Account "a" loaded from its records and one record as main stored it, before its kind joined the
    /// entity layer (its store kind, the plain id, the entity's own JSON).
    func loadedWithLegacy(_ kind: EntityKind, id: String, body: (_ accountId: String) -> String) throws -> (AccountState, Principal) {
        let seeded = try seeded()
        let legacy = StoredRecord(kind: kind, id: id, accountId: seeded.accountId, body: Data(body(seeded.accountId).utf8))
        let state = try AccountState.load(
            account: seeded.account, records: seeded.storedEntities.map { StoredRecord(encoding: $0) } + [legacy], directory: Directory()
        )
        return (state, try principal(state, "a-admin"))
    }

    /// What a change set writes, one line per change.
    static func written(_ changes: ChangeSet) -> [String] {
        changes.changes.map { change -> String in
            switch change {
            case .put(let entity): "put \(type(of: entity).kind.rawValue) \(entity.id)"
            case .delete(let kind, let id): "delete \(kind.rawValue) \(id)"
            case .deleteAccountData(let id): "deleteAccountData \(id)"
            }
        }
    }

    @Test("a named area stored before it joined the entity layer loads, and its next write removes the old record")
    func legacyNamedAreaRecord() throws {
        var (state, admin) = try loadedWithLegacy(.namedArea, id: "area-1") { accountId in
            #"{"accountId":"\#(accountId)","configuration":{"k":"v"},"creationTimestamp":5,"description":"Before","id":"area-1","#
                + #""modificationTimestamp":6,"name":"Old","siteId":"old","translations":{"de":{"name":"Alt"}},"type":"DOMAIN","version":3}"#
        }
        let loaded = try #require(state.namedArea(siteId: "old", accountId: state.accountId))
        #expect(loaded.id == "area-1" && loaded.version == 3 && loaded.type == "DOMAIN" && loaded.configuration == ["k": "v"])
        #expect(loaded.translations?["de"]?.name == "Alt")

        var changes = ChangeSet()
        var draft = loaded
        draft.name = "New"
        draft.configuration = nil
        let updated = try state.updateEntity(draft, for: admin, context: context, changes: &changes)
        #expect(updated.configuration == ["k": "v"], "an update that leaves configuration out keeps it")
        #expect(Array(Self.written(changes).prefix(2)) == ["delete namedArea area-1", "put declared NamedArea/area-1"])
    }

    @Test("a dialog bot stored before it joined the entity layer loads with its secret and onboarding, and its delete removes the old record")
    func legacyDialogBotRecord() throws {
        var (state, admin) = try loadedWithLegacy(.dialogBot, id: "bot-1") { accountId in
            #"{"accountId":"\#(accountId)","automaticTypingStateHandlingEnabled":false,"botPersonId":"p-bot","creationTimestamp":5,"#
                + #""id":"bot-1","messageStateHandledExternally":false,"modificationTimestamp":6,"name":"old-bot","#
                + #""needsCounterpartPresence":false,"offboardingFilter":"NONE","offboardingOrder":0,"onTimeoutBehavior":"HAND_OFF","#
                + #""onboardingFilter":"VISITORS","onboardingOrder":0,"outboundTimeoutMillis":5000,"reboardingEnabled":false,"#
                + #""reboardingOrder":0,"version":2,"webhookEndpoint":"https://bot.example/old","webhookSecret":"old-secret","#
                + #""webhookStatus":"ACTIVE"}"#
        }
        let bot = try state.entity(DialogBot.self, named: "old-bot", for: admin)
        #expect(bot.id == "bot-1" && bot.version == 2 && bot.webhookSecret == "old-secret" && bot.botPersonId == "p-bot")
        #expect(state.bots.ids("ONBOARDING", "true") == ["bot-1"], "the onboarding index holds the loaded bot")

        var changes = ChangeSet()
        try state.deleteEntity(DialogBot.self, "bot-1", for: admin, context: context, changes: &changes)
        #expect(Array(Self.written(changes).prefix(2)) == ["delete dialogBot bot-1", "delete declared DialogBotData/bot-1"])
    }

    @Test("a webhook registration stored before it joined the entity layer loads with its secret, dispatch finds it by event, an update moves it")
    func legacyWebhookRecord() throws {
        var (state, admin) = try loadedWithLegacy(.webhookRegistration, id: "hook-1") { accountId in
            #"{"accountId":"\#(accountId)","apiVersion":"V4","creationTimestamp":5,"description":"Old","endpoint":"https://hooks.example/old","#
                + #""events":["conversation.created","ping"],"id":"hook-1","modificationTimestamp":6,"name":"old-hook","secret":"old-secret","#
                + #""status":"ACTIVE","version":2}"#
        }
        let loaded = try state.entity(WebhookRegistration.self, named: "old-hook", for: admin)
        #expect(loaded.id == "hook-1" && loaded.version == 2 && loaded.secret == "old-secret" && loaded.events == ["conversation.created", "ping"])
        func wanting(_ event: String) -> [String] { state.webhooks(accountId: state.accountId, wanting: event).map(\.id) }
        #expect(wanting("conversation.created") == ["hook-1"] && wanting("conversation.ended").isEmpty)

        var draft = WebhookRegistration(name: "old-hook", endpoint: "https://hooks.example/new", events: ["conversation.ended", "webhook.ping"])
        (draft.id, draft.version) = ("hook-1", 2)
        var changes = ChangeSet()
        let updated = try state.updateEntity(draft, for: admin, context: context, changes: &changes)
        #expect(updated.secret == "old-secret" && updated.status == .active, "an update without secret or status keeps them")
        #expect(updated.events == ["conversation.ended", "ping"] && updated.description == nil, "legacy names translated; description replaced")
        #expect(wanting("conversation.created").isEmpty && wanting("conversation.ended") == ["hook-1"] && wanting("ping") == ["hook-1"])
        #expect(Array(Self.written(changes).prefix(2)) == ["delete webhookRegistration hook-1", "put declared WebhookRegistration/hook-1"])

        var inactive = updated
        inactive.status = .inactive
        _ = try state.updateEntity(inactive, for: admin, context: context, changes: &changes)
        #expect(wanting("conversation.ended").isEmpty, "an inactive registration wants nothing")
    }

    @Test("an API key stored before it joined the entity layer loads and authenticates; an update moves its key in the directory")
    func legacyApiKeyRecord() throws {
        var (state, admin) = try loadedWithLegacy(.apiKey, id: "key-1") { accountId in
            #"{"accountId":"\#(accountId)","configuration":{"k":"v"},"creationTimestamp":5,"description":"Old","id":"key-1","#
                + #""key":"old-key-string","metadata":{"m":"1"},"modificationTimestamp":6,"name":"old key","version":3}"#
        }
        let loaded = try #require(state.apiKey(presented: "old-key-string"))
        #expect(loaded.id == "key-1" && loaded.version == 3 && loaded.configuration == ["k": "v"] && loaded.metadata == ["m": "1"])
        #expect(state.directory.accountId(for: .apiKey("old-key-string")) == state.accountId, "loading registers the key string")

        var draft = ApiKey(key: "new-key-string", name: "renamed")
        (draft.id, draft.version) = ("key-1", 3)
        var changes = ChangeSet()
        let updated = try state.updateEntity(draft, for: admin, context: context, changes: &changes)
        #expect(updated.configuration == ["k": "v"] && updated.description == nil, "configuration kept, description replaced")
        #expect(state.apiKey(presented: "new-key-string")?.id == "key-1" && state.apiKey(presented: "old-key-string") == nil)
        #expect(Array(Self.written(changes).prefix(2)) == ["delete apiKey key-1", "put declared ApiKey/key-1"])
        let stored = try #require(changes.changes.compactMap { change -> String? in
            guard case .put(let entity) = change, entity.id == "ApiKey/key-1" else { return nil }
            return String(decoding: StoredRecord(encoding: entity).body, as: UTF8.self)
        }.first)
        #expect(stored.contains(#""apiKey":"new-key-string""#) && !stored.contains(#""key":"#), "stored under the vendor's name")
    }

    @Test("sessions expire and authentication tokens are single use")
    func sessions() throws {
        var state = try seeded()
        var changes = ChangeSet()
        let user = try #require(state.user(loginName: "a-agent"))
        let session = try state.openSession(for: user, kind: .session, lifetime: 100, context: context, changes: &changes)
        #expect(state.session(token: session.id, now: 1_050) != nil)
        #expect(state.session(token: session.id, now: 1_100) == nil)
        let token = try state.openSession(for: user, kind: .authenticationToken, lifetime: 100, context: context, changes: &changes)
        #expect(state.session(token: token.id, now: 1_001) == nil, "a token is not a session")
        _ = try state.redeemAuthenticationToken(token.id, lifetime: 100, context: context, changes: &changes)
        #expect(throws: CollabError.self) { try state.redeemAuthenticationToken(token.id, lifetime: 100, context: context, changes: &changes) }
        _ = state.runDueWork(
            keyRotationInterval: 1_000_000, keyOverlap: 0, clientIdleTimeout: 1_000_000, context: OperationContext(now: 5_000, ids: .system),
            changes: &changes)
        #expect(state.sessions.isEmpty, "expired sessions leave through the deadline queue")
    }

    @Test("labels by scope, rules by a label they use, and usage counts come from indexes kept through renames and deletes")
    func labelAndUsageLookUps() throws {
        var state = try seeded()
        let admin = try principal(state, "a-admin")
        let agent = try principal(state, "a-agent")
        var changes = ChangeSet()
        func label(_ name: String) throws -> PersonLabel {
            try EntityWire.draft(PersonLabel.self, from: Data(#"{"name":"\#(name)","color":"red"}"#.utf8))
        }
        let high = try state.createEntity(try label("tier::high"), for: admin, context: context, changes: &changes)
        _ = try state.createEntity(try label("tier::low"), for: admin, context: context, changes: &changes)
        var other = try state.createEntity(try label("region::north"), for: admin, context: context, changes: &changes)
        _ = try state.createEntity(try label("plain"), for: admin, context: context, changes: &changes)
        #expect(try state.personLabels(scope: "tier", for: agent).compactMap(\.name) == ["tier::high", "tier::low"])
        other.name = "tier::mid"
        other = try state.updateEntity(other, for: admin, context: context, changes: &changes)
        #expect(try state.personLabels(scope: "tier", for: agent).compactMap(\.name) == ["tier::high", "tier::low", "tier::mid"])
        #expect(try state.personLabels(scope: "region", for: agent).isEmpty, "a renamed label leaves its old scope")
        _ = try state.deleteEntity(PersonLabel.self, high.id, for: admin, context: context, changes: &changes)
        #expect(try state.personLabels(scope: "tier", for: agent).compactMap(\.name) == ["tier::low", "tier::mid"])

        func rule(_ json: String) throws -> PersonVisibilityRule {
            try EntityWire.draft(PersonVisibilityRule.self, from: Data(json.utf8))
        }
        var desk = try state.createEntity(
            try rule(#"{"name":"desk","agentLabelSelection":"DEFINED_LABELS","agentLabelNames":["plain"],"visitorLabelSelection":"ALL"}"#),
            for: admin, context: context, changes: &changes)
        _ = try state.createEntity(
            try rule(#"{"name":"mid","agentLabelSelection":"ALL","visitorLabelSelection":"DEFINED_LABELS","visitorLabelNames":["tier::mid"]}"#),
            for: admin, context: context, changes: &changes)
        #expect(try state.personVisibilityRules(usingLabel: "plain", for: admin).compactMap(\.name) == ["desk"])
        #expect(try state.personVisibilityRules(usingLabel: "tier::mid", for: admin).compactMap(\.name) == ["mid"])
        desk.agentLabelNames = ["tier::mid"]
        desk = try state.updateEntity(desk, for: admin, context: context, changes: &changes)
        #expect(try state.personVisibilityRules(usingLabel: "plain", for: admin).isEmpty)
        #expect(Set(try state.personVisibilityRules(usingLabel: "tier::mid", for: admin).compactMap(\.name)) == ["desk", "mid"])

        let responseJSON = #"{"title":"t","text":"x","ownerType":"ACCOUNT","ownerId":"\#(state.accountId)"}"#
        let response = try state.createEntity(
            try EntityWire.draft(CannedResponse.self, from: Data(responseJSON.utf8)), for: admin, context: context, changes: &changes)
        for number in 0..<5 {
            let usage = try EntityWire.draft(
                CannedResponseUsage.self, from: Data(#"{"cannedResponseId":"\#(response.id)","messageId":"m\#(number % 2)"}"#.utf8))
            _ = try state.createEntity(usage, for: agent, context: context, changes: &changes)
        }
        #expect(try state.countEntities(CannedResponseUsage.self, [], for: agent) == 5)
        let oneMessage = [SearchFilter(field: "MESSAGE_ID", op: .equals(.string("m0")))]
        #expect(try state.countEntities(CannedResponseUsage.self, oneMessage, for: agent) == 3)
    }

    @Test("an account holds at most a thousand visibility rules, since an agent's person lists read every enabled one")
    func visibilityRuleBound() throws {
        var state = try seeded()
        let admin = try principal(state, "a-admin")
        var changes = ChangeSet()
        for number in 0..<PersonVisibilityRule.maxPerAccount {
            let rule = try EntityWire.draft(PersonVisibilityRule.self, from: Data(#"{"name":"rule \#(number)","enabled":false}"#.utf8))
            _ = try state.createEntity(rule, for: admin, context: context, changes: &changes)
        }
        let oneMore = try EntityWire.draft(PersonVisibilityRule.self, from: Data(#"{"name":"one more"}"#.utf8))
        var refused = ChangeSet()
        #expect(throws: CollabError(.tooManyRequests, "the account holds the most PersonVisibilityRuleData entities it may (1000)")) {
            try state.createEntity(oneMore, for: admin, context: context, changes: &refused)
        }
        #expect(refused.changes.isEmpty && refused.events.isEmpty)
        #expect(state.declared.table(PersonVisibilityRule.self).count == PersonVisibilityRule.maxPerAccount)
    }

    @Test("an audit entry keeps a state of up to 16 KiB, and a note of the size of a larger one")
    func auditStateBound() throws {
        var state = try seeded()
        let admin = try principal(state, "a-admin")
        var changes = ChangeSet()
        func action(_ key: String, translation: String) throws -> CustomAction {
            let json = #"{"type":"CONVERSATION","key":"\#(key)","translations":{"en":"\#(translation)","de":"\#(translation)"}}"#
            return try EntityWire.draft(CustomAction.self, from: Data(json.utf8))
        }
        _ = try state.createEntity(try action("small", translation: "short"), for: admin, context: context, changes: &changes)
        let large = try action("large", translation: String(repeating: "v", count: 10_000))
        let created = try state.createEntity(large, for: admin, context: context, changes: &changes)
        let entries = state.declared.table(AuditChange.self).rows.values
        let smallState = try #require(entries.first { $0.entityName == "small" }?.newState)
        #expect(smallState.contains("short") && smallState.utf8.count < AuditChange.maxStateBytes)
        let largeState = try #require(entries.first { $0.entityId == created.id }?.newState)
        #expect(largeState.hasPrefix(#"{"$_omitted":"larger than 16384 bytes","bytes":"#) && largeState.utf8.count < 100, "\(largeState.prefix(120))")
    }
}
