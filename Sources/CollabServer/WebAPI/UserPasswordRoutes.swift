import CollabCore
import CollabStore
import CollabWire
import Hummingbird

/// `/users/createWithRandomPassword`, `/users/{id}/setRandomPassword`, `/users/{id}/hasPassword`, `/users/{id}/removePassword`.
struct UserPasswordRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "createWithRandomPassword", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebUser.self, from: request)
            try checkType(body)
            let input = try body.input()
            try input.validateForCreate()
            let accountId = try ownAccount(body.accountId, context.principal)
            // The vendor mails the password; the mock tells nobody. Set one with setPassword to log in.
            let hash = try await env.hasher.hash(env.operation.ids.makeSecret())
            let user = try await env.write(account: accountId) { state, changes, op throws(CollabError) in
                try state.createUser(input, passwordHash: hash, accountId: accountId, grantor: context.principal.role, context: op, changes: &changes)
            }
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.operation(.post, ":userId/setRandomPassword", role: .admin) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("userId")
            // The vendor mails the new password: the mock journals the mail, without the password, which
            // nobody learns (set one with setPassword to log in). Sessions opened with the old one end.
            // Check access before spending a bcrypt hash on the request.
            _ = try env.read(context.principal) { state throws(CollabError) in try state.user(id, for: context.principal) }
            let hash = try await env.hasher.hash(env.operation.ids.makeSecret())
            let user = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                guard let email = try state.user(id, for: context.principal).email, !email.isEmpty else {
                    throw .conflict("user \(id) has no email address to send a new password to")
                }
                return try state.setPassword(userId: id, passwordHash: hash, for: context.principal, context: op, changes: &changes)
            }
            env.events.disconnect(userId: id)
            let path = "/users/\(id)/setRandomPassword"
            env.journalMail(about: path, to: user.email ?? "", accountId: user.accountId, userId: context.principal.userId)
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.operation(.get, ":userId/hasPassword", role: .admin) { _, context in
            let id = try context.pathParameter("userId")
            let has = try env.read(context.principal) { state throws(CollabError) in try state.user(id, for: context.principal).passwordHash != nil }
            return JSONBody.response(WebHasPassword(hasPassword: has))
        }
        group.operation(.post, ":userId/removePassword", role: .admin) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("userId")
            let user = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.removePassword(userId: id, for: context.principal, context: op, changes: &changes)
            }
            env.events.disconnect(userId: id)
            return JSONBody.response(WebUser(user, expand: expand))
        }
    }
}

/// `HasPasswordData`.
struct WebHasPassword: Encodable {
    var type = "HasPasswordData"
    var hasPassword: Bool

    enum CodingKeys: String, CodingKey {
        case type = "$_type", hasPassword
    }
}
