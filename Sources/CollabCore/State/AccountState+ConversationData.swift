extension AccountState {
    /// Most bytes of visitor data a conversation holds.
    public static let visitorDataLength = 16 * 1024

    /// Replaces a conversation's metadata (the vendor's `updateMetadata`).
    public mutating func updateMetadata(
        _ id: String, metadata: [String: String], accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        try Limits.checkProperties(metadata, field: "metadata")
        var conversation = try ownConversation(id, accountId: accountId)
        conversation.metadata = metadata
        return update(conversation, context: context, changes: &changes)
    }

    /// Sets the custom data the visitor side may read (the vendor's `setVisitorData`); `nil` clears it.
    public mutating func setVisitorData(
        _ id: String, visitorData: String?, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        if let visitorData, visitorData.utf8.count > Self.visitorDataLength {
            throw CollabError(.payloadTooLarge, "visitorData is longer than \(Self.visitorDataLength) bytes")
        }
        var conversation = try ownConversation(id, accountId: accountId)
        conversation.visitorData = visitorData
        return update(conversation, context: context, changes: &changes)
    }

    /// Searches the caller's conversations by the vendor's conversation history fields.
    public func searchConversationHistory(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<Conversation> {
        _ = try callerAccountId(principal)
        return try SearchSchemas.conversationHistory.run(
            query, lookups: conversationLookups, row: { conversations[$0] }, all: conversations.values, id: \.id)
    }

    /// The messages of one conversation, searched and paged (the vendor's `exportMessageLog`);
    /// internal messages included, as the export is for administrators.
    public func exportMessages(
        ofConversation id: String, _ query: SearchQuery, for principal: Principal
    ) throws(CollabError) -> SearchPage<ConversationMessage> {
        let conversation = try self.conversation(id, for: principal)
        return try SearchSchemas.exportedMessage.run(query, overOrdered: messages[conversation.id] ?? [])
    }
}

extension SearchSchemas {
    /// `EConversationHistorySearchFilterField` / `EConversationHistoryOrderByField`, as far as the mock models them.
    public static let conversationHistory = SearchSchema<Conversation>(
        "ConversationHistory",
        conversationFields.merging([
            "LOCALE": { .of($0.locale) },
            "LAST_MESSAGE_TIMESTAMP": { $0.lastMessageTimestamp.map { .int($0) } ?? .null },
            "LAST_COMPLETED_RECORDING_TIMESTAMP": { conversation -> FieldValue in
                let completed = conversation.recordings?.last { recording in recording.endTimestamp != nil }
                return completed?.endTimestamp.map(FieldValue.int) ?? .null
            },
        ]) { shared, _ in shared },
        kinds: conversationKinds, lists: conversationLists
    )

    /// `EMessageExportFilterField` / `EMessageExportOrderByField`.
    public static let exportedMessage = SearchSchema<ConversationMessage>("MessageExport", [
        "ID": { .of($0.id) },
        "CONVERSATION_ID": { .of($0.conversationId) },
        "SEND_TIMESTAMP": { .of($0.serverTimestamp) },
        "SERVER_TIMESTAMP": { .of($0.serverTimestamp) },
        "SENDER_PERSON_ID": { .of($0.senderPersonId) },
        "TYPE": { _ in .string("TEXT") },
        "TEXT": { .of($0.text) },
    ])
}
