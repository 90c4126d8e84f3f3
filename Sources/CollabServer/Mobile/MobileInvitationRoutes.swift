import CollabCore
import CollabWire
import Hummingbird

/// `POST /mobile/v1/invitations/redeem`: a started client redeems a PIN or link token of its account
/// and its visitor joins the conversation. Wrong tokens are limited per client address, per account
/// and per PIN (``RedemptionGuard``); beyond a limit the answer is 429 with `Retry-After`.
struct MobileInvitationRoutes {
    let environment: CollabEnvironment
    let redemptions: RedemptionGuard

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let redemptions = redemptions
        group.post("invitations/redeem") { request, context in
            let session = try env.client(context)
            let body = try await env.decode(RedeemInvitationRequest.self, from: request)
            guard let token = body.token, !token.isEmpty else { throw CollabError.badRequest("token is required") }
            let accountId = session.accountId
            let address = RedemptionGuard.addressKey(context.channel.remoteAddress)
            let conversation = try await redemptions.redeem(accountId: accountId, address: address) {
                try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    let conversation = try state.redeemInvitation(
                        token: token, personId: session.personId, accountId: accountId,
                        guessBudgetSpent: { redemptions.isBudgetSpent(accountId: accountId, since: $0) }, context: op, changes: &changes
                    )
                    return state.view(conversation)
                }
            }
            return JSONBody.response(conversation)
        }
    }
}

/// The body of `POST /mobile/v1/invitations/redeem`.
struct RedeemInvitationRequest: Codable, Sendable {
    /// The PIN or the link invitation's token.
    var token: String?
}
