@testable import CollabCore
import Testing

/// An invitation lives no longer than its conversation: the end closes the open ones (so no agent's
/// list, PIN look-up or OPEN search keeps reading them), and a deletion removes them.
@Suite("Invitation lifecycle")
struct InvitationLifecycleTests {
    @Test("ending a conversation revokes its open invitations, stores expired ones EXPIRED, and leaves the others")
    func endCloses() throws {
        var changes = ChangeSet()
        var context = OperationContext(now: 10, ids: .system)
        let desk = try TwoAgentDesk(context: context, changes: &changes)
        var state = desk.state
        let admin = Principal.control(of: desk.account.id)
        var conversation = try state.createConversation(
            ConversationInput(contextPersonId: desk.visitor.id), accountId: desk.account.id, context: context, changes: &changes)
        conversation = try state.acceptConversation(
            conversation.id, agentPersonId: desk.agent.id, accountId: desk.account.id, context: context, changes: &changes)

        // A PIN that will have expired by the end, a valid PIN, a link, an agent invitation; one already revoked.
        let stale = try state.inviteAnonymousVisitor(
            .pin, conversationId: conversation.id, nickname: nil, creatorPersonId: desk.agent.id, for: admin, context: context, changes: &changes)
        context = OperationContext(now: 10 + Invitation.pinLifetime + 1, ids: .system)
        let pin = try state.inviteAnonymousVisitor(
            .pin, conversationId: conversation.id, nickname: nil, creatorPersonId: desk.agent.id, for: admin, context: context, changes: &changes)
        let link = try state.inviteAnonymousVisitor(
            .visitorLink, conversationId: conversation.id, nickname: nil, creatorPersonId: desk.agent.id, for: admin, context: context,
            changes: &changes)
        let invited = try state.inviteAgent(
            .agentInvitation, conversationId: conversation.id, agentPersonId: desk.other.id, comment: nil, joinHidden: false,
            creatorPersonId: desk.agent.id, for: admin, context: context, changes: &changes)
        let withdrawn = try state.inviteAnonymousVisitor(
            .pin, conversationId: conversation.id, nickname: nil, creatorPersonId: desk.agent.id, for: admin, context: context, changes: &changes)
        _ = try state.revokeInvitation(withdrawn.id, for: admin, context: context, changes: &changes)
        #expect(state.openInvitations(forAgent: desk.other.id, now: context.now).map(\.id) == [invited.id])
        #expect(state.invitations[stale.id]?.state(at: context.now) == .expired)

        changes = ChangeSet()
        _ = try state.endConversation(
            conversation.id, by: desk.agent.id, reason: .endedByParticipant, comment: nil, accountId: desk.account.id, context: context,
            changes: &changes)
        #expect(state.invitations[pin.id]?.state == .revoked)
        #expect(state.invitations[link.id]?.state == .revoked)
        #expect(state.invitations[invited.id]?.state == .revoked)
        #expect(state.invitations[stale.id]?.state == .expired, "stored as it read, out of the open invitations")
        #expect(state.invitations[withdrawn.id]?.state == .revoked)
        #expect(state.openInvitations(forAgent: desk.other.id, now: context.now).isEmpty, "the invited agent's list drops it")
        let open = try state.searchInvitations(
            SearchQuery(filters: [SearchFilter(field: "INVITATION_STATE", op: .equals(.string("OPEN")))]), now: context.now, for: admin)
        #expect(open.items.isEmpty)
        let expired = try state.searchInvitations(
            SearchQuery(filters: [SearchFilter(field: "INVITATION_STATE", op: .equals(.string("EXPIRED")))]), now: context.now, for: admin)
        #expect(expired.items.map(\.id) == [stale.id])
        // Each closed invitation is stored and told, as a revocation is; the one revoked before is left alone.
        let told = changes.events.filter { $0.kind == .invitationChanged }.compactMap(\.invitation?.id)
        #expect(Set(told) == [stale.id, pin.id, link.id, invited.id])
        #expect(throws: CollabError.self, "a PIN of an ended conversation is not renewed") {
            try state.renewPin(stale.id, for: admin, context: context, changes: &changes)
        }
        #expect(throws: CollabError.self, "nor redeemed") {
            try state.redeemInvitation(token: pin.token, personId: desk.visitor.id, accountId: desk.account.id, context: context, changes: &changes)
        }

        changes = ChangeSet()
        try state.deleteConversation(conversation.id, accountId: desk.account.id, context: context, changes: &changes)
        #expect(state.invitations.isEmpty, "the conversation's invitations go with it")
        let deleted = changes.changes.compactMap { change -> String? in
            guard case .delete(.invitation, let id) = change else { return nil }
            return id
        }
        #expect(Set(deleted) == [stale.id, pin.id, link.id, invited.id, withdrawn.id])
    }

    @Test("inviting and revoking in a loop keeps a conversation's thousand newest invitations, the open ones always")
    func closedOnesGiveWay() throws {
        var changes = ChangeSet()
        let context = OperationContext(now: 10, ids: .system)
        var (desk, state, conversation) = try TwoAgentDesk.withConversation(context: context, changes: &changes)
        let admin = Principal.control(of: desk.account.id)
        let open = try state.inviteAnonymousVisitor(
            .visitorLink, conversationId: conversation.id, nickname: nil, creatorPersonId: nil, for: admin, context: context, changes: &changes)
        var revoked: [String] = []
        for round in 0..<(Invitation.maxPerConversation + 20) {
            let at = OperationContext(now: 20 + Int64(round), ids: .system)
            let pin = try state.inviteAnonymousVisitor(
                .pin, conversationId: conversation.id, nickname: nil, creatorPersonId: nil, for: admin, context: at, changes: &changes)
            _ = try state.revokeInvitation(pin.id, for: admin, context: at, changes: &changes)
            revoked.append(pin.id)
        }
        let kept = state.invitations.ids(Indexes.invitationByConversation, conversation.id)
        #expect(kept.count == Invitation.maxPerConversation)
        #expect(kept.contains(open.id), "the open link stays, though it is the oldest")
        #expect(!kept.contains(revoked[0]) && kept.contains(revoked.last ?? ""), "the oldest revoked ones went")
    }
}
