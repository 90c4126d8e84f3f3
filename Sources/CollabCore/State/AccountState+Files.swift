public import CollabWire

/// Files in conversations: FILE messages, who may upload and download them, and the restrictions that
/// apply. The bytes are the server's business; the state holds the message that names them.
extension AccountState {
    /// The restrictions for an upload into a conversation: along the uploading client's cascade
    /// (account → named area → API key) for visitors, along the account and the conversation's named
    /// area for agents.
    public func fileRestrictions(conversationId: String, client: ClientSession?, serverMaxFileSize: Int64) throws(CollabError) -> FileRestrictions {
        let cascade: ConfigurationCascade
        if let client {
            cascade = try configuration(for: client)
        } else {
            let conversation = try ownConversation(conversationId, accountId: accountId)
            let areaId = conversation.recipient.type == .namedArea ? conversation.recipient.id : nil
            cascade = try configuration(accountId: accountId, namedAreaId: areaId.flatMap { namedAreas[$0] == nil ? nil : $0 })
        }
        return FileRestrictions(cascade: cascade, serverMaxFileSize: serverMaxFileSize)
    }

    /// The SHA-256 of every file the FILE messages name, by conversation and file id.
    public var fileDigests: [String: [String: String]] {
        files.byConversation.reduce(into: [:]) { digests, entry in
            for fileId in entry.value {
                digests[entry.key, default: [:]][fileId] = fileMessage(fileId, conversationId: entry.key)?.file?.sha256 ?? ""
            }
        }
    }

    /// Checks that `personId` may upload into a conversation now (before any byte is read), so a
    /// refused upload costs nothing.
    public func checkCanUpload(_ conversationId: String, personId: String, isInternal: Bool = false) throws(CollabError) {
        if isInternal, !isAgent(personId, accountId: accountId) { throw .forbidden("only agents share internal files") }
        let conversation = try ownConversation(conversationId, accountId: accountId)
        guard conversation.participants.contains(where: { $0.personId == personId }) else { throw .notFound("Conversation", conversationId) }
        guard conversation.state.acceptsMessages else {
            throw .conflict("conversation \(conversationId) is \(conversation.state.rawValue); no more messages")
        }
        guard conversation.isParticipant(personId) else { throw .forbidden("you have left this conversation") }
        guard conversation.messageCount < ConversationLimits.messagesPerConversation else {
            throw .conflict("the conversation holds the maximum of \(ConversationLimits.messagesPerConversation) messages")
        }
    }

    /// Stores a FILE message for a file already in storage; it flows like any message (live event,
    /// history, webhooks, pushes with the text "sent a file").
    public mutating func postFileMessage(
        _ conversationId: String, senderPersonId: String, file: FileAttachment, isInternal: Bool, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> ConversationMessage {
        try postMessage(
            conversationId, senderPersonId: senderPersonId, text: file.name, clientMessageId: nil, isInternal: isInternal, accountId: accountId,
            file: file, context: context, changes: &changes
        )
    }

    /// Who shared a file, as the Web API's `source` names it: the uploader's display name.
    public func fileSource(_ personId: String) -> String { displayName(of: personId) }

    /// The FILE message carrying `fileId` in a conversation, found through the file index.
    public func fileMessage(_ fileId: String, conversationId: String) -> ConversationMessage? {
        guard let location = files.byId[fileId], location.conversationId == conversationId, let list = messages[conversationId] else { return nil }
        // Sequences run 1, 2, 3, … without gaps, so the message sits at sequence - 1.
        let index = location.sequence.subtracting(saturating: 1)
        if list.indices.contains(index), list[index].file?.id == fileId { return list[index] }
        return list.first { $0.file?.id == fileId }
    }

    /// The FILE messages of a conversation, oldest first; visitors do not see internal ones.
    public func fileMessages(of conversationId: String, includeInternal: Bool) -> [ConversationMessage] {
        (files.byConversation[conversationId] ?? []).compactMap { fileMessage($0, conversationId: conversationId) }
            .filter { includeInternal || !$0.isInternal }
    }

    /// A file the caller may download: its conversation's participants (visitors not the files of
    /// internal messages) and the account's admins. Anyone else, and every other account, gets
    /// "not found" — the file's existence is not revealed.
    public func downloadableFile(_ fileId: String, conversationId: String, for principal: Principal) throws(CollabError) -> ConversationMessage {
        let notFound = CollabError.notFound("File", fileId)
        guard principal.canAccess(accountId: accountId), let conversation = conversations[conversationId],
            let message = fileMessage(fileId, conversationId: conversationId)
        else { throw notFound }
        if principal.role >= .admin || principal.method == .controlToken { return message }
        guard let personId = principal.personId, conversation.participants.contains(where: { $0.personId == personId }) else { throw notFound }
        if message.isInternal, !isAgent(personId, accountId: accountId) { throw notFound }
        return message
    }
}
