import CollabCore
import Hummingbird

/// The Web API v4 subset, served under `/app/rest/v4` and `/unblu/rest/v4`.
struct WebAPIRoutes {
    /// The prefixes the vendor serves the Web API under.
    static let prefixes = ["app/rest/v4", "unblu/rest/v4"]

    let environment: CollabEnvironment
    let webhooks: WebhookDispatcher

    func register(on router: Router<CollabRequestContext>) {
        for prefix in Self.prefixes {
            let group = router.group(RouterPath(prefix))
            AccountsRoutes(environment: environment).register(on: group.group("accounts"))
            ApiKeysRoutes(environment: environment).register(on: group.group("apikeys"))
            NamedAreasRoutes(environment: environment).register(on: group.group("namedareas"))
            UsersRoutes(environment: environment).register(on: group.group("users"))
            PersonsRoutes(environment: environment).register(on: group.group("persons"))
            PersonNotificationRoutes(environment: environment).register(on: group.group("persons"))
            AuthenticatorRoutes(environment: environment).register(on: group.group("authenticator"))
            ImpersonationRoutes(environment: environment).register(on: group.group("authenticator"))
            UserPasswordRoutes(environment: environment).register(on: group.group("users"))
            ConversationsRoutes(environment: environment).register(on: group)
            ConversationParticipantsRoutes(environment: environment).register(on: group)
            BackendBasicsRoutes(environment: environment).register(on: group)
            InvitationRoutes(environment: environment).register(on: group.group("invitations"))
            WebhookRoutes(environment: environment, dispatcher: webhooks).register(on: group.group("webhookregistrations"))
            BotRoutes(environment: environment, dispatcher: webhooks).register(on: group.group("bots"))
            BotDialogRoutes(environment: environment, dispatcher: webhooks).register(on: group.group("bots"))
        }
    }
}

extension CollabEnvironment {
    /// Decodes a JSON body within the configured size limit.
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws(CollabError) -> T {
        try await JSONBody.decode(type, from: request, limit: configuration.maxBodySize)
    }
}

/// The 204 answer of delete and logout operations.
let noContent = Response(status: .noContent)
