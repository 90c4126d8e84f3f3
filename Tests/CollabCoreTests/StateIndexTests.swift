import CollabCore
import Testing

@Suite("Indexes of the account state")
struct StateIndexTests {
    let context = OperationContext(now: 1_000, ids: .system)

    func shard(agents: Int = 1, visitors: Int = 0) throws -> (AccountState, [Person], [Person]) {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(
            seed: Seed(accounts: [
                .init(
                    name: "a", namedAreas: [.init(siteId: "x"), .init(siteId: "y")],
                    users: (0..<agents).map { .init(username: "agent\($0)", role: .registeredUser) },
                    persons: (0..<visitors).map { .init(sourceId: "v\($0)", personType: .visitor) }
                ),
            ]),
            passwordHashes: [:], context: context, changes: &changes
        )
        let state = try #require(shards.state(named: "a"))
        let agentPersons = (0..<agents).compactMap { state.user(loginName: "agent\($0)").flatMap(state.person(ofUser:)) }
        let visitorPersons = state.persons.values.filter { $0.personType == .visitor }.sorted { $0.sourceId < $1.sourceId }
        return (state, agentPersons, visitorPersons)
    }

    @Test("queue pages come in queue order across areas, with positions and a cursor, and skip what an agent declined")
    func queuePages() throws {
        var (state, agents, visitors) = try shard(agents: 2, visitors: 30)
        let x = try #require(state.namedArea(siteId: "x", accountId: state.accountId))
        let y = try #require(state.namedArea(siteId: "y", accountId: state.accountId))
        var changes = ChangeSet()
        var created: [Conversation] = []
        for (index, visitor) in visitors.enumerated() {
            let area = index.isMultiple(of: 2) ? x : y
            let at = OperationContext(now: 2_000 + Int64(index), ids: .system)
            created.append(try state.createConversation(
                ConversationInput(recipient: .init(type: .namedArea, id: area.id), contextPersonId: visitor.id), accountId: state.accountId,
                context: at, changes: &changes
            ))
        }
        _ = try state.declineConversation(created[1].id, agentPersonId: agents[0].id, accountId: state.accountId, context: context, changes: &changes)

        var seen: [QueueEntry] = []
        var cursor: QueueCursor?
        repeat {
            let page = state.queue(accountId: state.accountId, agentPersonId: agents[0].id, namedAreaIds: nil, after: cursor, limit: 7)
            seen += page
            cursor = page.count == 7 ? page.last.map(QueueCursor.init(after:)) : nil
        } while cursor != nil
        #expect(seen.map(\.conversation.id) == created.map(\.id).filter { $0 != created[1].id }, "every queued conversation once, first queued first")
        #expect(seen.map(\.position) == Array(1...29))
        let onlyX = state.queue(accountId: state.accountId, agentPersonId: agents[1].id, namedAreaIds: [x.id], limit: 100)
        #expect(onlyX.map(\.conversation.id) == created.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element.id))
        // Accepting takes a conversation out of the queue index.
        _ = try state.acceptConversation(created[0].id, agentPersonId: agents[1].id, accountId: state.accountId, context: context, changes: &changes)
        #expect(
            state.queue(accountId: state.accountId, agentPersonId: agents[1].id, namedAreaIds: nil, limit: 1).first?.conversation.id == created[1].id)
        #expect(QueueCursor(token: QueueCursor(after: seen[3]).token) == QueueCursor(after: seen[3]))
        #expect(QueueCursor(token: "garbage") == nil)
    }

    @Test("an indexed table keeps its secondary index in step with every change")
    func indexedTable() {
        let byTag = TableIndex<Tagged>(0) { $0.tags }
        var table = IndexedTable<Tagged>(indexes: [byTag])
        table["1"] = Tagged(id: "1", tags: ["a", "b"])
        table["2"] = Tagged(id: "2", tags: ["b"])
        #expect(table.ids(byTag, "b") == ["1", "2"])
        table["1"] = Tagged(id: "1", tags: ["c"])
        #expect(table.ids(byTag, "a").isEmpty)
        #expect(table.ids(byTag, "b") == ["2"])
        table.removeValue(forKey: "2")
        #expect(table.count(byTag, "b") == 0)
        #expect(table.rows(byTag, "c").map(\.id) == ["1"])
    }

    @Test("deadlines come up in time order, once, and a rescheduled piece of work only at its new time")
    func deadlines() {
        var queue = DeadlineQueue()
        queue.schedule(.callTimeout("late"), at: 300)
        queue.schedule(.callTimeout("early"), at: 100)
        queue.schedule(.keyRotation("device"), at: 50)
        queue.schedule(.clientIdle("client"), at: 0)
        #expect(queue.next(keyRotationInterval: 1_000, clientIdleTimeout: 80) == 80)
        #expect(queue.takeDue(now: 150, keyRotationInterval: 1_000, clientIdleTimeout: 80) == [.callTimeout("early"), .clientIdle("client")])
        queue.schedule(.callTimeout("late"), at: 900)
        #expect(queue.takeDue(now: 500, keyRotationInterval: 1_000, clientIdleTimeout: 80).isEmpty, "the entry for 300 is stale")
        #expect(queue.takeDue(now: 1_050, keyRotationInterval: 1_000, clientIdleTimeout: 80) == [.callTimeout("late"), .keyRotation("device")])
        #expect(queue.count == 0)
    }

    struct Tagged: Sendable, Equatable {
        var id: String
        var tags: [String]
    }
}
