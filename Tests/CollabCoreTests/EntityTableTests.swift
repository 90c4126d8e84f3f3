import CollabCore
import CollabWire
import Foundation
import Testing

/// The entity layer in the core: indexes kept in step by every write, replication of declared records,
/// snapshots' stored entities and redaction, searches answered from an index.
@Suite("Entity layer: tables, indexes, replication")
struct EntityTableTests {
    let context = OperationContext(now: 1_000, ids: .system)

    func shard() throws -> (AccountState, Principal) {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(seed: Seed(accounts: [.init(name: "a")]), passwordHashes: [:], context: context, changes: &changes)
        let state = try #require(shards.state(named: "a"))
        return (state, Principal(accountId: state.accountId, userId: nil, personId: nil, role: .admin, method: .basic))
    }

    func label(_ name: String) throws -> PersonLabel {
        try EntityWire.draft(PersonLabel.self, from: Data(#"{"name":"\#(name)","color":"red"}"#.utf8))
    }

    @Test("a rename moves the entity in its name index; a delete removes it from every index")
    func indexesFollowWrites() throws {
        var (state, admin) = try shard()
        var changes = ChangeSet()
        var created = try state.createEntity(try label("old"), for: admin, context: context, changes: &changes)
        #expect(state.declared.table(PersonLabel.self).ids("NAME", "old") == [created.id])
        created.name = "new"
        let updated = try state.updateEntity(created, for: admin, context: context, changes: &changes)
        #expect(updated.version == 2)
        #expect(state.declared.table(PersonLabel.self).ids("NAME", "old").isEmpty)
        #expect(try state.entity(PersonLabel.self, named: "new", for: admin).id == created.id)
        try state.deleteEntity(PersonLabel.self, created.id, for: admin, context: context, changes: &changes)
        #expect(state.declared.table(PersonLabel.self).ids("NAME", "new").isEmpty)
        let query = try SearchQuery(filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 0, to: 5_000))])
        #expect(try state.searchEntities(PersonLabel.self, query, for: admin).items.isEmpty)
    }

    @Test("another replica's puts and deletes of declared records land in the tables, indexes included")
    func replication() throws {
        var (writer, admin) = try shard()
        var replica = AccountState.replica(of: writer.account, directory: Directory())
        var changes = ChangeSet()
        _ = try writer.createEntity(try label("shared"), for: admin, context: context, changes: &changes)
        var effects = ReplicatedEffects()
        for change in changes.changes {
            var encoded = ReplicatedChange(change)
            // The log carries records as JSON: decode them back as a replica receives them.
            encoded = try JSONDecoder().decode(ReplicatedChange.self, from: try JSONEncoder().encode(encoded))
            _ = try replica.applyReplicated(encoded, effects: &effects)
        }
        let copied = try replica.entity(PersonLabel.self, named: "shared", for: admin)
        #expect(copied == (try writer.entity(PersonLabel.self, named: "shared", for: admin)))
        #expect(replica.declared.table(AuditChange.self).count == 1, "the audit entry travels with the write")
        _ = try replica.applyReplicated(.delete(.declared, id: DeclaredRecord<PersonLabel>.recordId(copied.id)), effects: &effects)
        #expect(replica.declared.table(PersonLabel.self).ids("NAME", "shared").isEmpty)
    }

    @Test("a shard rebuilt from its stored entities holds the same declared entities; redaction leaves secrets out")
    func storedEntities() throws {
        var (state, admin) = try shard()
        var changes = ChangeSet()
        let body = #"{"name":"s","outboundEndpoint":"http://x/y","outboundSecret":"s3cret","outboundTimeoutMillis":5}"#
        let source = try EntityWire.draft(SuggestionSource.self, from: Data(body.utf8))
        _ = try state.createEntity(source, for: admin, context: context, changes: &changes)
        let records = state.storedEntities.map { StoredRecord(encoding: $0) }
        let rebuilt = try AccountState.load(account: state.account, records: records, directory: Directory())
        #expect(rebuilt.declared.counts == state.declared.counts)
        let redacted = state.storedEntities.compactMap { SecretRedaction.apply(.redacted, to: $0) }.map { StoredRecord(encoding: $0) }
        let text = redacted.map { String(decoding: $0.body, as: UTF8.self) }.joined()
        #expect(!text.contains("s3cret") && records.map { String(decoding: $0.body, as: UTF8.self) }.joined().contains("s3cret"))
    }

    @Test("an operator the field's filter schema does not allow is a 400 naming it")
    func operatorsPerField() throws {
        let (state, admin) = try shard()
        let contains = try SearchQuery(filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .contains("1"))])
        #expect(throws: CollabError.self) { try state.searchEntities(PersonLabel.self, contains, for: admin) }
        let greater = try SearchQuery(filters: [SearchFilter(field: "NAME", op: .greaterThan(1))])
        do {
            _ = try state.searchEntities(PersonLabel.self, greater, for: admin)
            Issue.record("GREATER_THAN on a string field was accepted")
        } catch {
            #expect(error.kind == .badRequest && error.message.contains("GREATER_THAN"))
        }
    }
}
