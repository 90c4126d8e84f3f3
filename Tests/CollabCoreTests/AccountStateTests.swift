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
        return Principal(accountId: user.accountId, userId: user.id, personId: state.person(ofUser: user)?.id, role: user.authorizationRole, method: .basic)
    }

    @Test("a failed operation reports no changes")
    func failureChangesNothing() throws {
        var state = try seeded()
        let admin = try principal(state, "a-admin")
        var changes = ChangeSet()
        let accountId = try #require(admin.accountId)
        _ = try state.createNamedArea(NamedAreaInput(name: "x", siteId: "x"), accountId: accountId, context: context, changes: &changes)
        var failed = ChangeSet()
        #expect(throws: CollabError.self) {
            _ = try state.createNamedArea(NamedAreaInput(name: "y", siteId: "x"), accountId: accountId, context: context, changes: &failed)
        }
        #expect(failed.isEmpty)
        #expect(try state.searchNamedAreas(SearchQuery(), for: admin).items.count == 1)
    }

    @Test("versions: updates need the current one and bump it")
    func versions() throws {
        var state = try seeded()
        let admin = try principal(state, "a-admin")
        var changes = ChangeSet()
        let area = try state.createNamedArea(NamedAreaInput(name: "x", siteId: "x"), accountId: admin.accountId!, context: context, changes: &changes)
        let updated = try state.updateNamedArea(id: area.id, version: 1, NamedAreaInput(name: "y", siteId: "x"), for: admin, context: context, changes: &changes)
        #expect(updated.version == 2)
        #expect(throws: CollabError.conflict("NamedArea was modified concurrently: version 1 is stale, the current version is 2")) {
            _ = try state.updateNamedArea(id: area.id, version: 1, NamedAreaInput(name: "z", siteId: "x"), for: admin, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) {
            _ = try state.updateNamedArea(id: area.id, version: nil, NamedAreaInput(name: "z", siteId: "x"), for: admin, context: context, changes: &changes)
        }
    }

    @Test("other accounts' entities are not found, and roles cannot be escalated")
    func isolationAndRoles() throws {
        let shards = try seededShards()
        var state = try #require(shards.state(named: "a"))
        let aAdmin = try principal(state, "a-admin")
        let bAdmin = try principal(try #require(shards.state(named: "b")), "b-admin")
        let aAgent = try principal(state, "a-agent")
        var changes = ChangeSet()
        let area = try state.createNamedArea(NamedAreaInput(name: "x", siteId: "x"), accountId: aAdmin.accountId!, context: context, changes: &changes)
        #expect(throws: CollabError.notFound("NamedArea", area.id)) { try state.namedArea(area.id, for: bAdmin) }
        #expect(throws: CollabError.self) { try state.deleteNamedArea(area.id, for: bAdmin, context: context, changes: &changes) }
        #expect(try state.namedArea(area.id, for: aAgent).id == area.id)

        let agentUser = try #require(state.user(loginName: "a-agent"))
        #expect(throws: CollabError.self) {
            _ = try state.updateUser(
                id: agentUser.id, version: agentUser.version, UserInput(username: "a-agent", authorizationRole: .admin), for: aAgent, context: context,
                changes: &changes
            )
        }
        #expect(throws: CollabError.forbidden("cannot grant the role SUPER_ADMIN, which is above your own")) {
            _ = try state.createUser(UserInput(username: "root", authorizationRole: .superAdmin), passwordHash: nil, accountId: aAdmin.accountId!, grantor: .admin, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self) { try state.deleteUser(aAdmin.userId!, for: aAdmin, context: context, changes: &changes) }
    }

    @Test("seeding twice reports everything unchanged and records no changes")
    func seedIdempotence() throws {
        var shards = ShardSet(directory: Directory())
        var first = ChangeSet()
        let report1 = try shards.apply(seed: Seed.defaultTenant, passwordHashes: ["admin": "h1", "agent": "h2", "superadmin": "h3"], context: context, changes: &first)
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
        _ = state.runDueWork(keyRotationInterval: 1_000_000, keyOverlap: 0, clientIdleTimeout: 1_000_000, context: OperationContext(now: 5_000, ids: .system), changes: &changes)
        #expect(state.sessions.isEmpty, "expired sessions leave through the deadline queue")
    }
}
