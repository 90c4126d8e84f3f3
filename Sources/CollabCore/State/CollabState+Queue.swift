/// One entry of an agent's queue.
public struct QueueEntry: Sendable, Equatable {
    public var conversation: Conversation
    /// 1-based position in this agent's view of the queue.
    public var position: Int
}

extension CollabState {
    /// Whether a queued conversation shows in the queue of `agentPersonId` filtering on `namedAreaIds`
    /// (`nil` or empty: no filter). Account-wide requests show only without a filter; requests addressed
    /// to an agent show only to that agent; declined requests no longer show to the decliner.
    public static func queueShows(_ recipient: ConversationRecipient, declinedBy: [String], to agentPersonId: String, filter namedAreaIds: Set<String>?) -> Bool {
        if declinedBy.contains(agentPersonId) { return false }
        let filtered = !(namedAreaIds?.isEmpty ?? true)
        switch recipient.type {
        case .agent: return recipient.id == agentPersonId
        case .account: return !filtered
        case .namedArea: return !filtered || namedAreaIds!.contains(recipient.id)
        }
    }

    /// The queue of an agent: queued conversations of the account it may take, first queued first.
    public func queue(accountId: String, agentPersonId: String, namedAreaIds: Set<String>?) -> [QueueEntry] {
        conversations.values
            .filter {
                $0.accountId == accountId && $0.state == .queued
                    && Self.queueShows($0.recipient, declinedBy: $0.declinedBy, to: agentPersonId, filter: namedAreaIds)
            }
            .sorted { ($0.queuedTimestamp ?? 0, $0.id) < ($1.queuedTimestamp ?? 0, $1.id) }
            .enumerated().map { QueueEntry(conversation: $1, position: $0 + 1) }
    }

    /// Resolves named-area references (ids or site ids) of an account.
    public func namedAreaIds(_ references: [String], accountId: String) throws(CollabError) -> Set<String> {
        var ids: Set<String> = []
        for reference in references {
            if let area = namedAreas[reference], area.accountId == accountId {
                ids.insert(area.id)
            } else if let area = namedArea(siteId: reference, accountId: accountId) {
                ids.insert(area.id)
            } else {
                throw .notFound("NamedArea", reference)
            }
        }
        return ids
    }

    // MARK: presence

    /// An agent's presence (OFFLINE unless set).
    public func presence(of personId: String) -> AgentPresence {
        presence[personId]?.presence ?? .offline
    }

    /// Sets an agent's presence.
    public mutating func setPresence(
        _ value: AgentPresence, personId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        guard isAgent(personId, accountId: accountId) else { throw .forbidden("only agents have a presence") }
        guard presence[personId]?.presence != value else { return }
        let record = PresenceRecord(id: personId, accountId: accountId, presence: value, changedAt: context.now)
        presence[personId] = record
        changes.put(record)
        changes.emit(
            DomainEvent(kind: .agentPresenceChanged, accountId: accountId, timestamp: context.now, personIds: [personId], agentsOnly: true, detail: ["presence": value.rawValue])
        )
    }

    /// How many agents of an account are online for a named area (or the account) right now. Agents
    /// have no area assignment in the mock, so every online agent serves every area.
    public func onlineAgents(accountId: String) -> Int {
        presence.values.filter { $0.accountId == accountId && $0.presence == .online }.count
    }
}
