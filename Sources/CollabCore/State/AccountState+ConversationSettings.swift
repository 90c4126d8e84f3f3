/// The Web API's per-conversation settings: context person, visibility, stars, the awaited person type,
/// the scheduled time, the locale, participants' visibility, and the conversation's own configuration
/// and texts. Each checks everything before it changes anything, stores the conversation and tells the
/// participants and webhooks (`conversation.updated`).
extension AccountState {
    /// Configuration keys of `setScheduledTimestamp` (the vendor's names).
    public enum ScheduledTimeRule {
        /// `true`: a non-admin caller must take part in the conversation; `false` (default): the caller's
        /// participation type must be listed in ``allowedTypesKey``.
        public static let participantsKey = "com.unblu.conversation.message.allowNonAdminUsersChangeConversationScheduledTimeViaWebApi"
        /// Participation types (comma-separated) whose non-admin callers may change the time; the mock's
        /// default is `ASSIGNED_AGENT`.
        public static let allowedTypesKey = "com.unblu.conversation.allowChangeConversationScheduledTime"
    }

    /// Makes an active visitor participant the conversation's context person (the vendor's
    /// `setContextPerson`); the previous context person stays as a secondary visitor.
    public mutating func setContextPerson(
        _ id: String, personId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try openConversation(id, accountId: accountId)
        guard let index = conversation.participants.lastIndex(where: { $0.personId == personId && $0.state != .ended }) else {
            throw .badRequest("personId: person \(personId) has no active participation in the conversation")
        }
        guard let person = persons[personId], person.personType == .visitor else {
            throw .badRequest("personId: person \(personId) is not a visitor and cannot be the context person")
        }
        if conversation.participants[index].type == .contextPerson { return conversation }
        for other in conversation.participants.indices where conversation.participants[other].type == .contextPerson {
            conversation.participants[other].type = .secondaryVisitor
        }
        conversation.participants[index].type = .contextPerson
        return update(conversation, context: context, changes: &changes)
    }

    /// Sets who may see the conversation.
    public mutating func setVisibility(
        _ id: String, visibility: ConversationVisibility, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        conversation.visibility = visibility
        return update(conversation, context: context, changes: &changes)
    }

    /// Stars or unstars the conversation for one of its participants.
    public mutating func setStarred(
        _ id: String, personId: String, starred: Bool, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        let indices = conversation.participants.indices.filter { conversation.participants[$0].personId == personId }
        guard !indices.isEmpty else { throw .badRequest("personId: person \(personId) does not take part in the conversation") }
        for index in indices { conversation.participants[index].starred = starred ? true : nil }
        return update(conversation, context: context, changes: &changes)
    }

    /// Sets whom the conversation waits for; it holds until the conversation's state changes. Webhooks
    /// get `conversation.awaitedpersontype_changed` when the value changes.
    public mutating func setAwaitedPersonType(
        _ id: String, type: AwaitedPersonType, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try openConversation(id, accountId: accountId)
        let changed = conversation.awaitedPersonType != type
        conversation.awaitedOverride = Conversation.AwaitedOverride(type: type, state: conversation.state, timestamp: context.now)
        let updated = update(conversation, context: context, changes: &changes)
        if changed { emit(.awaitedPersonTypeChanged, updated, context: context, changes: &changes) }
        return updated
    }

    /// Sets when a SCHEDULED_CONVERSATION is scheduled for, rounded to the nearest minute. Callers below
    /// ADMIN must satisfy ``ScheduledTimeRule``.
    public mutating func setScheduledTimestamp(
        _ id: String, timestamp: Timestamp, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try self.conversation(id, for: principal)
        guard conversation.initialEngagementType == .scheduledConversation else {
            throw .badRequest(
                "scheduledTimestamp can only be set for SCHEDULED_CONVERSATION conversations; this one is "
                    + conversation.initialEngagementType.rawValue
            )
        }
        guard timestamp >= 0, timestamp <= Self.latestTimestamp else { throw .badRequest("scheduledTimestamp must be a Unix time in milliseconds") }
        guard conversation.state != .ended else { throw .conflict("conversation \(id) has ended") }
        if principal.role < .admin, principal.method != .controlToken {
            try checkMayReschedule(conversation, principal: principal)
        }
        conversation.scheduledTimestamp = (timestamp + 30_000) / 60_000 * 60_000
        return update(conversation, context: context, changes: &changes)
    }

    private func checkMayReschedule(_ conversation: Conversation, principal: Principal) throws(CollabError) {
        let cascade = configuration(of: conversation)
        let participation = principal.personId.flatMap { person in conversation.participants.last { $0.personId == person && $0.state != .ended } }
        if Self.isEnabled(ScheduledTimeRule.participantsKey, in: cascade) {
            guard participation != nil else { throw .forbidden("only participants may change the scheduled time of this conversation") }
            return
        }
        let allowed = (cascade.value(for: ScheduledTimeRule.allowedTypesKey)?.value ?? ParticipationType.assignedAgent.rawValue)
            .split(separator: ",").map { $0.filter { !$0.isWhitespace } }
        guard let participation, allowed.contains(participation.type.rawValue) else {
            throw .forbidden("your participation type may not change the scheduled time (\(ScheduledTimeRule.allowedTypesKey))")
        }
    }

    /// Sets the conversation's locale (a BCP 47 language tag).
    public mutating func setLocale(
        _ id: String, locale: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try openConversation(id, accountId: accountId)
        conversation.locale = try Self.checkLocale(locale, field: "locale")
        return update(conversation, context: context, changes: &changes)
    }

    /// Hides a participant from the others, or shows it again (webhooks get
    /// `conversation.participation.hidden` / `unhidden`).
    public mutating func changeParticipantVisibility(
        _ id: String, personId: String, hidden: Bool, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try openConversation(id, accountId: accountId)
        guard let index = conversation.participants.lastIndex(where: { $0.personId == personId && $0.state != .ended }) else {
            throw .badRequest("personId: person \(personId) has no active participation in the conversation")
        }
        if conversation.participants[index].hidden == hidden { return conversation }
        if hidden { try Self.checkMayBeHidden(conversation.participants[index].type, person: persons[personId]) }
        conversation.participants[index].hidden = hidden
        return update(conversation, context: context, changes: &changes)
    }

    /// Only secondary agents and bots may be hidden (the vendor's rule): a visitor always sees the agent
    /// who serves it, the person the conversation is about and every other visitor who takes part.
    static func checkMayBeHidden(_ type: ParticipationType, person: Person?) throws(CollabError) {
        guard type == .secondaryAgent || (type == .secondaryVisitor && person?.personType == .bot) else {
            throw .badRequest("hidden: only secondary agents and bots may be hidden, not a \(type.rawValue) participant")
        }
    }

    /// The keys of a conversation's configuration that grant its participants rights the server
    /// enforces (recording by hand, changing the scheduled time): below ADMIN, a conversation's own
    /// configuration (`conversations/create`, `updateConfiguration`) keeps them as they are, or an agent
    /// could grant itself what an admin withheld.
    public static let permissionKeys: [String] = [
        RecordingRule.manualKey, ScheduledTimeRule.participantsKey, ScheduledTimeRule.allowedTypesKey,
    ]

    /// `configuration`, a new own layer for `conversation` from a caller below ADMIN, with the
    /// ``permissionKeys`` as the conversation's own layer has them now: a key sent back as the
    /// conversation works under it (as read) changes nothing, and is not copied into the own layer (so
    /// an admin's later change of the account, area or template still reaches the conversation).
    /// - Throws: `forbidden` naming the key when one is sent with another value.
    func keepingPermissions(_ configuration: [String: String], of conversation: Conversation) throws(CollabError) -> [String: String] {
        let cascade = self.configuration(of: conversation)
        var kept = configuration
        for key in Self.permissionKeys {
            if let sent = configuration[key], sent != cascade.value(for: key)?.value {
                throw .forbidden("\(key): only an ADMIN changes what a conversation's participants may do")
            }
            kept[key] = conversation.configuration?[key]
        }
        return kept
    }

    /// Replaces the conversation's own configuration: the most specific layer of its cascade.
    /// - Parameter mayChangePermissions: Whether the caller may change the ``permissionKeys`` (admins);
    ///   for others they stay as they are (``keepingPermissions(_:of:)``).
    /// - Throws: `forbidden` naming the key when a caller who may not would change a permission.
    public mutating func updateConversationConfiguration(
        _ id: String, configuration: [String: String], mayChangePermissions: Bool, accountId: String, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        try Limits.checkProperties(configuration, field: "configuration")
        var conversation = try ownConversation(id, accountId: accountId)
        let own = mayChangePermissions ? configuration : try keepingPermissions(configuration, of: conversation)
        conversation.configuration = own.isEmpty ? nil : own
        return update(conversation, context: context, changes: &changes)
    }

    /// Replaces the conversation's texts (by key, then locale).
    public mutating func updateConversationText(
        _ id: String, text: [String: [String: String]], accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        try Limits.checkTexts(text, field: "text")
        var conversation = try ownConversation(id, accountId: accountId)
        conversation.text = text.isEmpty ? nil : text
        return update(conversation, context: context, changes: &changes)
    }

    /// Adds a participant connected through an external messenger. The contact must be one of the
    /// account's external messenger contacts; the mock models none yet (they come with the external
    /// messengers), so every contact id is unknown.
    public func addExternalParticipant(_ id: String, contactId: String, accountId: String) throws(CollabError) -> Conversation {
        _ = try openConversation(id, accountId: accountId)
        _ = try Limits.checkName(contactId, field: "externalMessengerContactId")
        throw .notFound("ExternalMessengerContact", contactId)
    }

    // MARK: helpers

    /// The latest timestamp accepted (year 9999).
    static let latestTimestamp: Timestamp = 253_402_300_799_999

    /// A BCP 47 language tag: letters, then subtags of letters and digits, at most 35 characters.
    static func checkLocale(_ locale: String, field: String) throws(CollabError) -> String {
        let subtags = locale.split(separator: "-", omittingEmptySubsequences: false)
        let valid =
            Limits.fits(locale, 35) && !subtags.isEmpty
            && (2...8).contains(subtags[0].count) && subtags[0].allSatisfy { $0.isASCII && $0.isLetter }
            && subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        guard valid else { throw .badRequest("\(field) must be a BCP 47 language tag such as 'en' or 'de-CH', not '\(locale.prefix(40))'") }
        return locale
    }

    /// A conversation of the account that has not ended.
    func openConversation(_ id: String, accountId: String) throws(CollabError) -> Conversation {
        let conversation = try ownConversation(id, accountId: accountId)
        guard conversation.state != .ended else { throw .conflict("conversation \(id) has ended") }
        return conversation
    }
}
