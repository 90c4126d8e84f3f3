import CollabWire

/// The pushes only agents' apps get — inbound requests and their revocation, the vendor's
/// `push_notification.inbound_request` and `.revoke_inbound_request` — and the read-message push every
/// person's other devices get. Agents' devices otherwise get what visitors' do (new messages, incoming
/// calls, missed calls, revokes), under the same app-state table.
extension AccountState {
    /// A conversation entering the queue is an inbound request for every agent whose queue shows it
    /// (filtered by the named area the agent's app runs with); leaving the queue — taken by anyone,
    /// ended, handed to a bot — revokes it on the same devices.
    mutating func notifyQueueChange(from old: Conversation?, to new: Conversation, context: OperationContext, changes: inout ChangeSet) {
        let wasQueued = old?.state == .queued
        let isQueued = new.state == .queued
        guard wasQueued != isQueued || (isQueued && old?.recipient != new.recipient) else { return }
        // Most accounts have no agent app registered: one lookup.
        guard devices.count(Indexes.deviceOfAgent, "agent") > 0 else { return }
        if wasQueued, let old { tellAgents(.revokeInboundRequest, about: old, context: context, changes: &changes) }
        if isQueued { tellAgents(.inboundRequest, about: new, context: context, changes: &changes) }
    }

    /// An invitation or forwarding addressed to an agent is an inbound request for that agent's apps (and
    /// its pending secondary targets'), a team's invitation for the apps of the agents who see the team's
    /// queue; once it is no longer offered to one of them (accepted, revoked, replaced, a secondary target
    /// canceled) it is revoked there. (A team's forwarding queues the conversation, whose queue pushes
    /// tell those agents.)
    mutating func notifyInvitationChange(
        from before: Set<String>, to after: Set<String>, _ invitation: Invitation, context: OperationContext, changes: inout ChangeSet
    ) {
        guard before != after, let conversation = conversations[invitation.conversationId] else { return }
        for (kind, persons) in [(PushKind.inboundRequest, after.subtracting(before)), (.revokeInboundRequest, before.subtracting(after))] {
            for personId in persons.sorted() {
                let content = inboundContent(kind, conversation, invitationId: invitation.id, context: context)
                notify(personId: personId, accountId: accountId, content: content, context: context, changes: &changes)
            }
        }
    }

    /// The agents an invitation is offered to while it is open: the agent it is addressed to (not for a
    /// deputy delegation, which names the assigned agent), the agents who see a team's queue for a team's
    /// invitation, and its pending secondary targets.
    func inboundAddressees(_ invitation: Invitation?, now: Timestamp) -> Set<String> {
        guard let invitation, invitation.state(at: now) == .open,
            [.agentInvitation, .agentForwarding, .deputyInvitation].contains(invitation.kind)
        else { return [] }
        var persons = Set(invitation.pendingSecondaryTargets)
        switch (invitation.targetType, invitation.targetId) {
        case ("AGENT", let id?) where invitation.kind != .deputyInvitation: persons.insert(id)
        case ("TEAM", let id?) where invitation.kind == .agentInvitation: persons.formUnion(agentPersons(seeingTeam: id))
        default: break
        }
        return persons
    }

    /// The person read their messages on one device (its collaboration UI opened): the other devices
    /// get a read-message push per conversation that had unread messages, so they clear their badge.
    mutating func notifyRead(
        personId: String, onDevice deviceRecordId: String, counts: [String: Int], context: OperationContext, changes: inout ChangeSet
    ) {
        let others = Set(devices.ids(Indexes.deviceByPerson, personId)).subtracting([deviceRecordId])
        guard !others.isEmpty else { return }
        for id in others.sorted() {
            guard var device = devices[id], device.notificationCount != 0 else { continue }
            device.notificationCount = 0
            storeDevice(device)
            changes.put(device)
        }
        for conversationId in counts.keys.sorted() {
            var content = PushContent(type: .readMessage, title: "", text: "", conversationId: conversationId, timestamp: context.now)
            content.notificationCount = 0
            content.readTimestamp = context.now
            notify(personId: personId, accountId: accountId, content: content, context: context, changes: &changes, only: others)
        }
    }

    /// Sends `kind` about `conversation` to every agent device whose queue shows it: a request addressed
    /// to an agent reads that agent's devices alone; any other reads the account's agent devices, each
    /// agent's teams worked out once.
    private mutating func tellAgents(_ kind: PushKind, about conversation: Conversation, context: OperationContext, changes: inout ChangeSet) {
        let recipient = conversation.recipient
        let candidates =
            recipient.type == .agent
            ? devices.rows(Indexes.deviceByPerson, recipient.id).filter(\.isReachableAgentApp)
            : devices.rows(Indexes.deviceOfAgent, "agent")
        var teamsOfAgent: [String: Set<String>] = [:]
        var targets: [String: Set<String>] = [:]
        for device in candidates {
            let filter = clientSession(on: device)?.namedAreaId.map { Set([$0]) }
            var teams: Set<String> = []
            if recipient.type == .team {
                if let known = teamsOfAgent[device.personId] {
                    teams = known
                } else {
                    teams = queueTeams(ofAgent: device.personId)
                    teamsOfAgent[device.personId] = teams
                }
            }
            let declined = conversation.declinedBy
            guard Self.queueShows(recipient, declinedBy: declined, to: device.personId, filter: filter, teams: teams) else { continue }
            targets[device.personId, default: []].insert(device.id)
        }
        for (personId, deviceIds) in targets.sorted(by: { $0.key < $1.key }) {
            let content = inboundContent(kind, conversation, invitationId: nil, context: context)
            notify(personId: personId, accountId: accountId, content: content, context: context, changes: &changes, only: deviceIds)
        }
    }

    /// The content of an inbound request (or its revocation): the vendor's `InboundRequestPushNotificationEvent` fields.
    private func inboundContent(_ kind: PushKind, _ conversation: Conversation, invitationId: String?, context: OperationContext) -> PushContent {
        let visitor = conversation.contextPersonId.map { displayName(of: $0) }
        let title = kind == .inboundRequest ? (invitationId == nil ? "New request" : "You are invited") : ""
        let text = kind == .inboundRequest ? (conversation.topic ?? visitor.map { "\($0) is waiting" } ?? "A visitor is waiting") : ""
        var content = PushContent(type: kind, title: title, text: text, conversationId: conversation.id, timestamp: context.now)
        content.invitationId = invitationId
        content.contextPersonId = conversation.contextPersonId
        content.initialEngagementType = conversation.initialEngagementType.rawValue
        return content
    }

    /// The newest client running on a device, if any.
    func clientSession(on device: Device) -> ClientSession? {
        clientSessions.rows(Indexes.clientByPerson, device.personId).filter { $0.deviceId == device.deviceId }
            .max { ($0.lastSeenAt, $0.createdAt, $0.id) < ($1.lastSeenAt, $1.createdAt, $1.id) }
    }
}
