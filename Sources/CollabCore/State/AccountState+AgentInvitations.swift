extension AccountState {
    /// Invites an agent into a conversation (`AGENT_INVITATION`) or forwards it to one (`AGENT_FORWARDING`).
    /// The invitation stays open until that agent accepts it (agent API) or it is revoked. A new
    /// forwarding revokes the conversation's open one.
    public mutating func inviteAgent(
        _ kind: Invitation.Kind, conversationId: String, agentPersonId: String, comment: String?, joinHidden: Bool, creatorPersonId: String?,
        for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        try Limits.checkOptional(comment, field: "comment", max: Limits.textLength)
        let conversation = try self.conversation(conversationId, for: principal)
        guard conversation.state != .ended, conversation.state != .offboarding else { throw .conflict("conversation \(conversationId) is \(conversation.state.rawValue)") }
        guard isAgent(agentPersonId, accountId: conversation.accountId) else { throw .badRequest("person \(agentPersonId) is not an agent of this account") }
        let existing = invitations.rows(Indexes.invitationByConversation, conversationId)
        guard existing.filter({ $0.state(at: context.now) == .open }).count < Invitation.maxOpenPerConversation else {
            throw .conflict("the conversation has the most open invitations it may have")
        }
        if kind == .agentForwarding {
            for var open in existing where open.kind == .agentForwarding && open.state(at: context.now) == .open {
                open.state = .revoked
                saveInvitation(open, action: "revoked", context: context, changes: &changes)
            }
        } else if conversation.isParticipant(agentPersonId) {
            throw .conflict("person \(agentPersonId) already takes part")
        }
        var invitation = Invitation(
            id: context.ids.make(), accountId: conversation.accountId, kind: kind, conversationId: conversationId, token: context.ids.makeSecret(),
            creatorPersonId: creatorPersonId, nickname: nil, createdTimestamp: context.now, expirationTimestamp: Timestamp.max
        )
        invitation.targetType = "AGENT"
        invitation.targetId = agentPersonId
        invitation.comment = comment
        if kind == .agentInvitation { invitation.joinHidden = joinHidden }
        saveInvitation(invitation, action: "created", context: context, changes: &changes)
        return invitation
    }

    /// The open agent invitations and forwardings addressed to an agent.
    public func openInvitations(forAgent personId: String, now: Timestamp) -> [Invitation] {
        invitations.rows(Indexes.invitationByOpenAgentTarget, personId).filter { $0.state(at: now) == .open }.sorted { $0.createdTimestamp < $1.createdTimestamp }
    }

    /// The addressed agent accepts: invited, it joins as a secondary agent; forwarded to, it becomes the
    /// assigned agent and the previous one leaves.
    public mutating func acceptAgentInvitation(
        _ id: String, agentPersonId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        guard var invitation = invitations[id], invitation.accountId == accountId, invitation.targetId == agentPersonId,
            invitation.kind == .agentInvitation || invitation.kind == .agentForwarding
        else { throw .notFound("ConversationInvitation", id) }
        guard invitation.state(at: context.now) == .open else { throw .conflict("the invitation is \(invitation.state(at: context.now).rawValue)") }
        var conversation: Conversation
        if invitation.kind == .agentForwarding {
            conversation = try setAssignee(invitation.conversationId, personId: agentPersonId, accountId: accountId, context: context, changes: &changes)
        } else {
            conversation = try ownConversation(invitation.conversationId, accountId: accountId)
            guard conversation.state != .ended, conversation.state != .offboarding else { throw .conflict("the conversation has ended") }
            if !conversation.isParticipant(agentPersonId) {
                guard conversation.participants.count < ConversationLimits.participants else { throw .conflict("the conversation has the maximum number of participants") }
                conversation.participants.append(
                    Participation(personId: agentPersonId, type: .secondaryAgent, hidden: invitation.joinHidden ?? false, joinedTimestamp: context.now)
                )
                save(conversation, context: context, changes: &changes)
                emit(.conversationUpdated, conversation, context: context, changes: &changes)
            }
        }
        invitation.state = .redeemed
        invitation.redeemingPersonId = agentPersonId
        saveInvitation(invitation, action: "redeemed", context: context, changes: &changes)
        return conversation
    }
}
