import CollabCore
import CollabWire
import Hummingbird

/// `/users/…`: create, createWithPassword, read, readMultiple, transformVirtualToPhysical, getByUsername, search, update, delete, setPassword.
struct UsersRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "create", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebUser.self, from: request)
            let user = try await create(body, password: nil, request: request, context: context)
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.operation(.post, "createWithPassword", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebUserPasswordContainer.self, from: request)
            try checkType(body)
            guard let userBody = body.user else { throw CollabError.badRequest("user is required") }
            let user = try await create(userBody, password: try checkPassword(body.password), request: request, context: context)
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.operation(.get, ":userId/read", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("userId")
            let user = try env.read(context.principal) { state throws(CollabError) in try state.user(id, for: context.principal) }
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.operation(.post, "readMultiple", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let ids = try await env.decode([String].self, from: request)
            try Limits.checkReadMultiple(ids)
            // In the order asked; ids of no user of the caller's account are left out, as the vendor does.
            let users = try env.read(context.principal) { state throws(CollabError) in
                ids.compactMap { try? state.user($0, for: context.principal) }
            }
            return JSONBody.response(WebList(type: "UserList", items: users.map { WebUser($0, expand: expand) }))
        }
        group.operation(.post, "transformVirtualToPhysical", role: .admin) { request, context in
            // Every user the mock keeps is physical (kept in its user database, `USER_DB`), so the user is
            // answered as it is, as the vendor does for one already physical.
            let expand = try Expansion(request)
            let body = try await env.decode(WebUsernameBody.self, from: request)
            let username = try requireField(body.username, "username")
            let user = try env.read(context.principal) { state throws(CollabError) in try state.user(username: username, for: context.principal) }
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.operation(.get, "getByUsername", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let username = try request.requireQuery("username")
            let user = try env.read(context.principal) { state throws(CollabError) in try state.user(username: username, for: context.principal) }
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.searchOperation(role: .registeredUser, queryType: "UserQuery", environment: env) { state, query, request, context throws(CollabError) in
            let expand = try Expansion(request)
            return try state.searchUsers(query, for: context.principal).webResult("UserResult", offset: query.offset) { WebUser($0, expand: expand) }
        }
        group.operation(.post, "update", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebUser.self, from: request)
            try checkType(body)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let input = try body.input()
            let (user, roleChanged) = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                let before = state.users[id]?.authorizationRole
                let user = try state.updateUser(id: id, version: body.version, input, for: context.principal, context: op, changes: &changes)
                return (user, before != user.authorizationRole)
            }
            // A changed role ended the user's sessions; their live connections end with them.
            if roleChanged { env.events.disconnect(userId: id) }
            return JSONBody.response(WebUser(user, expand: expand))
        }
        group.operation(.delete, ":userId/delete", role: .admin) { request, context in
            let id = try context.pathParameter("userId")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.deleteUser(id, for: context.principal, context: op, changes: &changes)
            }
            env.events.disconnect(userId: id)
            return noContent
        }
        group.operation(.post, ":userId/setPassword", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("userId")
            let body = try await env.decode(WebSetPasswordBody.self, from: request)
            let password = try checkPassword(body.password)
            // Check access before spending a bcrypt hash on the request.
            _ = try env.read(context.principal) { state throws(CollabError) in try state.user(id, for: context.principal) }
            let hash = try await env.hasher.hash(password)
            let user = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.setPassword(userId: id, passwordHash: hash, for: context.principal, context: op, changes: &changes)
            }
            env.events.disconnect(userId: id)
            return JSONBody.response(WebUser(user, expand: expand))
        }
    }

    private func create(_ body: WebUser, password: String?, request: Request, context: CollabRequestContext) async throws -> User {
        try checkType(body)
        let input = try body.input()
        try input.validateForCreate()
        let accountId = try ownAccount(body.accountId, context.principal)
        let hash: String? = if let password { try await environment.hasher.hash(password) } else { nil }
        return try await environment.write(account: accountId) { state, changes, op throws(CollabError) in
            try state.createUser(input, passwordHash: hash, accountId: accountId, grantor: context.principal.role, context: op, changes: &changes)
        }
    }
}

extension UserInput {
    /// Cheap checks before a password is hashed for a new user.
    func validateForCreate() throws(CollabError) {
        _ = try Limits.checkName(username, field: "username")
    }
}

/// Validates a new password.
func checkPassword(_ password: String?) throws(CollabError) -> String {
    guard let password, !password.isEmpty else { throw .badRequest("password is required and must not be empty") }
    guard Limits.fits(password, Limits.passwordLength) else {
        throw .badRequest("password is longer than \(Limits.passwordLength) characters")
    }
    return password
}

/// `UsersTransformVirtualToPhysicalBody`.
struct WebUsernameBody: Decodable, Sendable {
    var username: String?
}
