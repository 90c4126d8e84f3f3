import CollabCore
import Hummingbird

/// `authenticator/setDefaultLocale`: the caller's language, answered in a cookie
/// (``localeCookieName``) and, for a logged-in user, kept on the user (``User/locale``), so a later
/// login answers it again. Anyone may call it (the vendor's role is ANONYMOUS_USER).
struct LocaleRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "setDefaultLocale", role: .anonymousUser) { request, context in
            let body = try await env.decode(WebSetDefaultLocaleBody.self, from: request)
            let locale = try User.checkLocale(body.locale)
            if context.principal.userId != nil {
                try await env.write(context.principal) { state, changes, _ throws(CollabError) in
                    try state.setOwnLocale(locale, for: context.principal, changes: &changes)
                }
            }
            var response = Response(status: .noContent)
            response.setCookie(.locale(locale))
            return response
        }
    }
}

/// The cookie `setDefaultLocale` answers the locale in. The vendor documents no name for it: this one is
/// MockCollab's own choice.
let localeCookieName = "mock-collab-locale"

extension Cookie {
    /// The locale cookie: for the whole site, a year, readable by scripts (a UI shows its language).
    static func locale(_ locale: String) -> Cookie {
        Cookie(name: localeCookieName, value: locale, maxAge: 365 * 24 * 3600, path: "/", sameSite: .lax)
    }
}

/// `AuthenticatorSetDefaultLocaleBody`.
struct WebSetDefaultLocaleBody: Codable, Sendable {
    var locale: String?
}
