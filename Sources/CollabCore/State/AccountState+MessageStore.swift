/// Where the account's messages are stored and dropped, keeping ``AccountState/storedMessageBytes``
/// (what ``StoredRecordLimits/messageBytesPerAccount`` bounds) and ``AccountState/storedMessageCount``
/// in step with them: every write, load, replica record and removal of a message goes through here.
extension AccountState {
    /// Adds a message after its conversation's others (`inSequence`: where its sequence puts it, for
    /// a replica's records that may arrive out of order).
    mutating func storeNewMessage(_ message: ConversationMessage, inSequence: Bool = false) {
        if inSequence {
            messages[message.conversationId, default: []].insertInSequence(message)
        } else {
            messages[message.conversationId, default: []].append(message)
        }
        storedMessageBytes += StoredRecordLimits.storedBytes(of: message)
        storedMessageCount += 1
    }

    /// Replaces the stored message with the same id.
    /// - Returns: Whether the conversation held it (a message it does not hold is not added).
    @discardableResult
    mutating func replaceStoredMessage(_ message: ConversationMessage) -> Bool {
        guard let old = messages[message.conversationId]?[id: message.id] else { return false }
        messages[message.conversationId]?.replace(message)
        storedMessageBytes += StoredRecordLimits.storedBytes(of: message) - StoredRecordLimits.storedBytes(of: old)
        return true
    }

    /// Drops a conversation's messages; returns them.
    @discardableResult
    mutating func removeMessages(ofConversation conversationId: String) -> MessageLog {
        let removed = messages.removeValue(forKey: conversationId) ?? []
        for message in removed { storedMessageBytes -= StoredRecordLimits.storedBytes(of: message) }
        storedMessageCount -= removed.count
        return removed
    }
}
