import CollabCore

/// Who acts on a call: a started app (its person, and the device it runs on), an agent at the desk, or
/// an app that holds the call's device credential from its VoIP push and has not started (the SDK's
/// locked-phone answer through CallKit).
struct CallParty: Sendable {
    var accountId: String
    var personId: String
    /// The app's own device id; an answer from it revokes the call on the person's other devices.
    var deviceId: String?
    /// The device record a call credential was made for; `nil` for a started app or the desk.
    var credentialDevice: String?

    /// Refuses a credential whose device the call was answered elsewhere than: once another device
    /// took the call (and this one was sent its revoke), this device's credential no longer acts on it
    /// (a CallKit clean-up there must not hang up the call the user is in).
    func check(_ call: Call) throws(CollabError) {
        guard let credentialDevice, let answered = call.answeredDeviceId, answered != credentialDevice else { return }
        throw .forbidden("the call was answered on another device: this device's call credential no longer acts on it")
    }
}

/// A call's device credential checked against its call: what it names, and whose device it went to,
/// which decides the API it acts on.
struct CheckedCallCredential: Sendable {
    var claims: CallCredential.Claims
    /// Whether the device is an agent's (the credential acts on `/agent/v1`), else a visitor's (`/mobile/v1`).
    var isAgent: Bool
}

extension CollabEnvironment {
    /// The visitor's side of call `id`: a started visitor's app, or the call's device credential.
    func visitorCallParty(_ context: CollabRequestContext, call id: String) throws(CollabError) -> CallParty {
        if let party = try credentialParty(context, call: id, agent: false) { return party }
        let session = try client(context)
        return CallParty(accountId: session.accountId, personId: session.personId, deviceId: session.deviceId)
    }

    /// The agent's side of call `id`: an agent's app (with its device), an agent at the desk, or the
    /// call's device credential.
    func agentCallParty(_ context: CollabRequestContext, call id: String) throws(CollabError) -> CallParty {
        if let party = try credentialParty(context, call: id, agent: true) { return party }
        let agent = try agent(context)
        return CallParty(accountId: agent.accountId, personId: agent.personId, deviceId: context.client?.deviceId)
    }

    /// The party a call credential names; `nil` without one. A credential acts on its own call only,
    /// and on its own side's API: a visitor's device's on `/mobile/v1`, an agent's app's on `/agent/v1`.
    private func credentialParty(_ context: CollabRequestContext, call id: String, agent: Bool) throws(CollabError) -> CallParty? {
        guard context.principal.method == .callCredential, let credential = context.callCredential, let personId = context.principal.personId
        else { return nil }
        let claims = credential.claims
        guard credential.isAgent == agent else {
            throw .unauthorized(
                agent
                    ? "a visitor's call credential is for the device API (/mobile/v1)"
                    : "an agent's call credential is for the agent API (/agent/v1)")
        }
        guard claims.callId == id else { throw .forbidden("this call credential is for another call") }
        let deviceId = claims.deviceRecordId.split(separator: ":", maxSplits: 1).dropFirst().first.map(String.init)
        return CallParty(accountId: claims.accountId, personId: personId, deviceId: deviceId, credentialDevice: claims.deviceRecordId)
    }
}
