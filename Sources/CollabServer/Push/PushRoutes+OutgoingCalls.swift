import CollabCore
import CollabWire
import Hummingbird

/// Calls a visitor starts (the app's outgoing call, which the SDK reports to CallKit with
/// `reportOutgoingCall`): the visitor rings the conversation's assigned agent, who answers or
/// declines on the agent API (at the desk, or from an agent's app that rang by VoIP); unanswered, the
/// call becomes missed on the server clock.
extension PushRoutes {
    /// The visitor's side: `conversations/{id}/calls` on the mobile API.
    func registerOutgoingCall(on mobile: RouterGroup<CollabRequestContext>) {
        let env = environment
        mobile.post("conversations/:id/calls") { request, context in
            let session = try env.client(context)
            return try await env.startCall(request, context: context, personId: session.personId, accountId: session.accountId)
        }
    }
}

extension CollabEnvironment {
    /// Starts a call in the conversation the path names, `personId` calling (an agent, or the visitor's
    /// outgoing call): `201` with the call as the caller sees it.
    func startCall(_ request: Request, context: CollabRequestContext, personId: String, accountId: String) async throws -> Response {
        let id = try context.pathParameter("id")
        let body = try await decode(StartCallRequest.self, from: request)
        let type = try parseCallType(body.callType)
        let timeout = configuration.callTimeout
        let call = try await write(context.principal) { state, changes, op throws(CollabError) in
            try state.startCall(
                conversationId: id, initiatorPersonId: personId, callType: type, timeout: timeout, accountId: accountId, context: op,
                changes: &changes
            )
        }
        return JSONBody.response(CallView(call, viewer: personId), status: .created)
    }
}

/// The call id of a `calls/:id` route: a UUID (see ``CallID``) in either case, answered in the canonical
/// upper case the server issues (Kotlin's and Python's UUIDs print lower case); else a 400 that changes
/// nothing.
func callId(_ context: CollabRequestContext) throws(CollabError) -> String {
    guard let id = CallID.canonical(try context.pathParameter("id")) else {
        throw .badRequest("call ids are UUIDs (8-4-4-4-12 hexadecimal digits)")
    }
    return id
}
