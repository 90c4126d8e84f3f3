extension AccountState {
    /// Invites an agent into a conversation (`AGENT_INVITATION`) or forwards it to one (`AGENT_FORWARDING`).
    /// The invitation stays open until that agent accepts it (agent API) or it is revoked. A new
    /// forwarding revokes the conversation's open one.
    public mutating func inviteAgent(
        _ kind: Invitation.Kind, conversationId: String, agentPersonId: String, comment: String?, joinHidden: Bool, creatorPersonId: String?,
        for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        let (conversation, existing) = try invitableConversation(conversationId, comment: comment, for: principal, now: context.now)
        guard isAgent(agentPersonId, accountId: conversation.accountId) else {
            throw .badRequest("person \(agentPersonId) is not an agent of this account")
        }
        if kind == .agentForwarding {
            for var open in existing where open.kind == .agentForwarding && open.state(at: context.now) == .open {
                open.state = .revoked
                saveInvitation(open, action: "revoked", context: context, changes: &changes)
            }
        } else if conversation.isParticipant(agentPersonId) {
            throw .conflict("person \(agentPersonId) already takes part")
        }
        let target = (type: "AGENT", id: agentPersonId)
        return addAgentInvitation(
            kind, to: target, in: conversation, comment: comment, joinHidden: joinHidden, by: creatorPersonId, context, &changes
        )
    }

    /// The conversation an agent or team invitation is for, with its invitations: it has not ended and
    /// has room for another open invitation.
    func invitableConversation(
        _ id: String, comment: String?, for principal: Principal, now: Timestamp
    ) throws(CollabError) -> (Conversation, [Invitation]) {
        try Limits.checkOptional(comment, field: "comment", max: Limits.textLength)
        let conversation = try self.conversation(id, for: principal)
        guard conversation.state != .ended, conversation.state != .offboarding else {
            throw .conflict("conversation \(id) is \(conversation.state.rawValue)")
        }
        let existing = invitations.rows(Indexes.invitationByConversation, id)
        guard existing.filter({ $0.state(at: now) == .open }).count < Invitation.maxOpenPerConversation else {
            throw .conflict("the conversation has the most open invitations it may have")
        }
        return (conversation, existing)
    }

    /// Stores a new open invitation or forwarding of `conversation`, addressed to an agent or a team.
    mutating func addAgentInvitation(
        _ kind: Invitation.Kind, to target: (type: String, id: String), in conversation: Conversation, comment: String?, joinHidden: Bool,
        by creatorPersonId: String?, _ context: OperationContext, _ changes: inout ChangeSet
    ) -> Invitation {
        var invitation = Invitation(
            id: context.ids.make(), accountId: conversation.accountId, kind: kind, conversationId: conversation.id, token: context.ids.makeSecret(),
            creatorPersonId: creatorPersonId, nickname: nil, createdTimestamp: context.now, expirationTimestamp: Timestamp.max
        )
        invitation.targetType = target.type
        invitation.targetId = target.id
        invitation.comment = comment
        if kind == .agentInvitation { invitation.joinHidden = joinHidden }
        saveInvitation(invitation, action: "created", context: context, changes: &changes)
        return invitation
    }

    /// The open agent invitations and forwardings addressed to an agent, or to a team whose queue it sees.
    public func openInvitations(forAgent personId: String, now: Timestamp) -> [Invitation] {
        (invitations.rows(Indexes.invitationByOpenAgentTarget, personId).filter { $0.state(at: now) == .open }
            + openTeamInvitations(forAgent: personId, now: now)
            + invitations.rows(Indexes.invitationByOpenSecondaryTarget, personId).filter { $0.state(at: now) == .open })
            .sorted { ($0.createdTimestamp, $0.id) < ($1.createdTimestamp, $1.id) }
    }

    /// The addressed agent (or a pending secondary target) accepts: invited or delegated to as a deputy, it
    /// joins as a secondary agent; forwarded to, it becomes the assigned agent and the previous one leaves;
    /// asked by an assignment request, it accepts the requeued conversation from its queue (as
    /// ``acceptConversation(_:agentPersonId:accountId:context:changes:)`` does, which redeems the request).
    public mutating func acceptAgentInvitation(
        _ id: String, agentPersonId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        guard var invitation = invitations[id], invitation.accountId == accountId, isAddressed(invitation, toAgent: agentPersonId),
            [.agentInvitation, .agentForwarding, .deputyInvitation, .assignmentRequest].contains(invitation.kind)
        else { throw .notFound("ConversationInvitation", id) }
        guard invitation.state(at: context.now) == .open else { throw .conflict("the invitation is \(invitation.state(at: context.now).rawValue)") }
        if invitation.kind == .assignmentRequest {
            return try acceptConversation(
                invitation.conversationId, agentPersonId: agentPersonId, accountId: accountId, context: context, changes: &changes)
        }
        var conversation: Conversation
        if invitation.kind == .agentForwarding {
            conversation = try setAssignee(
                invitation.conversationId, personId: agentPersonId, accountId: accountId, context: context, changes: &changes)
        } else {
            conversation = try ownConversation(invitation.conversationId, accountId: accountId)
            guard conversation.state != .ended, conversation.state != .offboarding else { throw .conflict("the conversation has ended") }
            if !conversation.isParticipant(agentPersonId) {
                let participation = Participation(
                    personId: agentPersonId, type: .secondaryAgent, hidden: invitation.joinHidden ?? false, joinedTimestamp: context.now
                )
                try add(participation, to: &conversation, context: context, changes: &changes)
            }
        }
        invitation.state = .redeemed
        invitation.redeemingPersonId = agentPersonId
        if let index = invitation.secondaryTargets?.firstIndex(where: { $0.personId == agentPersonId && $0.responseState == .pending }) {
            invitation.secondaryTargets?[index].responseState = .accepted
        }
        saveInvitation(invitation, action: "redeemed", context: context, changes: &changes)
        return conversation
    }
}
