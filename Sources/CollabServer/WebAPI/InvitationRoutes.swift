import CollabCore
import CollabWire
import Hummingbird

/// `/invitations/…` for anonymous visitors: `inviteAnonymousVisitorToConversationWithPin`,
/// `…WithLink`, `read`, `search`, `revoke`, `renewPin`. A visitor's device redeems the PIN or the
/// link's token with `POST /mobile/v1/invitations/redeem`.
struct InvitationRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let visitorInvitations: [(String, Invitation.Kind, byEmail: Bool)] = [
            ("inviteAnonymousVisitorToConversationWithPin", .pin, false), ("inviteAnonymousVisitorToConversationWithLink", .visitorLink, false),
            ("inviteAnonymousVisitorToConversationWithEmail", .visitorLink, true),
        ]
        for (path, kind, byEmail) in visitorInvitations {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                let body = try await env.decode(WebInviteVisitorBody.self, from: request)
                guard let conversationId = body.conversationId, !conversationId.isEmpty else {
                    throw CollabError.badRequest("conversationId is required")
                }
                let email = byEmail ? try Invitation.checkEmail(body.email) : nil
                let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.inviteAnonymousVisitor(
                        kind, conversationId: conversationId, nickname: body.nickname, email: email, creatorPersonId: context.principal.personId,
                        for: context.principal, context: op, changes: &changes
                    )
                }
                if let email {
                    let path = "/invitations/\(invitation.id)"
                    env.journalMail(about: path, to: email, accountId: invitation.accountId, userId: context.principal.userId)
                }
                return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
            }
        }
        for (path, kind) in [("inviteAgentToConversation", Invitation.Kind.agentInvitation), ("forwardConversationToAgent", .agentForwarding)] {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                let body = try await env.decode(WebInviteAgentBody.self, from: request)
                guard let conversationId = body.conversationId, !conversationId.isEmpty else {
                    throw CollabError.badRequest("conversationId is required")
                }
                guard let agentPersonId = body.agentPersonId, !agentPersonId.isEmpty else {
                    throw CollabError.badRequest("agentPersonId is required")
                }
                let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.inviteAgent(
                        kind, conversationId: conversationId, agentPersonId: agentPersonId, comment: body.comment,
                        joinHidden: body.joinHidden ?? false, creatorPersonId: context.principal.personId, for: context.principal, context: op,
                        changes: &changes
                    )
                }
                return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
            }
        }
        for (path, kind) in [("inviteTeamToConversation", Invitation.Kind.agentInvitation), ("forwardConversationToTeam", .agentForwarding)] {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                let body = try await env.decode(WebInviteTeamBody.self, from: request)
                let conversationId = try Limits.checkName(body.conversationId, field: "conversationId")
                let teamId = try Limits.checkName(body.teamId, field: "teamId")
                let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.inviteTeam(
                        kind, conversationId: conversationId, teamId: teamId, comment: body.comment, joinHidden: body.joinHidden ?? false,
                        creatorPersonId: context.principal.personId, for: context.principal, context: op, changes: &changes
                    )
                }
                return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
            }
        }
        group.operation(.post, "requeueConversation", role: .admin) { request, context in
            let body = try await env.decode(WebRequeueBody.self, from: request)
            guard let conversationId = body.conversationId, !conversationId.isEmpty else {
                throw CollabError.badRequest("conversationId is required")
            }
            let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.requeueWithAssignmentRequest(
                    conversationId, removal: body.agentRemovalType ?? "REMOVE_ASSIGNED_AGENT", creatorPersonId: context.principal.personId,
                    for: context.principal, context: op, changes: &changes
                )
            }
            return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
        }
        group.operation(.get, ":invitationId/read", role: .admin) { _, context in
            let id = try context.pathParameter("invitationId")
            let invitation = try env.read(context.principal) { state throws(CollabError) in try state.invitation(id, for: context.principal) }
            return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
        }
        group.searchOperation(role: .admin, queryType: "ConversationInvitationQuery", environment: env) {
            state, query, _, context throws(CollabError) in
            let now = env.clock.now()
            let page = try state.searchInvitations(query, now: now, for: context.principal)
            return page.webResult("ConversationInvitationResult", offset: query.offset) { WebInvitation($0, now: now) }
        }
        group.operation(.post, ":invitationId/revoke", role: .admin) { _, context in
            let id = try context.pathParameter("invitationId")
            let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.revokeInvitation(id, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
        }
        group.operation(.post, ":invitationId/renewPin", role: .admin) { _, context in
            let id = try context.pathParameter("invitationId")
            let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.renewPin(id, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
        }
    }
}

/// `InvitationsInviteAgentToConversationBody` / `InvitationsForwardConversationToAgentBody`.
struct WebInviteAgentBody: Codable, Sendable {
    var conversationId: String?
    var agentPersonId: String?
    var comment: String?
    var joinHidden: Bool?
}

/// `InvitationsInviteTeamToConversationBody` / `InvitationsForwardConversationToTeamBody`.
struct WebInviteTeamBody: Codable, Sendable {
    var conversationId: String?
    var teamId: String?
    var comment: String?
    var joinHidden: Bool?
}

/// `InvitationsRequeueConversationBody`.
struct WebRequeueBody: Codable, Sendable {
    var conversationId: String?
    var agentRemovalType: String?
}

/// `InvitationsInviteAnonymousVisitorToConversationWithPinBody` / `…WithLinkBody`.
struct WebInviteVisitorBody: Codable, Sendable {
    var conversationId: String?
    var nickname: String?
    /// `…WithEmail` only.
    var email: String?
}

/// `ConversationInvitationData`.
struct WebInvitation: Codable, Sendable {
    var type = "ConversationInvitationData"
    var accountId: String
    var invitationType: String
    var invitationState: String
    var id: String
    var conversationId: String
    var token: String
    var createdTimestamp: Int64
    var creatorType = "WEB_API"
    var creatorPersonId: String?
    var targetType: String
    var targetId: String?
    var redeemingPersonId: String?
    var nickname: String?
    var comment: String?
    var joinHidden: Bool?
    var secondaryInvitationTargets: [WebSecondaryTarget]?
    var expirationTimestamp: Int64?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", accountId, invitationType, invitationState, id, conversationId, token, createdTimestamp, creatorType, creatorPersonId
        case targetType, targetId, redeemingPersonId, nickname, comment, joinHidden, secondaryInvitationTargets, expirationTimestamp
    }

    init(_ invitation: Invitation, now: Int64) {
        accountId = invitation.accountId
        invitationType = invitation.kind.rawValue
        invitationState = invitation.state(at: now).rawValue
        id = invitation.id
        conversationId = invitation.conversationId
        token = invitation.token
        createdTimestamp = invitation.createdTimestamp
        creatorPersonId = invitation.creatorPersonId
        targetType = invitation.targetType ?? "ANONYMOUS"
        targetId = invitation.targetId
        redeemingPersonId = invitation.redeemingPersonId
        nickname = invitation.nickname
        comment = invitation.comment
        joinHidden = invitation.joinHidden
        secondaryInvitationTargets = invitation.secondaryTargets?.map {
            WebSecondaryTarget(personId: $0.personId, responseState: $0.responseState.rawValue)
        }
        // Only visitor invitations expire; the others wait until they are taken or revoked.
        expirationTimestamp = invitation.kind == .pin || invitation.kind == .visitorLink ? invitation.expirationTimestamp : nil
    }
}

/// `ConversationInvitationSecondaryTargetData`.
struct WebSecondaryTarget: Codable, Sendable {
    var type = "ConversationInvitationSecondaryTargetData"
    var personId: String
    var responseState: String

    enum CodingKeys: String, CodingKey {
        case type = "$_type", personId, responseState
    }
}

/// The fields of the vendor's `Pin*Event` and `VisitorInvitation*Event` bodies, after the ``VendorEvent`` header.
struct InvitationEventFields: Encodable {
    var invitationId: String
    var conversation: WebConversation?
    var token: String
    var creationTimestamp: Int64
    var creatorType = "WEB_API"
    var creatorPerson: WebPerson?
    var nickname: String?
    var expirationTimestamp: Int64?
    var redeemingPerson: WebPerson?
    var target: InvitationTarget?
    var comment: String?
    var joinHidden: Bool?
}

/// `AgentTargetData`: the agent (`PersonData`) or team (`TeamData`) an agent invitation is addressed to.
enum InvitationTarget: Encodable {
    case person(WebPerson)
    case team(WebRecipient)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .person(let person): try person.encode(to: encoder)
        case .team(let team): try team.encode(to: encoder)
        }
    }
}

extension AccountState {
    /// The target of an agent invitation addressed to `type` (`AGENT` or `TEAM`) `id`, if it still exists.
    func invitationTarget(type: String?, id: String) -> InvitationTarget? {
        if type == "TEAM" {
            return declared.table(Team.self)[id].map { .team(webRecipient(ConversationRecipient(type: .team, id: $0.id), accountId: $0.accountId)) }
        }
        return persons[id].map { .person(WebPerson($0, expand: Expansion())) }
    }
}
