import CollabCore
import CollabWire
import Hummingbird

extension Surface {
    /// The Web API v4 subset: HTTP Basic, a login session (bearer token or cookie) or the control
    /// token; the vendor's `Error` body; each operation's role is its `x-required-role` in the vendor's
    /// spec (they differ, so none is checked for the whole group).
    static let webAPI = Surface(faultName: "WEB_API", credentials: [.basic, .session, .controlToken], errors: .webAPI)
}

/// The Web API v4 subset, served under `/app/rest/v4` and its alias `/unblu/rest/v4`.
struct WebAPISurface {
    /// The prefixes the vendor serves the Web API under.
    static let prefixes = ["app/rest/v4", "unblu/rest/v4"]

    let environment: CollabEnvironment
    let webhooks: WebhookDispatcher
    /// File-upload interceptors (and the message interceptors that see FILE messages).
    let files: FileReview

    /// Registers the surface under both prefixes.
    /// - Returns: Its operations (the same under each prefix).
    @discardableResult
    func register(on router: Router<CollabRequestContext>, stack: SurfaceStack) -> [WebAPIOperation] {
        let env = environment
        var operations: [WebAPIOperation] = []
        for prefix in Self.prefixes {
            let routes = stack.routes(.webAPI, under: RouterPath(prefix), on: router)
            AccountsRoutes(environment: env).register(on: routes.group("accounts"))
            AccountAdministrationRoutes(environment: env).register(on: routes.group())
            GlobalRoutes(environment: env).register(on: routes.group())
            ApiKeysRoutes(environment: env).register(on: routes.group("apikeys"))
            UsersRoutes(environment: env).register(on: routes.group("users"))
            UserPasswordRoutes(environment: env).register(on: routes.group("users"))
            PersonsRoutes(environment: env).register(on: routes.group("persons"))
            PersonNotificationRoutes(environment: env).register(on: routes.group("persons"))
            AuthenticatorRoutes(environment: env).register(on: routes.group("authenticator"))
            ImpersonationRoutes(environment: env).register(on: routes.group("authenticator"))
            LocaleRoutes(environment: env).register(on: routes.group("authenticator"))
            ConversationsRoutes(environment: env).register(on: routes.group())
            ConversationParticipantsRoutes(environment: env).register(on: routes.group())
            ConversationSettingsRoutes(environment: env).register(on: routes.group())
            RecordingRoutes(environment: env).register(on: routes.group())
            BackendBasicsRoutes(environment: env).register(on: routes.group())
            FileRoutes(environment: env, review: files).registerWebAPI(on: routes.group("conversations"), prefix: prefix)
            InvitationRoutes(environment: env).register(on: routes.group("invitations"))
            InvitationLinkRoutes(environment: env).register(on: routes.group("invitations"))
            InvitationTargetRoutes(environment: env).register(on: routes.group("invitations"))
            WebhookRoutes(environment: env, dispatcher: webhooks).register(on: routes.group("webhookregistrations"))
            BotRoutes(environment: env, dispatcher: webhooks).register(on: routes.group("bots"))
            BotDialogRoutes(environment: env, dispatcher: webhooks).register(on: routes.group("bots"))
            BotMessageRoutes(environment: env).register(on: routes.group("bots"))
            FileInterceptorRoutes(environment: env, interception: files.interception).register(on: routes.group("fileuploadinterceptors"))
            GlobalFileInterceptorRoutes(environment: env, interception: files.interception, dispatcher: webhooks)
                .register(on: routes.group("fileuploadglobalinterceptors"))
            InterceptorRoutes(place: AccountInterceptors<WebMessageInterceptorFields>(environment: env), environment: env)
                .register(on: routes.group("messageinterceptors"))
            InterceptorPingRoutes(environment: env, dispatcher: webhooks).register(on: routes.group())
            EntityRoutes(environment: env).register(on: routes.group())
            EntityBehaviourRoutes(environment: env, dispatcher: webhooks).register(on: routes.group())
            TeamRoutes(environment: env).register(on: routes.group("teams"))
            ConversationTemplateRoutes(environment: env).register(on: routes.group("conversationtemplates"))
            ExternalMessengerRoutes(environment: env).register(on: routes.group())
            operations = routes.operations
            routes.answerTheRest()
        }
        return operations
    }
}

/// One operation the Web API serves: its method and its path under `/app/rest/v4`, with `:name` for a
/// path parameter in braces, as the vendor's spec writes it (`cannedresponses/{cannedResponseId}/read`).
public struct WebAPIOperation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var method: String
    public var path: String

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.path, lhs.method) < (rhs.path, rhs.method) }

    /// The operations MockCollab adds under the Web API's prefix that the vendor's spec does not have.
    public static let mockCollabOwn: Set<WebAPIOperation> = [
        WebAPIOperation(method: "POST", path: "persons/{personId}/removeDevices"),
        // Where the download links of getConversationFiles and of an interceptor's request point.
        WebAPIOperation(method: "GET", path: "conversations/{conversationId}/files/{fileId}/download"),
        WebAPIOperation(method: "GET", path: "fileuploadinterceptors/files"),
    ]

    /// Whether the vendor's spec has this operation (it is not one of ``mockCollabOwn``).
    public var isVendor: Bool { !Self.mockCollabOwn.contains(self) }

    public var description: String { "\(method) /\(path)" }
}
