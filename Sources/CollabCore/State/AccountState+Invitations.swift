extension AccountState {
    /// An invitation of the caller's account.
    public func invitation(_ id: String, for principal: Principal) throws(CollabError) -> Invitation {
        guard let invitation = invitations[id], principal.canAccess(accountId: invitation.accountId) else {
            throw .notFound("ConversationInvitation", id)
        }
        return invitation
    }

    /// Searches the caller's invitations; states are read at `now`.
    public func searchInvitations(_ query: SearchQuery, now: Timestamp, for principal: Principal) throws(CollabError) -> SearchPage<Invitation> {
        _ = try callerAccountId(principal)
        func read(_ invitation: Invitation) -> Invitation {
            var read = invitation
            read.state = invitation.state(at: now)
            return read
        }
        let lookups = SearchLookups().adding("ID", invitations.idLookup)
            .adding("CONVERSATION_ID", invitations.lookup(Indexes.invitationByConversation))
            .adding("INVITATION_STATE") { [invitations] state in
                // The state read at `now`: an EXPIRED one is stored OPEN (or, never written so, EXPIRED).
                let stored = state == Invitation.State.expired.rawValue ? [Invitation.State.open.rawValue, state] : [state]
                return stored.reduce(into: Set<String>()) { $0.formUnion(invitations.ids(Indexes.invitationByStoredState, $1)) }
            }
            .ordering("ID", count: invitations.count, walk: invitations.walk(Indexes.invitationById))
            .ordering("CREATION_TIMESTAMP", count: invitations.count, walk: invitations.walk(Indexes.invitationByCreation))
        return try SearchSchemas.invitation.run(
            query, lookups: lookups, row: { invitations[$0].map(read) }, all: invitations.values.lazy.map(read), id: \.id)
    }

    /// Invites an anonymous visitor into a conversation by PIN or by link (`email`: the address the link
    /// is mailed to, checked by the caller with ``Invitation/checkEmail(_:)``).
    public mutating func inviteAnonymousVisitor(
        _ kind: Invitation.Kind, conversationId: String, nickname: String?, email: String? = nil, creatorPersonId: String?, for principal: Principal,
        context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        try Limits.checkOptional(nickname, field: "nickname")
        let conversation = try self.conversation(conversationId, for: principal)
        guard conversation.state != .ended, conversation.state != .offboarding else {
            throw .conflict("conversation \(conversationId) is \(conversation.state.rawValue)")
        }
        let open = invitations.rows(Indexes.invitationByConversation, conversationId).filter { $0.state(at: context.now) == .open }.count
        guard open < Invitation.maxOpenPerConversation else { throw .conflict("the conversation has \(open) open invitations, the most it may have") }
        var invitation = Invitation(
            id: context.ids.make(), accountId: conversation.accountId, kind: kind, conversationId: conversationId,
            token: freshToken(kind, context: context), creatorPersonId: creatorPersonId, nickname: nickname, createdTimestamp: context.now,
            expirationTimestamp: context.now + (kind == .pin ? Invitation.pinLifetime : Invitation.linkLifetime)
        )
        invitation.email = email
        saveInvitation(invitation, action: "created", context: context, changes: &changes)
        return invitation
    }

    /// Gives an open PIN invitation a new PIN and a new validity period.
    public mutating func renewPin(
        _ id: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        var invitation = try self.invitation(id, for: principal)
        guard invitation.kind == .pin else { throw .badRequest("only PIN invitations have a PIN to renew") }
        guard invitation.state != .redeemed, invitation.state != .revoked else { throw .conflict("the invitation is \(invitation.state.rawValue)") }
        if let conversation = conversations[invitation.conversationId], conversation.state == .ended || conversation.state == .offboarding {
            throw .conflict("conversation \(conversation.id) is \(conversation.state.rawValue)")
        }
        invitation.state = .open
        invitation.token = freshToken(.pin, context: context)
        invitation.expirationTimestamp = context.now + Invitation.pinLifetime
        saveInvitation(invitation, action: "renewed", context: context, changes: &changes)
        return invitation
    }

    /// Revokes an open invitation.
    public mutating func revokeInvitation(
        _ id: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        var invitation = try self.invitation(id, for: principal)
        guard invitation.state(at: context.now) == .open else { throw .conflict("the invitation is \(invitation.state(at: context.now).rawValue)") }
        invitation.state = .revoked
        saveInvitation(invitation, action: "revoked", context: context, changes: &changes)
        return invitation
    }

    /// A visitor's device redeems a PIN or link token of its account: the visitor joins the conversation
    /// (as its context person when it has none yet, else as a secondary visitor).
    /// - Parameter guessBudgetSpent: Whether the account has seen so many failed redemptions since a
    ///   time that a PIN open since then no longer redeems (``RedemptionAttempts/isBudgetSpent(accountId:since:)``);
    ///   such a PIN answers like a wrong one, so the answer tells a guesser nothing.
    public mutating func redeemInvitation(
        token: String, personId: String, accountId: String, guessBudgetSpent: (Timestamp) -> Bool = { _ in false }, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var invitation = try redeemableInvitation(token: token, accountId: accountId, guessBudgetSpent: guessBudgetSpent, now: context.now)
        var conversation = try ownConversation(invitation.conversationId, accountId: accountId)
        guard conversation.state != .ended, conversation.state != .offboarding else { throw .conflict("the conversation has ended") }
        if !conversation.isParticipant(personId) {
            let type: ParticipationType = conversation.participants.contains { $0.type == .contextPerson } ? .secondaryVisitor : .contextPerson
            let participation = Participation(personId: personId, type: type, joinedTimestamp: context.now)
            try add(participation, to: &conversation, context: context, changes: &changes)
        }
        invitation.state = .redeemed
        invitation.redeemingPersonId = personId
        saveInvitation(invitation, action: "redeemed", context: context, changes: &changes)
        return conversation
    }

    /// The open visitor invitation (by PIN or by link) of `accountId` that `token` redeems: what a visitor's
    /// redemption and `invitations/getAcceptLink` look up. Agent invitations and assignment requests are
    /// never redeemed by token.
    /// - Parameter guessBudgetSpent: See ``redeemInvitation(token:personId:accountId:guessBudgetSpent:context:changes:)``.
    /// - Throws: `notFound` alike for an unknown, used, revoked or expired token, another account's, and a
    ///   PIN whose guess budget is spent, so the answer tells a guesser nothing.
    public func redeemableInvitation(
        token: String, accountId: String, guessBudgetSpent: (Timestamp) -> Bool = { _ in false }, now: Timestamp
    ) throws(CollabError) -> Invitation {
        guard token.utf8.count <= Limits.nameLength, let invitation = invitations.rows(Indexes.invitationByOpenToken, token).first,
            invitation.accountId == accountId, invitation.kind == .pin || invitation.kind == .visitorLink, invitation.state(at: now) == .open,
            invitation.kind != .pin || !guessBudgetSpent(invitation.validSince)
        else {
            throw CollabError(.notFound, "no open invitation has this PIN or link")
        }
        return invitation
    }

    /// Puts a conversation back into its queue with an assignment request (the vendor's
    /// `invitations/requeueConversation`), for conversations a visitor asked for. `removal`:
    /// `KEEP_AGENTS` (the assigned agent stays, as a secondary agent), `REMOVE_ASSIGNED_AGENT`,
    /// `REMOVE_ALL_AGENTS`.
    public mutating func requeueWithAssignmentRequest(
        _ conversationId: String, removal: String, creatorPersonId: String?, for principal: Principal, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Invitation {
        guard ["KEEP_AGENTS", "REMOVE_ASSIGNED_AGENT", "REMOVE_ALL_AGENTS"].contains(removal) else {
            throw .badRequest("agentRemovalType must be KEEP_AGENTS, REMOVE_ASSIGNED_AGENT or REMOVE_ALL_AGENTS")
        }
        var conversation = try self.conversation(conversationId, for: principal)
        guard conversation.initialEngagementType.rawValue.hasSuffix("_REQUEST") else {
            throw .badRequest("only conversations a visitor requested can be requeued; this one is \(conversation.initialEngagementType.rawValue)")
        }
        guard conversation.state == .active || conversation.state == .unassigned else {
            throw .conflict("conversation \(conversationId) is \(conversation.state.rawValue) and cannot be requeued")
        }
        for index in conversation.participants.indices where conversation.participants[index].state != .ended {
            switch (conversation.participants[index].type, removal) {
            case (.assignedAgent, "KEEP_AGENTS"):
                conversation.participants[index].type = .secondaryAgent
            case (.assignedAgent, _), (.secondaryAgent, "REMOVE_ALL_AGENTS"):
                conversation.participants[index].state = .ended
                conversation.participants[index].leftTimestamp = context.now
                conversation.participants[index].leftReason = "CONVERSATION_REQUEUED"
            default:
                break
            }
        }
        try conversation.move(to: .queued, at: context.now)
        conversation.assigneeJoinTimestamp = nil
        conversation.declinedBy = []
        save(conversation, context: context, changes: &changes)
        emit(.conversationRequeued, conversation, queue: [conversation.recipient], context: context, changes: &changes)
        var invitation = Invitation(
            id: context.ids.make(), accountId: conversation.accountId, kind: .assignmentRequest, conversationId: conversationId,
            token: context.ids.makeSecret(), creatorPersonId: creatorPersonId, nickname: nil, createdTimestamp: context.now,
            expirationTimestamp: Timestamp.max
        )
        invitation.targetType = conversation.recipient.type.rawValue
        invitation.targetId = conversation.recipient.id
        saveInvitation(invitation, action: "created", context: context, changes: &changes)
        return invitation
    }

    /// The agent who accepts a queued conversation redeems its open assignment requests and the team
    /// forwarding that put it in a team's queue.
    mutating func redeemAssignmentRequests(conversationId: String, agentPersonId: String, context: OperationContext, changes: inout ChangeSet) {
        for var invitation in invitations.rows(Indexes.invitationByConversation, conversationId) where invitation.state == .open {
            guard invitation.kind == .assignmentRequest || invitation.kind == .agentForwarding && invitation.targetType == "TEAM" else { continue }
            invitation.state = .redeemed
            invitation.redeemingPersonId = agentPersonId
            saveInvitation(invitation, action: "redeemed", context: context, changes: &changes)
        }
    }

    /// The conversation ends: its open invitations can no longer be redeemed or accepted. Those still valid
    /// are revoked, those past their expiry stored EXPIRED (as they read), so none stays among the open
    /// ones an agent's list, a PIN look-up or an OPEN search reads. Each change is told as a revocation is.
    mutating func closeInvitations(ofEndingConversation conversationId: String, context: OperationContext, changes: inout ChangeSet) {
        let open = invitations.rows(Indexes.invitationByConversation, conversationId).filter { $0.state == .open }
        for var invitation in open.sorted(by: { $0.id < $1.id }) {
            let expired = invitation.state(at: context.now) == .expired
            invitation.state = expired ? .expired : .revoked
            saveInvitation(
                invitation, action: expired ? "expired" : "revoked", detail: ["reason": "conversation ended"], context: context, changes: &changes)
        }
    }

    /// Deletes the invitations of a conversation being deleted.
    mutating func removeInvitations(ofConversation conversationId: String, changes: inout ChangeSet) {
        for id in invitations.ids(Indexes.invitationByConversation, conversationId).sorted() {
            invitations.removeValue(forKey: id)
            changes.delete(.invitation, id)
        }
    }

    /// Makes room for a new invitation of `conversationId`: at ``Invitation/maxPerConversation`` the
    /// oldest closed ones go, so inviting and revoking in a loop does not grow the conversation's list.
    mutating func makeRoomForInvitation(in conversationId: String, now: Timestamp, changes: inout ChangeSet) {
        let kept = invitations.rows(Indexes.invitationByConversation, conversationId)
        guard kept.count >= Invitation.maxPerConversation else { return }
        let closed = kept.filter { $0.state(at: now) != .open }.sorted { ($0.createdTimestamp, $0.id) < ($1.createdTimestamp, $1.id) }
        for old in closed.prefix(kept.count - Invitation.maxPerConversation + 1) {
            invitations.removeValue(forKey: old.id)
            changes.delete(.invitation, old.id)
        }
    }

    mutating func saveInvitation(
        _ invitation: Invitation, action: String, detail: [String: String] = [:], context: OperationContext, changes: inout ChangeSet
    ) {
        if invitations[invitation.id] == nil { makeRoomForInvitation(in: invitation.conversationId, now: context.now, changes: &changes) }
        let before = inboundAddressees(invitations[invitation.id], now: context.now)
        let after = inboundAddressees(invitation, now: context.now)
        invitations[invitation.id] = invitation
        notifyInvitationChange(from: before, to: after, invitation, context: context, changes: &changes)
        changes.put(invitation)
        let detail = detail.merging(["action": action]) { _, action in action }
        var event = DomainEvent(kind: .invitationChanged, accountId: invitation.accountId, timestamp: context.now, detail: detail)
        event.conversation = conversations[invitation.conversationId]
        event.invitation = invitation
        // A team's invitation reaches the agents whose queue shows the team.
        if invitation.targetType == "TEAM", let teamId = invitation.targetId {
            event.queueRecipients = [ConversationRecipient(type: .team, id: teamId)]
        }
        changes.emit(event)
    }

    /// A token no open invitation holds: six digits for a PIN, a secret for a link.
    private func freshToken(_ kind: Invitation.Kind, context: OperationContext) -> String {
        guard kind == .pin else { return context.ids.makeSecret() }
        for _ in 0..<20 {
            let pin = context.ids.makeDigits(6)
            if invitations.count(Indexes.invitationByOpenToken, pin) == 0 { return pin }
        }
        // A million PINs and twenty misses: the account holds an implausible number of open PINs.
        return context.ids.makeDigits(9)
    }
}

extension SearchSchemas {
    /// `EConversationInvitationSearchFilterField`, as far as the mock models them.
    public static let invitation = SearchSchema<Invitation>("ConversationInvitation", [
        "ID": { .of($0.id) },
        "CONVERSATION_ID": { .of($0.conversationId) },
        "INVITATION_TYPE": { .of($0.kind.rawValue) },
        "TYPE": { .of($0.kind.rawValue) },
        "INVITATION_STATE": { .of($0.state.rawValue) },
        "TARGET_TYPE": { .of($0.targetType ?? "ANONYMOUS") },
        "TARGET_ID": { .of($0.targetId) },
        "CREATOR_TYPE": { _ in .string("WEB_API") },
        "CREATOR_PERSON_ID": { .of($0.creatorPersonId) },
        "CREATOR_ID": { .of($0.creatorPersonId) },
        "REDEEMING_PERSON_ID": { .of($0.redeemingPersonId) },
        "REDEEMER_PERSON_ID": { .of($0.redeemingPersonId) },
        "CREATION_TIMESTAMP": { .of($0.createdTimestamp) },
        "EXPIRATION_TIMESTAMP": { .of($0.expirationTimestamp) },
    ])
}
