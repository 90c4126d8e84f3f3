import CollabCore
import Hummingbird

/// Routes a visitor's app and an agent use alike (a conversation's chat, its files): registered once
/// per surface, each time with the way that surface finds its ``ConversationCaller``.
protocol ConversationCallerRoutes {
    var environment: CollabEnvironment { get }

    /// Registers the routes for the callers `resolve` finds.
    func register(on group: RouterGroup<CollabRequestContext>, resolve: @escaping ConversationCaller.Resolver)
}

extension ConversationCallerRoutes {
    /// A visitor's: the conversations its person takes part in, without what is internal.
    func registerMobile(on mobile: RouterGroup<CollabRequestContext>) {
        let env = environment
        register(on: mobile) { context throws(CollabError) in .visitor(try env.client(context)) }
    }

    /// An agent's: every conversation of the account, with what is internal.
    func registerAgent(on agent: RouterGroup<CollabRequestContext>) {
        let env = environment
        register(on: agent) { context throws(CollabError) in .agent(try env.agent(context)) }
    }
}
