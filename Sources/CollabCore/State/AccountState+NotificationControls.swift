extension AccountState {
    /// Pauses a person's notifications (mode ON), for `timeoutSeconds` or until resumed.
    public mutating func pauseNotifications(
        personId: String, timeoutSeconds: Int?, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Person {
        try updateNotifications(personId, for: principal, context: context, changes: &changes) { state throws(CollabError) in
            state.mode = .on
            state.pauseEndTimestamp = try Self.end(after: timeoutSeconds, now: context.now)
        }
    }

    /// Resumes a person's notifications (mode OFF), overriding any automatic pause.
    public mutating func resumeNotifications(personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet)
        throws(CollabError) -> Person
    {
        try updateNotifications(personId, for: principal, context: context, changes: &changes) { state throws(CollabError) in
            state.mode = .off
            state.pauseEndTimestamp = nil
        }
    }

    /// Pauses a person's notifications while an auto-pause reason is in force (mode AUTO).
    public mutating func autoPauseNotifications(personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet)
        throws(CollabError) -> Person
    {
        try updateNotifications(personId, for: principal, context: context, changes: &changes) { state throws(CollabError) in
            state.mode = .auto
            state.pauseEndTimestamp = nil
        }
    }

    /// Adds (or renews, by `sourceId`) an auto-pause reason.
    public mutating func addAutoPauseReason(
        personId: String, sourceId: String?, displayName: String?, timeoutSeconds: Int?, for principal: Principal, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Person {
        let sourceId = try Limits.checkName(sourceId, field: "sourceId")
        guard Limits.fits(sourceId, PersonNotifications.maxSourceIdLength) else {
            throw .badRequest("sourceId is longer than \(PersonNotifications.maxSourceIdLength) characters")
        }
        try Limits.checkOptional(displayName, field: "displayName")
        return try updateNotifications(personId, for: principal, context: context, changes: &changes) { state throws(CollabError) in
            let reason = PersonNotifications.AutoPauseReason(
                sourceId: sourceId, displayName: displayName, expirationTimestamp: try Self.end(after: timeoutSeconds, now: context.now)
            )
            // Expired reasons go when the list changes, so it only holds what can still matter.
            state.autoPauseReasons.removeAll { $0.sourceId == sourceId || !$0.isInForce(at: context.now) }
            guard state.autoPauseReasons.count < PersonNotifications.maxReasons else {
                throw .conflict("a person holds at most \(PersonNotifications.maxReasons) auto-pause reasons")
            }
            state.autoPauseReasons.append(reason)
        }
    }

    /// Removes an auto-pause reason; an unknown source id is a 404.
    public mutating func removeAutoPauseReason(
        personId: String, sourceId: String?, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Person {
        let sourceId = try Limits.checkName(sourceId, field: "sourceId")
        return try updateNotifications(personId, for: principal, context: context, changes: &changes) { state throws(CollabError) in
            guard state.autoPauseReasons.contains(where: { $0.sourceId == sourceId }) else {
                throw CollabError(.notFound, "AutoPauseNotificationsReason '\(sourceId)' not found")
            }
            state.autoPauseReasons.removeAll { $0.sourceId == sourceId || !$0.isInForce(at: context.now) }
        }
    }

    /// Unread notifications of a person across `conversationIds` it takes part in (all, when `nil`).
    public func notificationCount(personId: String, conversationIds: [String]?, for principal: Principal) throws(CollabError) -> Int {
        let person = try self.person(personId, for: principal)
        let counts = person.notifications?.counts ?? [:]
        guard let conversationIds else { return counts.values.reduce(0, +) }
        guard conversationIds.count <= Limits.readMultipleCount else {
            throw .badRequest("at most \(Limits.readMultipleCount) conversation ids per call")
        }
        return Set(conversationIds).reduce(0) { sum, id in
            guard let conversation = conversations[id], conversation.participants.contains(where: { $0.personId == personId }) else { return sum }
            return sum + (counts[id] ?? 0)
        }
    }

    /// Counts a notification for a person in a conversation and returns the person's new total (the badge).
    mutating func countNotification(personId: String, conversationId: String, changes: inout ChangeSet) -> Int? {
        guard var person = persons[personId] else { return nil }
        var state = person.notifications ?? PersonNotifications()
        state.counts[conversationId, default: 0] += 1
        person.notifications = state
        storePerson(person)
        changes.put(person)
        return state.total
    }

    /// Takes a deleted conversation out of its participants' unread counts, so a person's record does
    /// not keep every conversation it was ever told of.
    mutating func forgetUnreadCounts(of conversation: Conversation, changes: inout ChangeSet) {
        for personId in Set(conversation.participants.map(\.personId)).sorted() {
            guard var person = persons[personId], var state = person.notifications, state.counts.removeValue(forKey: conversation.id) != nil
            else { continue }
            person.notifications = state
            storePerson(person)
            changes.put(person)
        }
    }

    /// Clears a person's unread counts (the collaboration UI was opened).
    mutating func clearNotificationCounts(personId: String, changes: inout ChangeSet) {
        guard var person = persons[personId], var state = person.notifications, !state.counts.isEmpty else { return }
        state.counts = [:]
        person.notifications = state
        storePerson(person)
        changes.put(person)
    }

    /// Why a person's notifications are paused now, if they are.
    func notificationPauseReason(personId: String, now: Timestamp) -> String? {
        persons[personId]?.notifications?.pauseReason(at: now)
    }

    private mutating func updateNotifications(
        _ personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet,
        _ change: (inout PersonNotifications) throws(CollabError) -> Void
    ) throws(CollabError) -> Person {
        var person = try self.person(personId, for: principal)
        var state = person.notifications ?? PersonNotifications()
        try change(&state)
        person.notifications = state
        person.modificationTimestamp = context.now
        storePerson(person)
        changes.put(person)
        var event = DomainEvent(kind: .notificationControlsChanged, accountId: person.accountId, timestamp: context.now)
        event.entity = EntityChange(action: .update, entity: .person(person))
        changes.emit(event)
        return person
    }

    private static func end(after timeoutSeconds: Int?, now: Timestamp) throws(CollabError) -> Timestamp? {
        guard let timeoutSeconds else { return nil }
        guard (1...Int(Int32.max)).contains(timeoutSeconds) else { throw .badRequest("timeoutSeconds must be between 1 and \(Int32.max)") }
        return now + Int64(timeoutSeconds) * 1000
    }
}
