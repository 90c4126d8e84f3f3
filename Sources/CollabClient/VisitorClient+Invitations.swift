public import CollabWire

extension VisitorClient {
    /// Redeems a PIN or an invitation link's token: the visitor joins that conversation.
    /// - Parameter token: The PIN (six digits) or the link invitation's token.
    /// - Returns: The conversation joined.
    public func redeemInvitation(_ token: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/mobile/v1/invitations/redeem", body: ["token": token])
    }
}
