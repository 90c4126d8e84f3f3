import CollabCore
import CollabStore
import CollabWire
import Hummingbird

/// `/authenticator/switchToAccount`, `impersonate`, `resetImpersonation`: a super admin's login
/// session acts in another account, or as another user, so a script can set up and use a tenant
/// through the Web API alone. They change the session the request came with (cookie or bearer
/// session token), never a basic-auth caller. `redirectOnSuccess`/`redirectOnFailure` are ignored:
/// the answer is always a `LoginResult`.
struct ImpersonationRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "switchToAccount", role: .superAdmin) { request, context in
            let body = try await env.decode(WebSwitchToAccountBody.self, from: request)
            guard let target = body.accountId, !target.isEmpty, target.utf8.count <= Limits.nameLength else {
                throw CollabError.badRequest("accountId is required")
            }
            guard env.repository.directory.account(target) != nil else { throw CollabError.notFound("Account", target) }
            let (token, home) = try session(context)
            try await env.write(account: home) { state, changes, op throws(CollabError) in
                try state.switchSession(token: token, to: target, now: op.now, changes: &changes)
            }
            env.events.disconnect(sessionKey: token)
            return JSONBody.response(WebLoginResult(success: true))
        }
        group.operation(.post, "impersonate", role: .superAdmin) { request, context in
            let body = try await env.decode(WebImpersonateBody.self, from: request)
            let (token, home) = try session(context)
            // By id in the account the session acts in; by username wherever the user is (usernames are
            // unique across accounts), which switches the session to that account.
            let (accountId, userId): (String, String)
            if let id = body.userId, !id.isEmpty {
                guard let current = context.principal.accountId else { throw CollabError.badRequest("no account to impersonate in") }
                accountId = current
                userId = id
                guard (try? env.read(account: accountId, { $0.users[id] != nil })) == true else { throw CollabError.notFound("User", id) }
            } else if let username = body.username, !username.isEmpty, Limits.fits(username, Limits.nameLength) {
                guard let owner = env.accountId(for: .username(username)),
                    let id = try? env.read(account: owner, { $0.user(loginName: username)?.id })
                else { throw CollabError(.notFound, "User '\(username)' not found") }
                accountId = owner
                userId = id
            } else {
                throw CollabError.badRequest("userId or username is required")
            }
            try await env.write(account: home) { state, changes, op throws(CollabError) in
                try state.impersonate(
                    token: token, userId: userId, accountId: accountId, keepRole: body.keepRole ?? false, now: op.now, changes: &changes)
            }
            env.events.disconnect(sessionKey: token)
            return JSONBody.response(WebLoginResult(success: true))
        }
        group.operation(.post, "resetImpersonation", role: .registeredUser) { request, context in
            _ = try await env.decode(WebRedirectsBody?.self, fromOptional: request)
            let (token, home) = try session(context)
            try await env.write(account: home) { state, changes, op throws(CollabError) in
                try state.resetImpersonation(token: token, now: op.now, changes: &changes)
            }
            env.events.disconnect(sessionKey: token)
            return JSONBody.response(WebLoginResult(success: true))
        }
    }

    /// The login session of the request and the account that holds it.
    private func session(_ context: CollabRequestContext) throws(CollabError) -> (token: String, account: String) {
        guard let token = context.sessionToken, let home = environment.accountId(for: .session(token)) else {
            throw .badRequest("this operation changes a login session: log in with authenticator/login and call it with the session")
        }
        return (token, home)
    }
}

/// `AuthenticatorSwitchToAccountBody`.
struct WebSwitchToAccountBody: Codable, Sendable {
    var accountId: String?
    var redirectOnSuccess: String?
    var redirectOnFailure: String?
}

/// `AuthenticatorImpersonateBody`.
struct WebImpersonateBody: Codable, Sendable {
    var username: String?
    var userId: String?
    var keepRole: Bool?
    var redirectOnSuccess: String?
    var redirectOnFailure: String?
}

/// `AuthenticatorResetImpersonationBody`.
struct WebRedirectsBody: Codable, Sendable {
    var redirectOnSuccess: String?
    var redirectOnFailure: String?
}
