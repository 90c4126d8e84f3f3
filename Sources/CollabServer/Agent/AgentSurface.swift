import CollabCore
import Hummingbird

extension Surface {
    /// The agent API: the session token from `login` (bearer, or `?token=` on the sockets), HTTP Basic,
    /// the Web API session cookie (the console), a started agent app's token, an incoming call's device
    /// credential on the call routes, the account's token cookie where an agent app starts; the typed
    /// error body. Only `login` and starting an app are open, so the agent role is checked per operation.
    static let agent = Surface(
        faultName: "AGENT", credentials: [.basic, .session, .agentClient, .callCredential, .accountCookie, .socketToken], errors: .typed
    )
}

/// The agent API under `/agent/v1`, for the agent client and the web console, registered here in one
/// place: the route files of the other concerns each give their agent part.
struct AgentSurface {
    let environment: CollabEnvironment
    /// Message interceptors, asked before an agent's message is stored.
    let messages: MessageReview
    /// Upload interceptors, asked before an agent's file is stored.
    let files: FileReview

    func register(on router: Router<CollabRequestContext>, stack: SurfaceStack) {
        let env = environment
        let routes = stack.routes(.agent, under: "agent/v1", on: router)
        AgentRoutes(environment: env).register(on: routes.group())  // login, agent apps, presence, queue, conversations, accept, decline, requeue
        ChatRoutes(environment: env, messages: messages).registerAgent(on: routes.group())  // a conversation, its messages, its end
        AppClientRoutes(environment: env).register(on: routes.group())  // an agent app's client, app state, push tokens, notification keys
        AgentInvitationRoutes(environment: env).register(on: routes.group())  // invitations addressed to the agent
        PushRoutes(environment: env).registerAgent(on: routes.group())  // calls
        CoBrowsingRoutes(environment: env).registerAgent(on: routes.group())  // co-browsing and the frame viewer
        FileRoutes(environment: env, review: files).registerAgent(on: routes.group())  // conversation files
        LiveRoutes(environment: env).registerAgent(on: routes.group())  // the live event socket
        routes.answerTheRest()
    }
}
