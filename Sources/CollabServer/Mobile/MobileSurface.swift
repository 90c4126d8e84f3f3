import CollabCore
import Hummingbird

extension Surface {
    /// The device API: a started visitor app's token (and, for the live socket, `?token=`), an incoming
    /// call's device credential on the call routes, the account's token cookie where a client starts, a
    /// client certificate where the server asks for one; the typed error body whose `type` mirrors the
    /// SDK's client error types. Roles play no part: `POST clients` is open, everything else needs the client.
    static let mobile = Surface(
        faultName: "MOBILE", credentials: [.client, .callCredential, .accountCookie, .socketToken, .clientCertificate], errors: .typed
    )
}

/// The mobile device API under `/mobile/v1`, everything an app's SDK calls, registered here in one
/// place: the route files of the other concerns each give their mobile part.
struct MobileSurface {
    let environment: CollabEnvironment
    /// Message interceptors, asked before a visitor's message is stored.
    let messages: MessageReview
    /// Upload interceptors, asked before a visitor's file is stored.
    let files: FileReview

    func register(on router: Router<CollabRequestContext>, stack: SurfaceStack) {
        let env = environment
        let routes = stack.routes(.mobile, under: "mobile/v1", on: router)
        MobileRoutes(environment: env).register(on: routes.group())  // start, named area, collapse, starting, opening and closing conversations
        ChatRoutes(environment: env, messages: messages).registerMobile(on: routes.group())  // a conversation, its messages, its end
        AppClientRoutes(environment: env).register(on: routes.group())  // the current client, app state, push tokens, notification keys
        MobileInvitationRoutes(environment: env).register(on: routes.group())  // invitations/redeem
        PushRoutes(environment: env).registerMobile(on: routes.group())  // push tokens, notification keys, calls
        CoBrowsingRoutes(environment: env).registerMobile(on: routes.group())  // co-browsing and frame uploads
        FileRoutes(environment: env, review: files).registerMobile(on: routes.group())  // conversation files
        LiveRoutes(environment: env).registerMobile(on: routes.group())  // the live event socket
        routes.answerTheRest()
    }
}
