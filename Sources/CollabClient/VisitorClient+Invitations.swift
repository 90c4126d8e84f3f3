public import CollabWire
public import Foundation

extension VisitorClient {
    /// Redeems a PIN or an invitation link's token: the visitor joins that conversation.
    /// - Parameter token: The PIN (six digits) or the link invitation's token.
    /// - Returns: The conversation joined.
    public func redeemInvitation(_ token: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/mobile/v1/invitations/redeem", body: ["token": token])
    }

    /// Follows an accept link of the Web API's `invitations/getAcceptLink`: the visitor joins that
    /// conversation. The link's path and query go to the server this client is configured for, never to
    /// the link's host, so the client's credentials stay with its own server.
    /// - Parameter link: The link's `url`.
    /// - Returns: The conversation joined.
    /// - Throws: `badRequest` for a link that is not a MockCollab accept link.
    public func acceptInvitation(link: URL) async throws(CollabClientError) -> ConversationView {
        let components = URLComponents(url: link, resolvingAgainstBaseURL: false)
        guard let components, components.path.hasSuffix("/mobile/v1/invitations/redeem"),
            let token = components.queryItems?.first(where: { $0.name == "token" })?.value
        else { throw CollabClientError(code: .badRequest, status: nil, message: "not an invitation accept link: \(link.path)") }
        return try await transport.send("POST", "/mobile/v1/invitations/redeem", query: [("token", token)])
    }
}
