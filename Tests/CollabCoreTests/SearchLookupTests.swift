@testable import CollabCore
import CollabWire
import Testing

/// Searches over the account's tables take their candidates from an index when a filter pins a field
/// one covers, and answer exactly what a scan of the whole table answers.
@Suite("Search look-ups")
struct SearchLookupTests {
    let context = OperationContext(now: 1_000, ids: .system)

    struct Fixture {
        var state: AccountState
        var admin: Principal
        var agents: [Person]
        var visitors: [Person]
        var conversations: [Conversation]
    }

    /// Account "a": an admin, 3 agents, 8 visitors, 24 conversations (two of three accepted by an agent),
    /// a PIN invitation to every third one (one of them revoked) and a call in four of the accepted ones.
    func fixture() throws -> Fixture {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(
            seed: Seed(accounts: [
                .init(
                    name: "a",
                    apiKeys: [.init(key: "a-key")],
                    users: [.init(username: "a-admin", role: .admin)] + (0..<3).map { .init(username: "agent\($0)", role: .registeredUser) },
                    persons: (0..<8).map { .init(sourceId: "v\($0)", personType: .visitor) }
                ),
            ]),
            passwordHashes: [:], context: context, changes: &changes
        )
        var state = try #require(shards.state(named: "a"))
        let adminUser = try #require(state.user(loginName: "a-admin"))
        let admin = Principal(
            accountId: adminUser.accountId, userId: adminUser.id, personId: state.person(ofUser: adminUser)?.id, role: .admin, method: .basic
        )
        let agents = try (0..<3).map { try #require(state.user(loginName: "agent\($0)").flatMap(state.person(ofUser:))) }
        let visitors = state.persons.values.filter { $0.personType == .visitor }.sorted { $0.sourceId < $1.sourceId }
        var conversations: [Conversation] = []
        for index in 0..<24 {
            let at = OperationContext(now: 2_000 + Int64(index), ids: .system)
            var conversation = try state.createConversation(
                ConversationInput(topic: "t\(index % 5)", contextPersonId: visitors[index % visitors.count].id), accountId: state.accountId,
                context: at, changes: &changes
            )
            if index % 3 != 0 {
                conversation = try state.acceptConversation(
                    conversation.id, agentPersonId: agents[index % agents.count].id, accountId: state.accountId, context: at, changes: &changes)
            }
            if index % 3 == 0 {
                let invitation = try state.inviteAnonymousVisitor(
                    .pin, conversationId: conversation.id, nickname: nil, creatorPersonId: nil, for: admin, context: at, changes: &changes)
                if index == 12 { _ = try state.revokeInvitation(invitation.id, for: admin, context: at, changes: &changes) }
            }
            if index % 4 == 1, index % 3 != 0 {
                _ = try state.startCall(
                    conversationId: conversation.id, initiatorPersonId: agents[index % agents.count].id, callType: .audio, timeout: 30_000,
                    accountId: state.accountId, context: at, changes: &changes)
            }
            conversations.append(conversation)
        }
        return Fixture(state: state, admin: admin, agents: agents, visitors: visitors, conversations: conversations)
    }

    /// Expects two outcomes to agree, and the search to have answered: a refusal on both sides would agree
    /// without testing anything (only the query that names an unknown field on purpose is refused).
    func expectSame(_ indexed: String, _ scanned: String, _ query: SearchQuery, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(indexed == scanned, "\(query.filters)", sourceLocation: sourceLocation)
        let refusedOnPurpose = query.filters.contains { $0.field == "NO_SUCH_FIELD" }
        #expect(indexed.hasPrefix("refused:") == refusedOnPurpose, "\(query.filters): \(indexed)", sourceLocation: sourceLocation)
    }

    /// The ids and paging of a page, or the refusal's message: what two searches must agree on.
    func outcome<Entity>(_ search: () throws(CollabError) -> SearchPage<Entity>, id: (Entity) -> String) -> String {
        do {
            let page = try search()
            return "\(page.items.map(id)) more: \(page.hasMoreItems) next: \(page.nextOffset.map(String.init) ?? "-")"
        } catch {
            return "refused: \(error.message)"
        }
    }

    /// Expects the conversation and conversation history searches to answer `query` as scans of every
    /// conversation do.
    func expectConversationSearchesScan(
        _ state: AccountState, _ query: SearchQuery, admin: Principal, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let indexed = outcome({ () throws(CollabError) in try state.searchConversations(query, for: admin) }, id: \.id)
        let scanned = outcome({ () throws(CollabError) in
            try SearchSchemas.conversation.run(query, over: state.conversations.values, id: \.id)
        }, id: \.id)
        expectSame(indexed, scanned, query, sourceLocation: sourceLocation)
        let history = outcome({ () throws(CollabError) in try state.searchConversationHistory(query, for: admin) }, id: \.id)
        let historyScanned = outcome({ () throws(CollabError) in
            try SearchSchemas.conversationHistory.run(query, over: state.conversations.values, id: \.id)
        }, id: \.id)
        expectSame(history, historyScanned, query, sourceLocation: sourceLocation)
    }

    /// A query, newest first.
    func query(_ filters: [SearchFilter], offset: Int? = nil, limit: Int? = nil) throws -> SearchQuery {
        try SearchQuery(filters: filters, orderBy: [SearchOrder(field: "CREATION_TIMESTAMP", descending: true)], offset: offset, limit: limit)
    }

    @Test("a conversation search answers as a scan does, and a participant, state or id filter reads only its rows")
    func conversations() throws {
        let fixture = try fixture()
        let state = fixture.state
        let (v, a, c) = (fixture.visitors.map(\.id), fixture.agents.map(\.id), fixture.conversations.map(\.id))
        let participant = "PARTICIPANT_PERSON_ID"
        let queries: [SearchQuery] = [
            try query([]),
            try query([SearchFilter(field: participant, op: .anyOf([v[0], v[3]]))]),
            try query([SearchFilter(field: participant, op: .allOf([v[1], a[1]]))]),
            try query([SearchFilter(field: participant, op: .allOf([]))]),
            try query([SearchFilter(field: participant, op: .allEqual([v[2]]))]),
            try query([SearchFilter(field: participant, op: .allEqual([]))]),
            try query([SearchFilter(field: participant, op: .anyOf([v[4]])), SearchFilter(field: "STATE", op: .equals(.string("ACTIVE")))]),
            try query([SearchFilter(field: participant, op: .anyOf(["nobody"]))]),
            try query([SearchFilter(field: "ID", op: .equals(.string(c[5])))]),
            try query([SearchFilter(field: "ID", op: .isIn([.string(c[1]), .string(c[2]), .string("nope")]))]),
            try query([SearchFilter(field: "ID", op: .isIn([.string(c[1]), .null]))]),
            try query([SearchFilter(field: "ID", op: .notEquals(.string(c[0])))], offset: 3, limit: 5),
            try query([SearchFilter(field: "ID", op: .isIn(c.map { .string($0) })), SearchFilter(field: participant, op: .anyOf([a[0]]))],
                offset: 1, limit: 2),
            try query([SearchFilter(field: participant, op: .anyOf([v[0]])), SearchFilter(field: "NO_SUCH_FIELD", op: .isNull)]),
            try query([SearchFilter(field: "STATE", op: .equals(.string("QUEUED")))]),
            try query([SearchFilter(field: "STATE", op: .isIn([.string("ACTIVE"), .string("ENDED")]))], offset: 2, limit: 4),
            try query([SearchFilter(field: "STATE", op: .equals(.string("ACTIVE"))), SearchFilter(field: participant, op: .anyOf([a[2]]))]),
            try query([SearchFilter(field: "STATE", op: .notEquals(.string("ACTIVE")))]),
            try query([SearchFilter(field: "ASSIGNEE_PERSON_ID", op: .equals(.string(a[1])))]),
            try query([SearchFilter(field: "ASSIGNEE_PERSON_ID", op: .isIn([.string(a[2]), .string(v[0])]))]),
            try query([SearchFilter(field: "CONTEXT_PERSON_ID", op: .equals(.string(v[5])))]),
            try query([SearchFilter(field: "CONTEXT_PERSON_ID", op: .equals(.string(a[1])))]),
        ]
        // Through the orders the table keeps: none named (by id), by creation either way, and creation ranges.
        let ordered: [SearchQuery] = [
            try SearchQuery(limit: 5),
            try SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP")], offset: 4, limit: 6),
            try SearchQuery(
                filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 2_005, to: 2_012))], orderBy: [SearchOrder(field: "TOPIC")]),
            try SearchQuery(
                filters: [
                    SearchFilter(field: "CREATION_TIMESTAMP", op: .greaterThan(2_010)), SearchFilter(field: "TOPIC", op: .notEquals(.string("t1"))),
                ],
                orderBy: [SearchOrder(field: "CREATION_TIMESTAMP", descending: true), SearchOrder(field: "TOPIC")], limit: 3),
        ]
        for query in queries + ordered {
            expectConversationSearchesScan(state, query, admin: fixture.admin)
        }
        guard case .walk = state.conversationLookups.plan(for: try query([])) else {
            Issue.record("a newest-first list without filters reads the conversations in creation order")
            return
        }
        // The plan: a visitor's conversations only, the smallest of two pinned filters, the scan without one.
        let lookups = state.conversationLookups
        let ofV0 = try #require(lookups.candidates(for: try query([SearchFilter(field: participant, op: .anyOf([v[0]]))])))
        #expect(Set(ofV0) == Set(fixture.conversations.filter { $0.participants.contains { $0.personId == v[0] } }.map(\.id)))
        #expect(ofV0.count == 3)
        let both = try query([
            SearchFilter(field: participant, op: .anyOf([a[1]])), SearchFilter(field: "ID", op: .equals(.string(c[1]))),
        ])
        #expect(lookups.candidates(for: both) == [c[1]])
        // Agent 0 accepted none: no candidates at all, whatever the other filters.
        #expect(lookups.candidates(for: try query([SearchFilter(field: participant, op: .anyOf([a[0]]))])) == [])
        #expect(lookups.candidates(for: try query([SearchFilter(field: "TOPIC", op: .equals(.string("t1")))])) == nil)
        let queued = try #require(lookups.candidates(for: try query([SearchFilter(field: "STATE", op: .equals(.string("QUEUED")))])))
        #expect(Set(queued) == Set(fixture.conversations.filter { $0.state == .queued }.map(\.id)))
        #expect(queued.count == 8)
        #expect(lookups.candidates(for: try query([SearchFilter(field: participant, op: .allOf([]))])) == nil)
        // Several keys are joined, unless a walk would beat their largest list: then none is copied.
        let states = try query([SearchFilter(field: "STATE", op: .isIn([.string("QUEUED"), .string("ACTIVE"), .string("QUEUED")]))])
        let active = fixture.conversations.filter { $0.state == .active }.count
        let largest = max(8, active)
        #expect(active > 0)
        #expect(lookups.candidates(for: states)?.count == 8 + active)
        #expect(lookups.candidates(for: states, upTo: 8 + active)?.count == 8 + active)
        #expect(lookups.candidates(for: states, upTo: largest - 1) == nil, "the largest list alone holds more than a walk would read")
        #expect(lookups.candidates(for: states, upTo: largest)?.count == 8 + active, "the join may hold more than the cap: the plan weighs it")
    }

    @Test("user, person, invitation and call searches answer as scans do")
    func otherTables() throws {
        let fixture = try fixture()
        let state = fixture.state
        let c = fixture.conversations.map(\.id)
        let agentUser = try #require(state.user(loginName: "agent1"))
        let userQueries: [SearchQuery] = [
            try query([]),
            try SearchQuery(limit: 2),
            try SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP")], offset: 1, limit: 2),
            try query([SearchFilter(field: "USERNAME", op: .equals(.string("agent1")))]),
            try query([SearchFilter(field: "USERNAME", op: .isIn([.string("agent0"), .string("AGENT2"), .string("a-admin")]))]),
            try query([SearchFilter(field: "USERNAME", op: .contains("agent"))]),
            try query([SearchFilter(field: "ID", op: .equals(.string(agentUser.id)))]),
            try query([SearchFilter(field: "TEAM_ID", op: .equals(.string("no-team")))]),
        ]
        for query in userQueries {
            let indexed = outcome({ () throws(CollabError) in try state.searchUsers(query, for: fixture.admin) }, id: \.id)
            let scanned = outcome({ () throws(CollabError) in try SearchSchemas.user.run(query, over: state.users.values, id: \.id) }, id: \.id)
            expectSame(indexed, scanned, query)
        }
        let personQueries: [SearchQuery] = [
            try query([]),
            try SearchQuery(limit: 5),
            try SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP")], offset: 2, limit: 4),
            try SearchQuery(
                filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .lowerThan(1_000_000))], orderBy: [SearchOrder(field: "LAST_NAME")]),
            try query([SearchFilter(field: "SOURCE_ID", op: .equals(.string("v3")))]),
            try query([SearchFilter(field: "SOURCE_ID", op: .isIn([.string("v1"), .string(agentUser.id), .string("v9")]))]),
            try query([SearchFilter(field: "SOURCE_ID", op: .startsWith("v"))], offset: 2, limit: 3),
            try query([SearchFilter(field: "ID", op: .equals(.string(fixture.visitors[2].id)))]),
            try query([SearchFilter(field: "PERSON_TYPE", op: .equals(.string("AGENT")))]),
            try query([SearchFilter(field: "PERSON_TYPE", op: .isIn([.string("VISITOR"), .string("BOT")]))], offset: 1, limit: 3),
            try query([SearchFilter(field: "PERSON_TYPE", op: .notEquals(.string("VISITOR")))]),
        ]
        for query in personQueries {
            let indexed = outcome({ () throws(CollabError) in try state.searchPersons(query, for: fixture.admin) }, id: \.id)
            let scanned = outcome({ () throws(CollabError) in try SearchSchemas.person.run(query, over: state.persons.values, id: \.id) }, id: \.id)
            expectSame(indexed, scanned, query)
            let agents = outcome({ () throws(CollabError) in try state.searchPersons(query, type: .agent, for: fixture.admin) }, id: \.id)
            let agentsScanned = outcome({ () throws(CollabError) in
                try SearchSchemas.person.run(query, over: state.persons.values.filter { $0.personType == .agent }, id: \.id)
            }, id: \.id)
            expectSame(agents, agentsScanned, query)
            let visitors = outcome({ () throws(CollabError) in try state.searchPersons(query, type: .visitor, for: fixture.admin) }, id: \.id)
            let visitorsScanned = outcome({ () throws(CollabError) in
                try SearchSchemas.person.run(query, over: state.persons.values.filter { $0.personType == .visitor }, id: \.id)
            }, id: \.id)
            expectSame(visitors, visitorsScanned, query)
        }
        let byConversation = [c[0], c[3], c[4]]
        let invitationAndCallQueries: [SearchQuery] = [
            try query([]),
            try SearchQuery(limit: 3),
            try SearchQuery(offset: 2, limit: 2),
            try query([SearchFilter(field: "CONVERSATION_ID", op: .equals(.string(c[3])))]),
            try query([SearchFilter(field: "CONVERSATION_ID", op: .isIn(byConversation.map { .string($0) }))]),
            try query([SearchFilter(field: "CONVERSATION_ID", op: .equals(.string(c[1])))]),
        ]
        let invitationStateQueries: [SearchQuery] = try ["OPEN", "EXPIRED", "REDEEMED", "REVOKED"].map {
            try query([SearchFilter(field: "INVITATION_STATE", op: .equals(.string($0)))])
        } + [try query([SearchFilter(field: "INVITATION_STATE", op: .isIn([.string("OPEN"), .string("REVOKED")]))])]
        // Read before the PINs' expiry, and when half of them have expired: the scan reads each invitation's
        // state at the same instant.
        for now: Timestamp in [5_000, 2_000 + Invitation.pinLifetime + 10] {
            for query in invitationStateQueries {
                let indexed = outcome({ () throws(CollabError) in try state.searchInvitations(query, now: now, for: fixture.admin) }, id: \.id)
                let scanned = outcome({ () throws(CollabError) in
                    try SearchSchemas.invitation.run(
                        query, over: state.invitations.values.map { var read = $0; read.state = $0.state(at: now); return read }, id: \.id)
                }, id: \.id)
                expectSame(indexed, scanned, query)
            }
        }
        for query in invitationAndCallQueries {
            let invitations = outcome({ () throws(CollabError) in try state.searchInvitations(query, now: 5_000, for: fixture.admin) }, id: \.id)
            let invitationsScanned = outcome({ () throws(CollabError) in
                try SearchSchemas.invitation.run(query, over: state.invitations.values, id: \.id)
            }, id: \.id)
            expectSame(invitations, invitationsScanned, query)
            // Calls have no creation time: newest first is by initiation (a query that names no order keeps none).
            var callQuery = query
            if !query.orderBy.isEmpty { callQuery.orderBy = [SearchOrder(field: "INITIATION_TIMESTAMP", descending: true)] }
            let calls = outcome({ () throws(CollabError) in try state.searchCalls(callQuery, for: fixture.admin) }, id: \.id)
            let callsScanned = outcome({ () throws(CollabError) in
                try SearchSchemas.call.run(callQuery, over: state.calls.values, id: \.id)
            }, id: \.id)
            expectSame(calls, callsScanned, callQuery)
        }
        // An agent list reads the agents only (the admin and three agents: four of twelve persons).
        let agentIds = Set(state.persons.values.filter { $0.personType == .agent }.map(\.id))
        #expect(agentIds.count == 4)
        #expect(state.personLookups(type: .agent).candidates(for: try query([])).map(Set.init) == agentIds)
        #expect(state.personLookups(type: nil).candidates(for: try query([])) == nil, "an untyped search without filters reads every person")
        let oneVisitor = try query([SearchFilter(field: "SOURCE_ID", op: .equals(.string("v3")))])
        #expect(state.personLookups(type: .visitor).candidates(for: oneVisitor) == [fixture.visitors[3].id], "a narrower filter wins")
        #expect(state.invitations.count == 8)
        #expect(state.calls.count == 4)
    }

    @Test("conversations and calls ordered by their end answer as scans do")
    func endOrder() throws {
        var fixture = try fixture()
        var changes = ChangeSet()
        // Ends most accepted conversations (those with calls among them), two at each instant: ties in the order.
        var ended = 0
        for (index, conversation) in fixture.conversations.enumerated() where index % 3 != 0 && index % 4 != 3 {
            let at = OperationContext(now: 4_000 + Int64(ended / 2), ids: .system)
            _ = try fixture.state.endConversation(
                conversation.id, by: nil, reason: .endedByParticipant, comment: nil, accountId: fixture.state.accountId, context: at,
                changes: &changes)
            ended += 1
        }
        let state = fixture.state
        let end = "END_TIMESTAMP"
        let queries: [SearchQuery] = [
            try SearchQuery(orderBy: [SearchOrder(field: end, descending: true)], limit: 4),
            try SearchQuery(orderBy: [SearchOrder(field: end)], offset: 2, limit: 5),
            try SearchQuery(orderBy: [SearchOrder(field: end)], offset: 14, limit: 3),
            try SearchQuery(filters: [SearchFilter(field: end, op: .inRange(from: 4_002, to: 4_004))], orderBy: [SearchOrder(field: "TOPIC")]),
            try SearchQuery(
                filters: [SearchFilter(field: end, op: .greaterThan(4_001))],
                orderBy: [SearchOrder(field: end, descending: true), SearchOrder(field: "TOPIC")], limit: 3),
            try SearchQuery(filters: [SearchFilter(field: end, op: .isNull)], orderBy: [SearchOrder(field: end, descending: true)], limit: 3),
            try SearchQuery(
                filters: [SearchFilter(field: "STATE", op: .equals(.string("ENDED")))], orderBy: [SearchOrder(field: end, descending: true)]),
        ]
        for query in queries {
            expectConversationSearchesScan(state, query, admin: fixture.admin)
            // The same for calls, where the conversation's fields have none of their own.
            guard !query.filters.contains(where: { $0.field == "STATE" }) else { continue }
            var callQuery = query
            callQuery.orderBy = query.orderBy.map { $0.field == "TOPIC" ? SearchOrder(field: "INITIATOR_PERSON_ID") : $0 }
            let calls = outcome({ () throws(CollabError) in try state.searchCalls(callQuery, for: fixture.admin) }, id: \.id)
            let callsScanned = outcome({ () throws(CollabError) in
                try SearchSchemas.call.run(callQuery, over: state.calls.values, id: \.id)
            }, id: \.id)
            expectSame(calls, callsScanned, callQuery)
        }
        #expect(ended == 12)
        #expect(state.calls.values.filter { $0.endTimestamp != nil }.count == 4, "the calls end with their conversations")
        guard case .walk = state.conversationLookups.plan(for: queries[0]) else {
            Issue.record("the last ended first reads the conversations in end order")
            return
        }
    }

    @Test("users and persons ordered by a name answer as scans do, and read the table in that order")
    func nameOrders() throws {
        var fixture = try fixture()
        var changes = ChangeSet()
        // Names that tie once case is folded, names some rows lack, an empty one, and text whose folded
        // order differs from its byte order ("B" before "a", "Å" after "z").
        let names: [String?] = ["smith", "Smith", nil, "SMITH", "Åberg", "adams", "Zoe", "zoe", "", "b", "B", nil, "a"]
        func name(_ index: Int) -> String? { names[index % names.count] }
        var users: [User] = []
        for index in 0..<names.count {
            let at = OperationContext(now: 3_000 + Int64(index / 2), ids: .system)
            let person = PersonInput(
                sourceId: "named-\(index)", personType: index % 3 == 0 ? .agent : .visitor, username: name(index).map { "\($0)\(index % 2)" },
                firstName: name(index + 3), lastName: name(index), nickname: name(index + 5))
            _ = try fixture.state.createOrUpdateVirtualPerson(person, accountId: fixture.state.accountId, context: at, changes: &changes)
            let user = UserInput(username: "u\(index)-\(name(index) ?? "none")", firstName: name(index + 7), lastName: name(index))
            users.append(try fixture.state.createUser(
                user, passwordHash: nil, accountId: fixture.state.accountId, grantor: .admin, context: at, changes: &changes))
        }
        // A rename moves a row in its orders; a deletion takes it out of them.
        let at = OperationContext(now: 3_100, ids: .system)
        _ = try fixture.state.createOrUpdateVirtualPerson(
            PersonInput(sourceId: "named-6", lastName: "aaron", nickname: "ZED"), accountId: fixture.state.accountId, context: at, changes: &changes)
        _ = try fixture.state.updateUser(
            id: users[7].id, version: users[7].version, UserInput(username: users[7].username, firstName: "Ann", lastName: "aaron"),
            for: fixture.admin, context: at, changes: &changes)
        try fixture.state.deleteUser(users[1].id, for: fixture.admin, context: at, changes: &changes)
        let state = fixture.state

        func queries(_ field: String, filter: SearchFilter) throws -> [SearchQuery] {
            [
                try SearchQuery(orderBy: [SearchOrder(field: field)], limit: 5),
                try SearchQuery(orderBy: [SearchOrder(field: field, descending: true)], limit: 5),
                try SearchQuery(orderBy: [SearchOrder(field: field)], offset: 3, limit: 4),
                try SearchQuery(orderBy: [SearchOrder(field: field, descending: true)], offset: 7, limit: 50),
                try SearchQuery(orderBy: [SearchOrder(field: field), SearchOrder(field: "CREATION_TIMESTAMP", descending: true)], limit: 9),
                try SearchQuery(orderBy: [SearchOrder(field: field, descending: true), SearchOrder(field: "ID", descending: true)], limit: 9),
                try SearchQuery(filters: [filter], orderBy: [SearchOrder(field: field, descending: true)], offset: 1, limit: 6),
                try SearchQuery(filters: [SearchFilter(field: field, op: .isNotNull)], orderBy: [SearchOrder(field: field)], limit: 8),
            ]
        }
        for field in ["USERNAME", "FIRST_NAME", "LAST_NAME", "NICKNAME"] {
            for query in try queries(field, filter: SearchFilter(field: "PERSON_TYPE", op: .equals(.string("VISITOR")))) {
                for type in [nil, Person.PersonType.agent, .visitor] {
                    let indexed = outcome({ () throws(CollabError) in try state.searchPersons(query, type: type, for: fixture.admin) }, id: \.id)
                    let rows = state.persons.values.filter { type == nil || $0.personType == type }
                    let scanned = outcome({ () throws(CollabError) in try SearchSchemas.person.run(query, over: rows, id: \.id) }, id: \.id)
                    expectSame(indexed, scanned, query)
                }
            }
            guard case .walk = state.personLookups(type: nil).plan(for: try SearchQuery(orderBy: [SearchOrder(field: field)], limit: 5)) else {
                Issue.record("persons by \(field) read the persons in that order")
                continue
            }
        }
        for field in ["USERNAME", "FIRST_NAME", "LAST_NAME"] {
            for query in try queries(field, filter: SearchFilter(field: "AUTHORIZATION_ROLE", op: .equals(.string("REGISTERED_USER")))) {
                let indexed = outcome({ () throws(CollabError) in try state.searchUsers(query, for: fixture.admin) }, id: \.id)
                let scanned = outcome({ () throws(CollabError) in try SearchSchemas.user.run(query, over: state.users.values, id: \.id) }, id: \.id)
                expectSame(indexed, scanned, query)
            }
        }
        #expect(state.users[users[1].id] == nil)
        // Three virtual persons and the persons of two users (the third was deleted) are named Smith.
        #expect(state.persons.values.filter { $0.lastName?.lowercased() == "smith" }.count == 5)
    }

    @Test("account searches answer as scans do, through renames and removals, and read the directory in their order")
    func accountOrders() throws {
        let directory = Directory()
        let names = ["smith", "Smith-2", "Åberg", "adams", "Zoe", "zoe-2", "b", "B-2", "a"]
        var accounts: [AccountState] = []
        for index in 0..<30 {
            var changes = ChangeSet()
            let at = OperationContext(now: 5_000 + Int64(index / 3), ids: .system)
            let input = AccountInput(name: "\(names[index % names.count])-\(index)")
            accounts.append(try AccountState.createAccount(input, directory: directory, context: at, changes: &changes))
        }
        // A rename moves an account in the name and modification orders; a removal takes it out of all.
        let superAdmin = Principal(accountId: nil, userId: nil, personId: nil, role: .superAdmin, method: .basic)
        for index in [4, 11, 17] {
            var changes = ChangeSet()
            let at = OperationContext(now: 6_000 - Int64(index), ids: .system)
            let account = accounts[index].account
            _ = try accounts[index].updateAccount(
                id: account.id, version: account.version, AccountInput(name: "renamed \(index)"), for: superAdmin, context: at, changes: &changes)
        }
        directory.unloadAccount(accounts[8].account.id)

        for field in ["ID", "NAME", "CREATION_TIMESTAMP", "MODIFICATION_TIMESTAMP"] {
            let queries = [
                try SearchQuery(orderBy: [SearchOrder(field: field)], limit: 5),
                try SearchQuery(orderBy: [SearchOrder(field: field, descending: true)], offset: 4, limit: 7),
                try SearchQuery(orderBy: [SearchOrder(field: field), SearchOrder(field: "NAME", descending: true)], offset: 2, limit: 9),
                try SearchQuery(
                    filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 5_002, to: 5_006))],
                    orderBy: [SearchOrder(field: field, descending: true)], limit: 50),
                try SearchQuery(filters: [SearchFilter(field: "NAME", op: .contains("-2"))], orderBy: [SearchOrder(field: field)], limit: 3),
            ]
            for query in queries {
                let indexed = outcome({ () throws(CollabError) in try AccountState.searchAccounts(query, in: directory) }, id: \.id)
                let all = directory.accounts
                let scanned = outcome({ () throws(CollabError) in try SearchSchemas.account.run(query, over: all, id: \.id) }, id: \.id)
                expectSame(indexed, scanned, query)
            }
            let lookups = AccountState.accountLookups(directory.accountTable)
            guard case .walk = lookups.plan(for: try SearchQuery(orderBy: [SearchOrder(field: field, descending: true)], limit: 5)) else {
                Issue.record("accounts by \(field) read the directory in that order")
                continue
            }
        }
        #expect(directory.accountCount == 29)
    }

    @Test("names that differ only in case tie and come by id, whatever order a scan reads them in")
    func caseFoldedTies() throws {
        var fixture = try fixture()
        var changes = ChangeSet()
        for (index, name) in ["smith", "Smith", "SMITH", "sMITH", "Jones"].enumerated() {
            _ = try fixture.state.createOrUpdateVirtualPerson(
                PersonInput(sourceId: "tie-\(index)", lastName: name), accountId: fixture.state.accountId, context: context, changes: &changes)
        }
        let rows = Array(fixture.state.persons.values.filter { $0.lastName != nil })
        let query = try SearchQuery(orderBy: [SearchOrder(field: "LAST_NAME")])
        let forward = try SearchSchemas.person.run(query, over: rows, id: \.id).items
        let backward = try SearchSchemas.person.run(query, over: rows.reversed(), id: \.id).items
        #expect(forward.map(\.id) == backward.map(\.id))
        #expect(forward.first?.lastName == "Jones")
        #expect(forward.dropFirst().map(\.id) == forward.dropFirst().map(\.id).sorted(), "the tied names come by id")
    }

    @Test("agent state, visitor state and person presence searches answer as scans do, and read only their rows")
    func stateSearches() throws {
        var fixture = try fixture()
        var changes = ChangeSet()
        let apiKey = try #require(fixture.state.apiKeys.rows.values.first)
        // Visitors 0, 2 (twice) and 5 start apps, as do three anonymous devices (new visitors), two starts at
        // each moment (ties in start order); the anonymous device that stops leaves its visitor offline.
        var started: [ClientSession] = []
        for (index, device) in ["d0", "d2", "d2b", "d5", "anon-1", "anon-2", "anon-3"].enumerated() {
            let at = OperationContext(now: 3_000 + Int64(index / 2), ids: .system)
            let visitor = ["d0": 0, "d2": 2, "d2b": 2, "d5": 5][device].map { fixture.visitors[$0] }
            let input = ClientStartInput(
                apiKey: apiKey, deviceId: device, device: DeviceInfo(os: "iOS", appId: "com.example.app"),
                identity: visitor.map { PersonInput(sourceId: $0.sourceId) })
            started.append(try fixture.state.startClient(input, context: at, changes: &changes).session)
        }
        fixture.state.stopClient(token: started[6].id, changes: &changes)
        for (agent, presence) in zip(fixture.agents, [AgentPresence.online, .away, .offline]) {
            try fixture.state.setPresence(presence, personId: agent.id, accountId: fixture.state.accountId, context: context, changes: &changes)
        }
        let state = fixture.state
        let (v, a) = (fixture.visitors.map(\.id), fixture.agents.map(\.id))
        let online = "ONLINE_STATE"
        let stateQueries: [SearchQuery] = [
            try SearchQuery(),
            try SearchQuery(limit: 3),
            try SearchQuery(offset: 2, limit: 4),
            try SearchQuery(filters: [SearchFilter(field: online, op: .equals(.string("ONLINE")))]),
            try SearchQuery(filters: [SearchFilter(field: online, op: .equals(.string("OFFLINE")))], limit: 3),
            try SearchQuery(filters: [SearchFilter(field: online, op: .equals(.string("AWAY")))]),
            try SearchQuery(filters: [SearchFilter(field: online, op: .isIn([.string("ONLINE"), .string("AWAY")]))], limit: 1),
            try SearchQuery(filters: [SearchFilter(field: online, op: .notEquals(.string("ONLINE")))], offset: 1, limit: 3),
            try SearchQuery(filters: [SearchFilter(field: online, op: .equals(.string("online")))]),
            try SearchQuery(filters: [SearchFilter(field: "PERSON_ID", op: .isIn([.string(v[2]), .string(v[3]), .string(a[1])]))]),
            try SearchQuery(filters: [
                SearchFilter(field: "PERSON_ID", op: .equals(.string(a[0]))), SearchFilter(field: online, op: .equals(.string("ONLINE"))),
            ]),
            try SearchQuery(orderBy: [SearchOrder(field: online, descending: true)], limit: 5),
            try SearchQuery(orderBy: [SearchOrder(field: "PERSON_ID")], offset: 1, limit: 4),
        ]
        for query in stateQueries {
            let visitors = outcome({ () throws(CollabError) in try state.searchVisitorStates(query, for: fixture.admin) }, id: \.person.id)
            let visitorsScanned = outcome({ () throws(CollabError) in
                try SearchSchemas.visitorState.run(
                    query,
                    over: state.persons.values.filter { $0.personType == .visitor }.map { person in
                        let started = state.clientSessions.values.contains { $0.personId == person.id }
                        return VisitorStateRow(person: person, onlineState: started ? "ONLINE" : "OFFLINE")
                    },
                    id: \.person.id)
            }, id: \.person.id)
            expectSame(visitors, visitorsScanned, query)
            let agents = outcome({ () throws(CollabError) in try state.searchAgentStates(query, now: 5_000, for: fixture.admin) }, id: \.person.id)
            let agentsScanned = outcome({ () throws(CollabError) in
                try SearchSchemas.agentState.run(
                    query,
                    over: state.persons.values.filter { $0.personType == .agent }.map { person in
                        AgentStateRow(
                            person: person, onlineState: state.presence[person.id]?.presence.rawValue ?? "OFFLINE", pauseMode: "OFF",
                            pauseState: "OFF")
                    },
                    id: \.person.id)
            }, id: \.person.id)
            expectSame(agents, agentsScanned, query)
        }
        let presenceQueries: [SearchQuery] = [
            try SearchQuery(),
            try SearchQuery(limit: 2),
            try SearchQuery(offset: 4, limit: 2),
            try SearchQuery(orderBy: [SearchOrder(field: "JOINED_TIMESTAMP", descending: true)], limit: 3),
            try SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP")], offset: 1, limit: 3),
            try SearchQuery(
                filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 3_001, to: 3_002))],
                orderBy: [SearchOrder(field: "JOINED_TIMESTAMP", descending: true), SearchOrder(field: "PERSON_ID")]),
            try SearchQuery(
                filters: [SearchFilter(field: "JOINED_TIMESTAMP", op: .greaterThan(3_000))], orderBy: [SearchOrder(field: "MODIFICATION_TIMESTAMP")]),
            try SearchQuery(
                filters: [SearchFilter(field: "PERSON_ID", op: .equals(.string(v[2])))], orderBy: [SearchOrder(field: "JOINED_TIMESTAMP")]),
            try SearchQuery(filters: [SearchFilter(field: "PERSON_ID", op: .isIn([.string(v[0]), .string(v[1]), .string(v[5])]))], limit: 1),
            try SearchQuery(filters: [SearchFilter(field: "LEFT_TIMESTAMP", op: .isNull)], limit: 4),
        ]
        for query in presenceQueries {
            let indexed = outcome({ () throws(CollabError) in try state.searchPersonPresences(query, for: fixture.admin) }, id: \.clientId)
            let scanned = outcome({ () throws(CollabError) in
                try SearchSchemas.personPresence.run(query, over: state.clientSessions.values, id: \.clientId)
            }, id: \.clientId)
            expectSame(indexed, scanned, query)
        }
        #expect(state.clientSessions.count == 6)
        // What each search reads: the agents (4 of 15 persons), the visitors clients name, a person's clients.
        let agentIds = Set(state.persons.values.filter { $0.personType == .agent }.map(\.id))
        #expect(state.agentStateLookups.candidates(for: try SearchQuery()) == agentIds)
        let away = try SearchQuery(filters: [SearchFilter(field: online, op: .equals(.string("AWAY")))])
        #expect(state.agentStateLookups.candidates(for: away) == [a[1]])
        let onlineQuery = try SearchQuery(filters: [SearchFilter(field: online, op: .equals(.string("ONLINE")))])
        let onlineVisitors = try #require(state.visitorStateLookups.candidates(for: onlineQuery))
        #expect(onlineVisitors == Set(state.clientSessions.values.map(\.personId)))
        #expect(onlineVisitors.count == 5)
        let ofV2 = try SearchQuery(filters: [SearchFilter(field: "PERSON_ID", op: .equals(.string(v[2])))])
        #expect(state.personPresenceLookups.candidates(for: ofV2) == Set(started[1...2].map(\.clientId)))
        let newest = try SearchQuery(orderBy: [SearchOrder(field: "JOINED_TIMESTAMP", descending: true)], limit: 1)
        guard case .walk = state.personPresenceLookups.plan(for: newest) else {
            Issue.record("the newest presence reads the clients in start order")
            return
        }
    }

    @Test("the keys an operator pins: none for operators that pass values outside a list")
    func pinnedKeys() {
        #expect(FilterOperator.equals(.string("x")).pinnedKeys == ["x"])
        #expect(FilterOperator.isIn([.string("x"), .string("y")]).pinnedKeys == ["x", "y"])
        #expect(FilterOperator.isIn([.string("x"), .null]).pinnedKeys == nil)
        #expect(FilterOperator.anyOf(["x", "y"]).pinnedKeys == ["x", "y"])
        #expect(FilterOperator.allOf(["x", "y"]).pinnedKeys == ["x"])
        #expect(FilterOperator.allOf([]).pinnedKeys == nil)
        #expect(FilterOperator.allEqual([]).pinnedKeys == nil)
        #expect(FilterOperator.equals(.int(3)).pinnedKeys == nil)
        #expect(FilterOperator.notEquals(.string("x")).pinnedKeys == nil)
        #expect(FilterOperator.contains("x").pinnedKeys == nil)
    }
}
