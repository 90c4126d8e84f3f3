/// How much one account may store of what its callers create, anonymous ones included: persons,
/// conversations, message text and declared entities. A create beyond a bound is refused with 409 and changes nothing,
/// so one tenant (or anyone holding its app's public API key) can fill only its own share.
public struct StoredRecordLimits: Sendable, Equatable {
    /// Persons of the account (visitors, agents' persons, bots).
    public var personsPerAccount: Int
    /// Conversations of the account, ended ones included (deleting a conversation frees its place).
    public var conversationsPerAccount: Int
    /// Bytes of message text the account's conversations hold, each message counted as its text
    /// and ``messageOverhead`` (deleting a conversation frees its messages).
    public var messageBytesPerAccount: Int
    /// Conversations one visitor may have open (not ended) at once.
    public var openConversationsPerVisitor: Int
    /// Bytes of JSON the account's declared entities hold (canned responses, named areas, bots, …; the
    /// audit log has its own bound), each as stored (deleting entities frees their bytes).
    public var entityBytesPerAccount: Int

    /// What a stored message costs besides its text, as the bound counts it.
    public static let messageOverhead = 256

    /// - Parameters:
    ///   - personsPerAccount: Default 250,000.
    ///   - conversationsPerAccount: Default 250,000.
    ///   - messageBytesPerAccount: Default 512 MiB.
    ///   - openConversationsPerVisitor: Default 100.
    ///   - entityBytesPerAccount: Default 256 MiB.
    public init(
        personsPerAccount: Int = 250_000, conversationsPerAccount: Int = 250_000, messageBytesPerAccount: Int = 512 * 1024 * 1024,
        openConversationsPerVisitor: Int = 100, entityBytesPerAccount: Int = 256 * 1024 * 1024
    ) {
        self.personsPerAccount = personsPerAccount
        self.conversationsPerAccount = conversationsPerAccount
        self.messageBytesPerAccount = messageBytesPerAccount
        self.openConversationsPerVisitor = openConversationsPerVisitor
        self.entityBytesPerAccount = entityBytesPerAccount
    }

    /// What `message` counts for against ``messageBytesPerAccount``.
    public static func storedBytes(of message: ConversationMessage) -> Int { storedBytes(text: message.text) }

    /// What a message with `text` counts for against ``messageBytesPerAccount``.
    public static func storedBytes(text: String) -> Int { text.utf8.count + messageOverhead }
}
