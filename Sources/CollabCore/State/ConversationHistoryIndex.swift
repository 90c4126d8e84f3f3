/// The conversations each person takes or took part in, kept in list order, whole and per state, so a
/// page of a person's conversations costs what it shows (plus a binary search for its cursor) rather
/// than a sort of the person's whole history.
///
/// The order is the conversation list's: newest first by creation, and among ended ones the last
/// ended first (then the newest created); the conversation id breaks ties.
public struct ConversationHistoryIndex: Sendable, Equatable {
    /// A conversation's place in a list, ascending (lists are read from the largest).
    public struct Position: Sendable, Hashable, Comparable {
        /// When the conversation ended, in a list of ended conversations (0 in every other list).
        public var ended: Timestamp
        public var created: Timestamp
        public var conversationId: String

        public static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.ended, lhs.created, lhs.conversationId) < (rhs.ended, rhs.created, rhs.conversationId)
        }
    }

    /// Which list: one person's conversations, in one state or (`nil`) in any.
    private struct ListKey: Hashable, Sendable {
        var personId: String
        var state: ConversationState?
    }

    /// A conversation's place in one list.
    private struct Entry: Hashable, Sendable {
        var list: ListKey
        var position: Position
    }

    private var lists: [ListKey: SortedList<Position>] = [:]

    public init() {}

    /// The place of `conversation` in the list of conversations in `state` (`nil`: in any state).
    public static func position(of conversation: Conversation, inListOf state: ConversationState?) -> Position {
        Position(
            ended: state == .ended ? conversation.endTimestamp ?? 0 : 0, created: conversation.creationTimestamp,
            conversationId: conversation.id)
    }

    /// Keeps the index in step with a conversation that changed from `old` to `new`.
    mutating func update(old: Conversation?, new: Conversation?) {
        // Most saves (a message, a read mark) move the conversation in no list.
        if let old, let new, old.state == new.state, old.endTimestamp == new.endTimestamp, old.creationTimestamp == new.creationTimestamp,
            old.participants.map(\.personId) == new.participants.map(\.personId)
        {
            return
        }
        let before = old.map(Self.entries) ?? []
        let after = new.map(Self.entries) ?? []
        guard before != after else { return }
        // Lists change in place through the dictionary's modify accessor (no copy of a long list).
        for entry in before.subtracting(after) {
            guard lists[entry.list]?.remove(entry.position) == true, lists[entry.list]?.isEmpty == true else { continue }
            lists[entry.list] = nil
        }
        for entry in after.subtracting(before) {
            lists[entry.list, default: SortedList()].insert(entry.position)
        }
    }

    /// The lists a conversation is in: per participant, the whole list and the list of its state.
    private static func entries(_ conversation: Conversation) -> Set<Entry> {
        Set(
            Indexes.participantIds(conversation).flatMap { personId in
                [
                    Entry(list: ListKey(personId: personId, state: nil), position: position(of: conversation, inListOf: nil)),
                    Entry(
                        list: ListKey(personId: personId, state: conversation.state),
                        position: position(of: conversation, inListOf: conversation.state)),
                ]
            })
    }

    /// The ids of `personId`'s conversations in `state` (`nil`: any), in list order, after `cursor`
    /// (from the first without one).
    func ids(ofPerson personId: String, state: ConversationState?, after cursor: Position?) -> some Sequence<String> {
        let list = lists[ListKey(personId: personId, state: state)] ?? SortedList()
        return list.descending(before: cursor).lazy.map(\.conversationId)
    }

    /// How many conversations `personId` has in `state` (`nil`: any).
    func count(ofPerson personId: String, state: ConversationState?) -> Int {
        lists[ListKey(personId: personId, state: state)]?.count ?? 0
    }
}
