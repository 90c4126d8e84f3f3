/// Secondary targets of an invitation (the vendor's `addSecondaryInvitationTarget` and
/// `cancelSecondaryInvitationTarget`) and deputy delegations (`startDeputyDelegation`), which offer a
/// conversation to the assigned agent's deputies as secondary targets. A pending secondary target sees
/// the invitation as its main target does (agent API invitations, live events, inbound-request pushes)
/// and may accept it in the main target's place.
extension AccountState {
    /// Offers an open invitation addressed to one agent (`AGENT_INVITATION` or `AGENT_FORWARDING`) to
    /// another agent of the account as well.
    /// - Throws: `notFound` for an unknown invitation; `badRequest` naming `personId` for a person who is
    ///   not an agent of the account or is the main target, or naming `invitationId` for an invitation not
    ///   addressed to one agent; `conflict` for an invitation no longer open, a person already added once,
    ///   or an invitation with ``Invitation/maxSecondaryTargets``.
    public mutating func addSecondaryTarget(
        _ invitationId: String, personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        var invitation = try self.invitation(invitationId, for: principal)
        guard invitation.targetType == "AGENT", invitation.kind == .agentInvitation || invitation.kind == .agentForwarding else {
            let target = invitation.targetType ?? "ANONYMOUS"
            throw .badRequest("invitationId: secondary targets are for invitations to one agent, not \(invitation.kind.rawValue) to \(target)")
        }
        let state = invitation.state(at: context.now)
        guard state == .open else { throw .conflict("the invitation is \(state.rawValue)") }
        guard isAgent(personId, accountId: invitation.accountId) else { throw .badRequest("personId \(personId) is not an agent of this account") }
        guard personId != invitation.targetId else { throw .badRequest("personId must differ from the invitation's main target") }
        let targets = invitation.secondaryTargets ?? []
        // The vendor allows a secondary target once per invitation, a canceled one included.
        guard !targets.contains(where: { $0.personId == personId }) else {
            throw .conflict("person \(personId) was already added to this invitation")
        }
        guard targets.count < Invitation.maxSecondaryTargets else {
            throw .conflict("the invitation has \(targets.count) secondary targets, the most it may have")
        }
        invitation.secondaryTargets = targets + [Invitation.SecondaryTarget(personId: personId)]
        saveInvitation(invitation, action: "secondary_target_added", context: context, changes: &changes)
        return invitation
    }

    /// Withdraws an invitation from a pending secondary target: it is CANCELED and may no longer accept.
    /// - Throws: `notFound` for an unknown invitation or a person who is not one of its secondary
    ///   targets; `conflict` when the target already answered or the invitation is no longer open.
    public mutating func cancelSecondaryTarget(
        _ invitationId: String, personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        var invitation = try self.invitation(invitationId, for: principal)
        guard let index = invitation.secondaryTargets?.firstIndex(where: { $0.personId == personId }),
            let target = invitation.secondaryTargets?[index]
        else {
            throw .notFound("ConversationInvitationSecondaryTarget", personId)
        }
        let state = invitation.state(at: context.now)
        guard state == .open else { throw .conflict("the invitation is \(state.rawValue)") }
        guard target.responseState == .pending else { throw .conflict("the secondary target's response is \(target.responseState.rawValue)") }
        invitation.secondaryTargets?[index].responseState = .canceled
        // The person goes with the event: a canceled deputy is told its delegation is revoked.
        saveInvitation(
            invitation, action: "secondary_target_canceled", detail: [Invitation.canceledTargetDetail: personId], context: context, changes: &changes
        )
        return invitation
    }

    /// Starts a deputy delegation (`DEPUTY_INVITATION`) for the agent assigned to a conversation: the
    /// agent's deputies at `level` (AGENT deputies, and the users of TEAM deputies) are its secondary
    /// targets; the one who accepts joins as a secondary agent (hidden when `joinHidden`). Its target is
    /// the assigned agent, to whom it is not offered.
    /// - Throws: `badRequest` naming `delegationLevel` for an unknown level or an agent without deputies
    ///   there, naming `conversationId` for a conversation without an assigned agent; `conflict` for an
    ///   ended conversation or one with an open deputy delegation; `notFound` for an unknown conversation.
    public mutating func startDeputyDelegation(
        conversationId: String, level: String, joinHidden: Bool, creatorPersonId: String?, for principal: Principal, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        try Limits.check(level, field: "delegationLevel", oneOf: ["LEVEL_1", "LEVEL_2", "LEVEL_3"], required: true)
        let (conversation, existing) = try invitableConversation(conversationId, comment: nil, for: principal, now: context.now)
        guard let assignee = conversation.assigneePersonId, let primary = persons[assignee], primary.personSource == .userDB else {
            throw .badRequest("conversationId: conversation \(conversationId) has no assigned agent whose deputies could be delegated to")
        }
        // The vendor allows one deputy delegation per conversation at a time.
        guard !existing.contains(where: { $0.kind == .deputyInvitation && $0.state(at: context.now) == .open }) else {
            throw .conflict("the conversation already has an open deputy delegation")
        }
        let deputies = deputyPersons(ofUser: primary.sourceId, level: level).map(\.id).filter { !conversation.isParticipant($0) }
        guard !deputies.isEmpty else {
            throw .badRequest("delegationLevel: the assigned agent has no deputy at \(level) who is not already in the conversation")
        }
        var invitation = Invitation(
            id: context.ids.make(), accountId: conversation.accountId, kind: .deputyInvitation, conversationId: conversationId,
            token: context.ids.makeSecret(), creatorPersonId: creatorPersonId, nickname: nil, createdTimestamp: context.now,
            expirationTimestamp: Timestamp.max
        )
        invitation.targetType = "AGENT"
        invitation.targetId = assignee
        invitation.joinHidden = joinHidden
        invitation.delegationLevel = level
        invitation.secondaryTargets = deputies.prefix(Invitation.maxSecondaryTargets).map { Invitation.SecondaryTarget(personId: $0) }
        saveInvitation(invitation, action: "created", context: context, changes: &changes)
        return invitation
    }
}
