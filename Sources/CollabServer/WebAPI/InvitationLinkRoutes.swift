import CollabCore
import Foundation
import Hummingbird

/// `invitations/getAcceptLink`: the link by which a visitor accepts a PIN or link invitation, for a
/// token the caller holds (anonymous callers name their account with `?apiKey=`). The token is tried
/// under the same guessing limits as the mobile API's redemption (``CollabEnvironment/redemptions``):
/// one budget per account, whichever surface the guesses come through.
///
/// The link (`ACCEPT_IN_VISITOR_DESK`; MockCollab has no visitor desk) is the mobile API's redemption
/// with the token in its query, built on the public URL: a started visitor app that follows it with a
/// `POST` and its own credentials joins the conversation.
struct InvitationLinkRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "getAcceptLink", role: .anonymousUser) { request, context in
            let body = try await env.decode(WebAcceptLinkBody.self, from: request)
            let token = try Limits.checkName(body.token, field: "token")
            let accountId = try env.accountId(apiKey: request.query("apiKey"), caller: context.principal)
            let redemptions = env.redemptions
            let address = RedemptionGuard.addressKey(context.channel.remoteAddress)
            let now = env.clock.now()
            let invitation = try await redemptions.redeem(accountId: accountId, address: address) {
                try env.read(account: accountId) { state throws(CollabError) in
                    try state.redeemableInvitation(
                        token: token, accountId: accountId, guessBudgetSpent: { redemptions.isBudgetSpent(accountId: accountId, since: $0) }, now: now
                    )
                }
            }
            let link = WebConversationLink(type: "ACCEPT_IN_VISITOR_DESK", url: Self.acceptURL(base: env.publicURL.base, token: invitation.token))
            return JSONBody.response(
                WebAcceptLinkData(
                    accountId: invitation.accountId, conversationId: invitation.conversationId, links: [link],
                    expirationTimestamp: invitation.expirationTimestamp
                )
            )
        }
    }

    /// Where a visitor app accepts an invitation: `POST` with its bearer token redeems `token`.
    static func acceptURL(base: String, token: String) -> String {
        let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
        return "\(base)/mobile/v1/invitations/redeem?token=\(escaped)"
    }
}

extension CollabEnvironment {
    /// The account an operation open to anonymous callers works in: the one of `apiKey` when given (the
    /// vendor's `apiKey` query parameter), else the caller's own.
    /// - Throws: `invalidApiKey` for an unknown key; `badRequest` naming `apiKey` for an anonymous caller
    ///   without one.
    func accountId(apiKey: String?, caller principal: Principal) throws(CollabError) -> String {
        if let apiKey {
            guard apiKey.utf8.count <= Limits.nameLength, let owner = accountId(for: .apiKey(apiKey)) else {
                throw CollabError(.invalidApiKey, "unknown API key")
            }
            return owner
        }
        guard let own = principal.accountId else { throw .badRequest("apiKey is required for anonymous callers") }
        return own
    }
}

/// `InvitationsGetAcceptLinkBody`.
struct WebAcceptLinkBody: Codable, Sendable {
    var token: String?
}

/// `ConversationLink`.
struct WebConversationLink: Codable, Sendable {
    var type: String
    var url: String
    var schemaType = "ConversationLink"

    enum CodingKeys: String, CodingKey {
        case schemaType = "$_type", type, url
    }
}

/// `AcceptLinkData`.
struct WebAcceptLinkData: Codable, Sendable {
    var schemaType = "AcceptLinkData"
    var accountId: String
    var conversationId: String
    var links: [WebConversationLink]
    var expirationTimestamp: Int64

    enum CodingKeys: String, CodingKey {
        case schemaType = "$_type", accountId, conversationId, links, expirationTimestamp
    }
}
