@testable import CollabCore
import Testing

@Suite("Message log: messages found by id at any position")
struct MessageLogTests {
    static let size = ConversationLimits.messagesPerConversation
    /// The first, a middle and the last position of a full conversation.
    static let positions = [0, size / 2, size - 1]

    static func message(_ sequence: Int, clientMessageId: String? = nil) -> ConversationMessage {
        ConversationMessage(
            id: "m\(sequence)", accountId: "a", conversationId: "c", sequence: sequence, senderPersonId: sequence.isMultiple(of: 2) ? "v" : "ag",
            text: "text \(sequence)", serverTimestamp: Timestamp(sequence), clientMessageId: clientMessageId ?? "k\(sequence)"
        )
    }

    /// Every message is found by id and by its sender's client id at its own position.
    static func expectIndexed(_ log: MessageLog) {
        #expect(log.map(\.sequence) == Array(1...log.count))
        for message in log {
            #expect(log[id: message.id] == message)
            if let key = message.clientMessageId {
                #expect(log.message(clientMessageId: key, senderPersonId: message.senderPersonId) == message)
            }
        }
    }

    @Test("lookups, replacements and retries at the start, middle and end of a full conversation")
    func fullConversation() {
        var log: MessageLog = []
        for sequence in 1...Self.size { log.append(Self.message(sequence)) }
        Self.expectIndexed(log)
        for position in Self.positions {
            var changed = log[position]
            changed.text = "edited"
            changed.readTimestamp = 99
            let replaced = log.replace(changed)
            #expect(replaced)
            #expect(log[id: changed.id] == changed)
            #expect(log.message(clientMessageId: "k\(changed.sequence)", senderPersonId: changed.senderPersonId) == changed)
            #expect(log.message(clientMessageId: "k\(changed.sequence)", senderPersonId: "someone else") == nil)
        }
        let added = log.replace(Self.message(Self.size + 1))
        #expect(!added, "a message the log does not hold is not added")
        #expect(log.count == Self.size && log[id: "m\(Self.size + 1)"] == nil)
        Self.expectIndexed(log)
    }

    @Test("a log built or replicated out of order is sorted and indexed again")
    func outOfOrder() {
        var shuffled = MessageLog((1...2_000).map { Self.message($0) }.shuffled())
        shuffled.sortBySequence()
        Self.expectIndexed(shuffled)
        var replicated: MessageLog = []
        for sequence in [3, 1, 2, 5, 4] { replicated.insertInSequence(Self.message(sequence)) }
        Self.expectIndexed(replicated)
    }

    @Test("a retried client id answers with the latest message carrying it")
    func latestRetry() {
        var log: MessageLog = []
        log.append(Self.message(1, clientMessageId: "same"))
        log.append(Self.message(3, clientMessageId: "same"))
        #expect(log.message(clientMessageId: "same", senderPersonId: "ag")?.sequence == 3)
        var rebuilt = MessageLog(log.reversed())
        rebuilt.sortBySequence()
        #expect(rebuilt.message(clientMessageId: "same", senderPersonId: "ag")?.sequence == 3)
    }

    @Test("a full conversation's messages are found, updated and found again after the shard is restored")
    func accountState() throws {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        let context = OperationContext(now: 10, ids: .system)
        let seed = Seed(accounts: [.init(name: "a", users: [.init(username: "ag", role: .registeredUser)], persons: [.init(sourceId: "v")])])
        _ = try shards.apply(seed: seed, passwordHashes: [:], context: context, changes: &changes)
        var state = try #require(shards.state(named: "a"))
        let agentUser = try #require(state.user(loginName: "ag"))
        let agent = try #require(state.person(ofUser: agentUser))
        let visitor = try #require(state.persons.values.first { $0.sourceId == "v" })
        let conversation = try state.createConversation(
            ConversationInput(contextPersonId: visitor.id, participants: [(agent.id, .assignedAgent)]), accountId: state.accountId,
            context: context, changes: &changes
        )
        var posted: [ConversationMessage] = []
        for sequence in 1...Self.size {
            posted.append(
                try state.postMessage(
                    conversation.id, senderPersonId: visitor.id, text: "t\(sequence)", clientMessageId: "c\(sequence)", isInternal: false,
                    accountId: state.accountId, context: context, changes: &changes
                )
            )
        }
        for position in Self.positions {
            var message = try state.message(posted[position].id, in: conversation.id)
            #expect(message == posted[position])
            message.readTimestamp = 42
            state.storeMessage(message, changes: &changes)
            posted[position] = message
            #expect(try state.message(message.id, in: conversation.id) == message)
            let retry = try state.postMessage(
                conversation.id, senderPersonId: visitor.id, text: "again", clientMessageId: "c\(message.sequence)", isInternal: false,
                accountId: state.accountId, context: context, changes: &changes
            )
            #expect(retry == message, "a retry finds the stored message wherever it sits")
        }
        #expect(throws: CollabError.self) { try state.message("unknown", in: conversation.id) }

        let records = state.storedEntities.map { StoredRecord(encoding: $0) }
        let restored = try AccountState.load(account: state.account, records: records.reversed(), directory: Directory())
        for position in Self.positions {
            #expect(try restored.message(posted[position].id, in: conversation.id) == posted[position])
        }
        Self.expectIndexed(try #require(restored.messages[conversation.id]))
    }
}
