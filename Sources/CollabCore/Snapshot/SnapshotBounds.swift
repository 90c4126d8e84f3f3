/// The bounds an imported account must keep, so a snapshot — edited by hand, or exported by a server
/// started with larger limits — cannot hold more than the server lets an account build: the account's
/// budgets (``StoredRecordLimits``), and the caps every write path keeps per person and per
/// conversation. Bounds only some paths keep (a visitor's open conversations are counted when one
/// starts, not when the visitor joins another) are left out, so an export always imports again.
///
/// The check reads each owner's count from the shard's indexes, so it costs about what the shard
/// holds, once, when the import has built it anyway.
extension AccountState {
    /// Refuses a shard that holds more than the API lets one account hold.
    /// - Parameters:
    ///   - limits: The server's ``StoredRecordLimits``.
    ///   - place: Where the account stands in the snapshot (`accounts[0]`), for the message.
    /// - Throws: `badRequest` naming the account, the record and the first bound it passes.
    public func checkStoredBounds(_ limits: StoredRecordLimits, place: String) throws(CollabError) {
        do throws(BoundPassed) {
            try checkAccountBounds(limits)
            try checkOwnerBounds()
            try checkConversationBounds()
        } catch {
            throw .badRequest("\(place) ('\(account.name)') \(error.what), more than \(error.bound)\(error.setting.map { " (\($0))" } ?? "")")
        }
    }

    /// A bound a shard passes: what holds too much, and the most it may hold.
    private struct BoundPassed: Error {
        var what: String
        var bound: Int
        /// The server option that sets the bound, for the ones an operator chooses.
        var setting: String?
    }

    private static func check(_ count: Int, _ bound: Int, _ what: @autoclosure () -> String, setting: String? = nil) throws(BoundPassed) {
        guard count <= bound else { throw BoundPassed(what: "\(what()) \(count)", bound: bound, setting: setting) }
    }

    private func checkAccountBounds(_ limits: StoredRecordLimits) throws(BoundPassed) {
        try Self.check(persons.count, limits.personsPerAccount, "holds persons:", setting: "--max-persons-per-account")
        try Self.check(conversations.count, limits.conversationsPerAccount, "holds conversations:", setting: "--max-conversations-per-account")
        try Self.check(
            storedMessageBytes, limits.messageBytesPerAccount, "holds bytes of messages:", setting: "--max-message-bytes-per-account")
        try Self.check(
            declared.storedBytes, limits.entityBytesPerAccount, "holds bytes of entities:", setting: "--max-entity-bytes-per-account")
        try Self.check(messageInterceptors.count, MessageInterceptor.maximumPerAccount, "holds message interceptors:")
        try Self.check(fileUploadInterceptors.count, FileUploadInterceptor.maximumPerAccount, "holds file upload interceptors:")
    }

    /// What one person may hold: devices, clients, login sessions.
    private func checkOwnerBounds() throws(BoundPassed) {
        for person in devices.keys(Indexes.deviceByPerson) {
            try Self.check(devices.count(Indexes.deviceByPerson, person), DeviceLimits.perPerson, "has a person \(person) with devices:")
        }
        for person in clientSessions.keys(Indexes.clientByPerson) {
            try Self.check(clientSessions.count(Indexes.clientByPerson, person), ClientLimits.perPerson, "has a person \(person) with clients:")
        }
        for person in sessions.keys(Indexes.sessionByPerson) {
            try Self.check(sessions.count(Indexes.sessionByPerson, person), SessionLimits.perPerson, "has a person \(person) with sessions:")
        }
    }

    /// What one conversation may hold: participants, state changes, messages, calls, co-browsing
    /// sessions and invitations.
    private func checkConversationBounds() throws(BoundPassed) {
        for conversation in conversations.values {
            let id = conversation.id
            try Self.check(conversation.participants.count, ConversationLimits.participants, "has a conversation \(id) with participants:")
            try Self.check(conversation.stateChanges.count, ConversationLimits.stateChanges, "has a conversation \(id) with state changes:")
        }
        for (id, log) in messages {
            try Self.check(log.count, ConversationLimits.messagesPerConversation, "has a conversation \(id) with messages:")
        }
        for id in calls.keys(Indexes.callByConversation) {
            try Self.check(
                calls.count(Indexes.callByConversation, id), ConversationLimits.callsPerConversation, "has a conversation \(id) with calls:")
        }
        for id in coBrowsingSessions.keys(Indexes.coBrowsingByConversation) {
            try Self.check(
                coBrowsingSessions.count(Indexes.coBrowsingByConversation, id), ConversationLimits.coBrowsingSessionsPerConversation,
                "has a conversation \(id) with co-browsing sessions:")
        }
        for id in invitations.keys(Indexes.invitationByConversation) {
            try Self.check(
                invitations.count(Indexes.invitationByConversation, id), Invitation.maxPerConversation, "has a conversation \(id) with invitations:")
        }
    }
}
