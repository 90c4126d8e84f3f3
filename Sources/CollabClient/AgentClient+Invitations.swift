public import CollabWire

extension AgentClient {
    /// The open agent invitations and forwardings addressed to this agent.
    public func invitations() async throws(CollabClientError) -> [AgentInvitationView] {
        let list: AgentInvitationList = try await transport.send("GET", "/agent/v1/invitations")
        return list.invitations
    }

    /// Accepts an invitation (join the conversation as a secondary agent), a forwarding (become its
    /// assigned agent) or an assignment request (accept the requeued conversation from the queue).
    @discardableResult
    public func acceptInvitation(_ id: String) async throws(CollabClientError) -> ConversationView {
        try await transport.send("POST", "/agent/v1/invitations/\(id)/accept")
    }
}
