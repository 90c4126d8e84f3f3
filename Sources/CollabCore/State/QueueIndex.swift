import HeapModule

/// The queued conversations of an account, per recipient, first queued first, so an agent's queue
/// page costs what it shows rather than the number of conversations the account holds.
public struct QueueIndex: Sendable, Equatable {
    /// A queued conversation's place: queue time, then id.
    public struct Position: Sendable, Hashable, Comparable {
        public var queuedAt: Timestamp
        public var conversationId: String

        public static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.queuedAt, lhs.conversationId) < (rhs.queuedAt, rhs.conversationId)
        }
    }

    /// Per recipient, in queue order. A ``SortedList``, so taking a conversation out of a long line
    /// (an accept takes the first) shifts one run of the line, not every conversation behind it.
    private var lines: [ConversationRecipient: SortedList<Position>] = [:]
    /// Named areas that have a non-empty line.
    private var areas: Set<String> = []

    public init() {}

    /// Keeps the index in step with a conversation that changed from `old` to `new`.
    mutating func update(old: Conversation?, new: Conversation?) {
        let before = old.flatMap(Self.entry)
        let after = new.flatMap(Self.entry)
        guard before?.0 != after?.0 || before?.1 != after?.1 else { return }
        if let (recipient, position) = before { remove(position, from: recipient) }
        if let (recipient, position) = after { insert(position, into: recipient) }
    }

    private static func entry(_ conversation: Conversation) -> (ConversationRecipient, Position)? {
        guard conversation.state == .queued else { return nil }
        return (conversation.recipient, Position(queuedAt: conversation.queuedTimestamp ?? 0, conversationId: conversation.id))
    }

    // Lines change in place through the dictionary's modify accessor: copying a line out and back
    // would copy every entry of a long queue on each change (copy-on-write).
    private mutating func insert(_ position: Position, into recipient: ConversationRecipient) {
        lines[recipient, default: SortedList()].insert(position)
        if recipient.type == .namedArea { areas.insert(recipient.id) }
    }

    private mutating func remove(_ position: Position, from recipient: ConversationRecipient) {
        guard lines[recipient]?.remove(position) == true else { return }
        if lines[recipient]?.isEmpty == true {
            lines[recipient] = nil
            if recipient.type == .namedArea { areas.remove(recipient.id) }
        }
    }

    /// How many conversations wait in `recipient`'s line.
    func count(of recipient: ConversationRecipient) -> Int { lines[recipient]?.count ?? 0 }

    /// The lines an agent's queue draws from: its own requests, its teams' (`teams`), and without a
    /// filter the account-wide line and every area; with one, only those areas.
    func recipients(agentPersonId: String, teams: Set<String>, filter namedAreaIds: Set<String>?, accountId: String) -> [ConversationRecipient] {
        var result = [ConversationRecipient(type: .agent, id: agentPersonId)] + teams.sorted().map { ConversationRecipient(type: .team, id: $0) }
        if let filter = namedAreaIds, !filter.isEmpty {
            result += filter.map { ConversationRecipient(type: .namedArea, id: $0) }
        } else {
            result.append(ConversationRecipient(type: .account, id: accountId))
            result += areas.map { ConversationRecipient(type: .namedArea, id: $0) }
        }
        return result
    }

    /// Up to `limit` positions after `cursor` across `recipients`, in queue order, keeping those
    /// `include` accepts. The lines are merged through a heap of their heads: a page costs a look-up per
    /// line and about `limit` (plus skipped entries) steps of `log(lines)`, whatever the queue length
    /// and however many named areas have a line.
    func page(
        recipients: [ConversationRecipient], after cursor: Position?, limit: Int, include: (Position) -> Bool
    ) -> [Position] {
        guard limit > 0 else { return [] }
        var readers: [SortedList<Position>.Ascending] = []
        var heads = Heap<Head>()
        for recipient in Set(recipients) {
            guard let line = lines[recipient] else { continue }
            var reader = line.ascending(after: cursor)
            guard let first = reader.next() else { continue }
            heads.insert(Head(position: first, reader: readers.count))
            readers.append(reader)
        }
        var page: [Position] = []
        while page.count < limit, let head = heads.popMin() {
            if include(head.position) { page.append(head.position) }
            if let next = readers[head.reader].next() { heads.insert(Head(position: next, reader: head.reader)) }
        }
        return page
    }

    /// A line's next position in ``page(recipients:after:limit:include:)``'s merge.
    private struct Head: Comparable {
        var position: Position
        var reader: Int

        static func < (lhs: Head, rhs: Head) -> Bool { lhs.position < rhs.position }
        static func == (lhs: Head, rhs: Head) -> Bool { lhs.position == rhs.position }
    }
}
