extension AccountState {
    /// Invites a team into a conversation (`AGENT_INVITATION`, target `TEAM`) or forwards the conversation
    /// to it (`AGENT_FORWARDING`, target `TEAM`): the vendor's `inviteTeamToConversation` and
    /// `forwardConversationToTeam`. Agents whose ``queueTeams(ofAgent:)`` hold the team see the invitation
    /// (agent API invitations, live events) and redeem it once.
    ///
    /// A forwarding also puts the conversation into the team's queue: its recipient becomes the team, the
    /// assigned agent stays until an agent of the team accepts (then leaves), the conversation's open
    /// forwarding and assignment requests are revoked.
    /// - Throws: `notFound` for an unknown conversation or team, `conflict` for an ended conversation or
    ///   an open invitation of the same team.
    public mutating func inviteTeam(
        _ kind: Invitation.Kind, conversationId: String, teamId: String, comment: String?, joinHidden: Bool, creatorPersonId: String?,
        for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        var (conversation, existing) = try invitableConversation(conversationId, comment: comment, for: principal, now: context.now)
        guard declared.table(Team.self)[teamId] != nil else { throw .notFound("Team", teamId) }
        let open = existing.filter { $0.state(at: context.now) == .open }
        if kind == .agentInvitation {
            guard !open.contains(where: { $0.kind == .agentInvitation && $0.targetType == "TEAM" && $0.targetId == teamId }) else {
                throw .conflict("the team already has an open invitation to this conversation")
            }
        } else {
            // The move is checked (on this copy) before anything is stored.
            let wasQueued = conversation.state == .queued
            if !wasQueued { try conversation.move(to: .queued, at: context.now) }
            let team = ConversationRecipient(type: .team, id: teamId)
            let previous = conversation.recipient
            conversation.recipient = team
            conversation.declinedBy = []
            for var replaced in open where replaced.kind == .agentForwarding || replaced.kind == .assignmentRequest {
                replaced.state = .revoked
                saveInvitation(replaced, action: "revoked", context: context, changes: &changes)
            }
            save(conversation, context: context, changes: &changes)
            // The previous queue's agents are told it left; the team's that it arrived.
            emit(wasQueued ? .conversationUpdated : .conversationQueued, conversation, queue: [previous, team], context: context, changes: &changes)
        }
        let target = (type: "TEAM", id: teamId)
        return addAgentInvitation(
            kind, to: target, in: conversation, comment: comment, joinHidden: joinHidden, by: creatorPersonId, context, &changes
        )
    }

    /// The open invitations addressed to the teams whose queue `personId` sees.
    func openTeamInvitations(forAgent personId: String, now: Timestamp) -> [Invitation] {
        queueTeams(ofAgent: personId).flatMap { invitations.rows(Indexes.invitationByOpenTeamTarget, $0) }.filter { $0.state(at: now) == .open }
    }

    /// Whether the agent `personId` may redeem `invitation`: it is addressed to that agent, or to a team
    /// whose queue the agent sees, or names the agent as a pending secondary target.
    func isAddressed(_ invitation: Invitation, toAgent personId: String) -> Bool {
        if invitation.pendingSecondaryTargets.contains(personId) { return true }
        return switch invitation.targetType {
        case "AGENT": invitation.targetId == personId && invitation.kind != .deputyInvitation
        case "TEAM": invitation.targetId.map { queueTeams(ofAgent: personId).contains($0) } ?? false
        default: false
        }
    }
}
