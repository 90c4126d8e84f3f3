@testable import CollabCore
import Testing

/// An agent's queue page merges many lines (its own, its teams', the account's, every named area's):
/// the merge answers what sorting every line's entries would, for any cursor, limit and skip rule.
@Suite("Queue lines merged")
struct QueueMergeTests {
    @Test("a page across many lines is the sorted lines' first entries after the cursor, the skipped ones left out")
    func mergeMatchesSort() {
        var numbers = SeededNumbers(state: 42)
        func next(_ bound: Int) -> Int { numbers.next(below: bound) }
        var index = QueueIndex()
        var all: [(ConversationRecipient, QueueIndex.Position)] = []
        let recipients = (0..<60).map { ConversationRecipient(type: .namedArea, id: "area-\($0)") }
            + [ConversationRecipient(type: .account, id: "acc"), ConversationRecipient(type: .agent, id: "agent")]
        for number in 0..<1_500 {
            let recipient = recipients[next(recipients.count)]
            var conversation = Conversation(
                id: "c\(next(100_000))-\(number)", accountId: "acc", topic: nil, recipient: recipient, initialEngagementType: .chatRequest,
                creationTimestamp: 0)
            conversation.state = .queued
            // Queue times tie often: the id orders them.
            conversation.queuedTimestamp = Timestamp(next(300))
            index.update(old: nil, new: conversation)
            all.append((recipient, QueueIndex.Position(queuedAt: conversation.queuedTimestamp ?? 0, conversationId: conversation.id)))
        }
        let drawn = index.recipients(agentPersonId: "agent", teams: [], filter: nil, accountId: "acc")
        #expect(Set(drawn) == Set(recipients), "without a filter: the agent's line, the account's and every area with a line")
        let skip: (QueueIndex.Position) -> Bool = { !$0.conversationId.hasSuffix("7") }
        let chosen = Set(recipients.prefix(5) + [recipients[61]])
        for lines in [Set(recipients), chosen, [], [ConversationRecipient(type: .namedArea, id: "none")]] {
            for cursor in [nil, all[3].1, all[700].1, QueueIndex.Position(queuedAt: 299, conversationId: "~")] {
                for limit in [0, 1, 10, 250, 5_000] {
                    for include in [{ (_: QueueIndex.Position) in true }, skip] {
                        let expected = all.filter { lines.contains($0.0) }.map(\.1)
                            .filter { position in cursor.map { $0 < position } ?? true }.filter(include).sorted()
                        let page = index.page(recipients: Array(lines) + Array(lines.prefix(1)), after: cursor, limit: limit, include: include)
                        #expect(page == Array(expected.prefix(limit)), "\(lines.count) lines, after \(String(describing: cursor)), \(limit)")
                    }
                }
            }
        }
    }
}
