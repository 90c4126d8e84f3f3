import CollabCore
import CollabWire
import Hummingbird

/// `POST /mobile/v1/invitations/redeem`: a started client redeems a PIN or link token of its account
/// and its visitor joins the conversation. The token comes in the body, or in the query as in the link
/// `invitations/getAcceptLink` hands out. Wrong tokens are limited per client address, per account
/// and per PIN (``RedemptionGuard``, shared with the Web API); beyond a limit the answer is 429 with
/// `Retry-After`.
struct MobileInvitationRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let redemptions = env.redemptions
        group.post("invitations/redeem") { request, context in
            let session = try env.client(context)
            let body = try await env.decode(RedeemInvitationRequest?.self, fromOptional: request)
            guard let token = body?.token ?? request.query("token"), !token.isEmpty else { throw CollabError.badRequest("token is required") }
            let accountId = session.accountId
            let address = RedemptionGuard.addressKey(context.channel.remoteAddress)
            let conversation = try await redemptions.redeem(accountId: accountId, address: address) {
                try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    let conversation = try state.redeemInvitation(
                        token: token, personId: session.personId, accountId: accountId,
                        guessBudgetSpent: { redemptions.isBudgetSpent(accountId: accountId, since: $0) }, context: op, changes: &changes
                    )
                    return state.view(conversation, for: .visitor)
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
