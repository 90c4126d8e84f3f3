/// Where a queue page ended: the last entry's place and how many entries came before and on it.
public struct QueueCursor: Sendable, Equatable {
    public var position: QueueIndex.Position
    /// The 1-based position of the last entry shown.
    public var count: Int

    public init(position: QueueIndex.Position, count: Int) {
        self.position = position
        self.count = count
    }

    /// The cursor after `entry`.
    public init(after entry: QueueEntry) {
        self.init(position: .init(queuedAt: entry.conversation.queuedTimestamp ?? 0, conversationId: entry.conversation.id), count: entry.position)
    }

    /// `queuedAt.conversationId.count`, as handed to clients.
    public var token: String { "\(position.queuedAt).\(position.conversationId).\(count)" }

    /// Parses a token made by ``token``.
    public init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let queuedAt = Timestamp(parts[0]),
            !parts[1].isEmpty,
            parts[1].utf8.count <= 64,
            let count = Int(parts[2]),
            // A position, never more than an account's conversations: bounded so positions counted on from
            // it cannot overflow.
            (0...Int(Int32.max)).contains(count)
        else {
            return nil
        }
        self.init(position: .init(queuedAt: queuedAt, conversationId: String(parts[1])), count: count)
    }
}

/// One entry of an agent's queue.
public struct QueueEntry: Sendable, Equatable {
    public var conversation: Conversation
    /// 1-based position in this agent's view of the queue.
    public var position: Int
}

extension AccountState {
    /// Whether a queued conversation shows in the queue of `agentPersonId` filtering on `namedAreaIds`
    /// (`nil` or empty: no filter). Account-wide requests show only without a filter; requests addressed
    /// to an agent show only to that agent, and those addressed to a team only to the agents whose
    /// ``queueTeams(ofAgent:)`` (`teams`) hold it, whatever the filter; declined requests no longer show
    /// to the decliner.
    public static func queueShows(
        _ recipient: ConversationRecipient, declinedBy: [String], to agentPersonId: String, filter namedAreaIds: Set<String>?, teams: Set<String> = []
    ) -> Bool {
        if declinedBy.contains(agentPersonId) { return false }
        let filtered = !(namedAreaIds?.isEmpty ?? true)
        switch recipient.type {
        case .agent: return recipient.id == agentPersonId
        case .team: return teams.contains(recipient.id)
        case .account: return !filtered
        case .namedArea: return !filtered || namedAreaIds!.contains(recipient.id)
        }
    }

    /// A page of an agent's queue: queued conversations of the account it may take, first queued first,
    /// after `cursor` (the last entry of the previous page). Costs a look-up per queue line the agent sees
    /// and about `limit` entries in all (``QueueIndex/page(recipients:after:limit:include:)``), however
    /// long the queue is and however many named areas have a line.
    /// - Parameters:
    ///   - cursor: Where the previous page ended, with the position of its last entry; `nil` for the first page.
    ///   - limit: The most entries to return.
    public func queue(
        accountId: String, agentPersonId: String, namedAreaIds: Set<String>?, after cursor: QueueCursor? = nil, limit: Int = 100
    ) -> [QueueEntry] {
        guard accountId == self.accountId, limit > 0 else { return [] }
        let recipients = queue.recipients(
            agentPersonId: agentPersonId, teams: queueTeams(ofAgent: agentPersonId), filter: namedAreaIds, accountId: accountId
        )
        let positions = queue.page(recipients: recipients, after: cursor?.position, limit: limit) { position in
            guard let conversation = conversations[position.conversationId] else { return false }
            return !conversation.declinedBy.contains(agentPersonId)
        }
        let start = cursor?.count ?? 0
        return positions.enumerated().compactMap { offset, position in
            conversations[position.conversationId].map { QueueEntry(conversation: $0, position: start + offset + 1) }
        }
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

    /// Sets an agent's presence; an agent set away (`persons/{id}/setAway`) who comes online is AWAY.
    public mutating func setPresence(
        _ value: AgentPresence, personId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) {
        guard isAgent(personId, accountId: accountId) else { throw .forbidden("only agents have a presence") }
        let value = value == .online && persons[personId]?.away == true ? .away : value
        guard presence[personId]?.presence != value else { return }
        let record = PresenceRecord(id: personId, accountId: accountId, presence: value, changedAt: context.now)
        presence[personId] = record
        changes.put(record)
        changes.emit(
            DomainEvent(
                kind: .agentPresenceChanged, accountId: accountId, timestamp: context.now, personIds: [personId], agentsOnly: true,
                detail: ["presence": value.rawValue, "personId": personId])
        )
    }



    /// How many agents of an account are online for a named area (or the account) right now. Agents
    /// have no area assignment in the mock, so every online agent serves every area.
    public func onlineAgents(accountId: String) -> Int {
        guard accountId == self.accountId else { return 0 }
        return presence.count(Indexes.presenceByValue, AgentPresence.online.rawValue)
    }
}
