import CollabCore

/// Who acts on a call: a started app (its person, and the device it runs on), an agent at the desk, or
/// an app that holds the call's device credential from its VoIP push and has not started (the SDK's
/// locked-phone answer through CallKit).
struct CallParty: Sendable {
    var accountId: String
    var personId: String
    /// The app's own device id; an answer from it revokes the call on the person's other devices.
    var deviceId: String?
}

extension CollabEnvironment {
    /// The visitor's side of call `id`: a started visitor's app, or the call's device credential.
    func visitorCallParty(_ context: CollabRequestContext, call id: String) throws(CollabError) -> CallParty {
        if let party = try credentialParty(context, call: id) { return party }
        let session = try client(context)
        return CallParty(accountId: session.accountId, personId: session.personId, deviceId: session.deviceId)
    }

    /// The agent's side of call `id`: an agent's app (with its device), an agent at the desk, or the
    /// call's device credential.
    func agentCallParty(_ context: CollabRequestContext, call id: String) throws(CollabError) -> CallParty {
        if let party = try credentialParty(context, call: id) { return party }
        let agent = try agent(context)
        return CallParty(accountId: agent.accountId, personId: agent.personId, deviceId: context.client?.deviceId)
    }

    /// The party a call credential names; `nil` without one. A credential acts on its own call only.
    private func credentialParty(_ context: CollabRequestContext, call id: String) throws(CollabError) -> CallParty? {
        guard context.principal.method == .callCredential, let claims = context.callCredential, let personId = context.principal.personId else {
            return nil
        }
        guard claims.callId == id else { throw .forbidden("this call credential is for another call") }
        let deviceId = claims.deviceRecordId.split(separator: ":", maxSplits: 1).dropFirst().first.map(String.init)
        return CallParty(accountId: claims.accountId, personId: personId, deviceId: deviceId)
    }
}
