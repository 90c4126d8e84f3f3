import CollabCore
import CollabWire
import Hummingbird

/// `GET /agent/v1/invitations` (the open invitations addressed to the caller: agent invitations,
/// forwardings, deputy delegations and assignment requests) and `POST /agent/v1/invitations/{id}/accept`.
struct AgentInvitationRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.get("invitations") { _, context in
            let agent = try env.agent(context)
            let now = env.clock.now()
            let list = try env.read(account: agent.accountId) { state in
                AgentInvitationList(invitations: state.openInvitations(forAgent: agent.personId, now: now).map {
                    AgentInvitationView(
                        id: $0.id, type: $0.kind.rawValue, conversationId: $0.conversationId, comment: $0.comment, createdAt: $0.createdTimestamp)
                })
            }
            return JSONBody.response(list)
        }
        group.post("invitations/:id/accept") { _, context in
            let agent = try env.agent(context)
            let id = try context.pathParameter("id")
            let view = try await env.write(account: agent.accountId) { state, changes, op throws(CollabError) in
                state.view(
                    try state.acceptAgentInvitation(id, agentPersonId: agent.personId, accountId: agent.accountId, context: op, changes: &changes),
                    for: .agent
                )
            }
            return JSONBody.response(view)
        }
    }
}
