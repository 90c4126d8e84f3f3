import CollabCore
import Hummingbird

/// `invitations/{invitationId}/addSecondaryInvitationTarget`, `…/cancelSecondaryInvitationTarget` and
/// `invitations/startDeputyDelegation`: more agents an invitation is offered to, and the delegation of a
/// conversation to its assigned agent's deputies (`AccountState.startDeputyDelegation`).
struct InvitationTargetRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        for (path, add) in [(":invitationId/addSecondaryInvitationTarget", true), (":invitationId/cancelSecondaryInvitationTarget", false)] {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                let id = try context.pathParameter("invitationId")
                let body = try await env.decode(WebSecondaryTargetBody.self, from: request)
                let personId = try Limits.checkName(body.personId, field: "personId")
                let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    add
                        ? try state.addSecondaryTarget(id, personId: personId, for: context.principal, context: op, changes: &changes)
                        : try state.cancelSecondaryTarget(id, personId: personId, for: context.principal, context: op, changes: &changes)
                }
                return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
            }
        }
        group.operation(.post, "startDeputyDelegation", role: .admin) { request, context in
            let body = try await env.decode(WebDeputyDelegationBody.self, from: request)
            let conversationId = try Limits.checkName(body.conversationId, field: "conversationId")
            let invitation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.startDeputyDelegation(
                    conversationId: conversationId, level: body.delegationLevel ?? "LEVEL_1", joinHidden: body.joinDeputyHidden ?? false,
                    creatorPersonId: context.principal.personId, for: context.principal, context: op, changes: &changes
                )
            }
            return JSONBody.response(WebInvitation(invitation, now: env.clock.now()))
        }
    }
}

/// `InvitationsAddSecondaryInvitationTargetBody` / `InvitationsCancelSecondaryInvitationTargetBody`.
struct WebSecondaryTargetBody: Codable, Sendable {
    var personId: String?
}

/// `InvitationsStartDeputyDelegationBody`.
struct WebDeputyDelegationBody: Codable, Sendable {
    var conversationId: String?
    var joinDeputyHidden: Bool?
    /// `EDeputyDelegationEscalationLevel`; MockCollab starts at LEVEL_1 when it is left out.
    var delegationLevel: String?
}
