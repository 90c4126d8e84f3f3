/// One conversation's messages in sequence order, with each message's position by id and by its
/// sender's client message id, so finding, replacing or de-duplicating a message costs the same at the
/// start, the middle or the end of a conversation of ``ConversationLimits/messagesPerConversation``.
///
/// The positions are derived: a log built from messages (a snapshot, a store's records) rebuilds them.
public struct MessageLog: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    private var elements: [ConversationMessage] = []
    private var positionById: [String: Int] = [:]
    /// A sender's retry key (``ConversationMessage/clientMessageId``) to the latest message carrying it.
    private var positionByClientKey: [ClientKey: Int] = [:]

    private struct ClientKey: Hashable, Sendable {
        let senderPersonId: String
        let clientMessageId: String
    }

    /// A log of `messages` in the order given.
    public init(_ messages: some Sequence<ConversationMessage>) {
        elements = Array(messages)
        reindex()
    }

    public init(arrayLiteral messages: ConversationMessage...) { self.init(messages) }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> ConversationMessage { elements[position] }

    /// The message with `id`, if the conversation holds it.
    public subscript(id id: String) -> ConversationMessage? {
        positionById[id].map { elements[$0] }
    }

    /// The latest message `senderPersonId` sent with `clientMessageId` (a retried send finds it).
    public func message(clientMessageId: String, senderPersonId: String) -> ConversationMessage? {
        positionByClientKey[ClientKey(senderPersonId: senderPersonId, clientMessageId: clientMessageId)].map { elements[$0] }
    }

    /// Adds a message after the others (the caller keeps sequence order, or calls ``sortBySequence()``).
    public mutating func append(_ message: ConversationMessage) {
        elements.append(message)
        index(message, at: elements.count - 1)
    }

    /// Replaces the stored message with the same id.
    /// - Returns: Whether the log held it (a message it does not hold is not added).
    @discardableResult
    public mutating func replace(_ message: ConversationMessage) -> Bool {
        guard let position = positionById[message.id] else { return false }
        let old = elements[position]
        if let clientMessageId = old.clientMessageId {
            let key = ClientKey(senderPersonId: old.senderPersonId, clientMessageId: clientMessageId)
            if positionByClientKey[key] == position { positionByClientKey[key] = nil }
        }
        elements[position] = message
        index(message, at: position)
        return true
    }

    /// Adds a message where its sequence puts it: after the others unless a replica's records arrive
    /// out of order (then the log is sorted again).
    public mutating func insertInSequence(_ message: ConversationMessage) {
        append(message)
        if elements.count > 1, elements[elements.count - 2].sequence > message.sequence {
            elements.sort { $0.sequence < $1.sequence }
            reindex()
        }
    }

    /// Puts the messages in sequence order (after loading records in any order).
    public mutating func sortBySequence() {
        guard zip(elements, elements.dropFirst()).contains(where: { $0.sequence > $1.sequence }) else { return }
        elements.sort { $0.sequence < $1.sequence }
        reindex()
    }

    private mutating func reindex() {
        positionById = Dictionary(minimumCapacity: elements.count)
        positionByClientKey = [:]
        for (position, message) in elements.enumerated() { index(message, at: position) }
    }

    private mutating func index(_ message: ConversationMessage, at position: Int) {
        positionById[message.id] = position
        if let clientMessageId = message.clientMessageId {
            let key = ClientKey(senderPersonId: message.senderPersonId, clientMessageId: clientMessageId)
            // The latest message with the key answers a retry, as a search from the end would.
            if let other = positionByClientKey[key], other > position { return }
            positionByClientKey[key] = position
        }
    }
}
