import CollabCore
import CollabStore
import CollabWire
import Hummingbird

/// `/accounts/…`: getCurrentAccount, read, search, create, createAccountWithNewAdmin, update, delete.
struct AccountsRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        // An account read as it was last read is answered with the bytes encoded then.
        let bodies = env.encodedBodies
        @Sendable func answer(_ account: Account, _ expand: Expansion) -> Response {
            let slot = EncodedBodySlot(type: WebAccount.typeName, id: account.id, expansion: expand)
            return JSONBody.response(account, keptIn: bodies, slot: slot, accountId: account.id) { WebAccount($0, expand: expand) }
        }
        group.operation(.get, "getCurrentAccount", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let account = try env.read(context.principal) { state throws(CollabError) in try state.currentAccount(context.principal) }
            return answer(account, expand)
        }
        group.operation(.get, ":accountId/read", role: .superAdmin) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("accountId")
            // Super admins read any account: its record comes from the directory, not its shard.
            guard let account = env.repository.directory.account(id) else { throw CollabError.notFound("Account", id) }
            return answer(account, expand)
        }
        group.operation(.post, "search", role: .superAdmin) { request, context in
            let expand = try Expansion(request)
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "AccountQuery")
            let page = try AccountState.searchAccounts(query, in: env.repository.directory)
            return JSONBody.response(page.webResult("AccountResult", offset: query.offset) { WebAccount($0, expand: expand) })
        }
        group.operation(.post, "create", role: .superAdmin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebAccount.self, from: request)
            try checkType(body)
            let (account, _) = try await env.repository.createAccount(body.input, context: env.operation) { _, _ throws(CollabError) in () }
            return JSONBody.response(WebAccount(account, expand: expand))
        }
        group.operation(.post, "createAccountWithNewAdmin", role: .superAdmin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebAccountUserContainer.self, from: request)
            try checkType(body)
            guard let accountBody = body.account, let adminBody = body.adminUser else {
                throw CollabError.badRequest("account and adminUser are required")
            }
            try checkType(accountBody)
            try checkType(adminBody)
            var adminInput = try adminBody.input()
            adminInput.authorizationRole = adminInput.authorizationRole ?? .admin
            let input = adminInput
            let op = env.operation
            let (account, admin) = try await env.repository.createAccount(accountBody.input, context: op) { state, changes throws(CollabError) in
                try state.createUser(input, passwordHash: nil, accountId: state.accountId, grantor: .superAdmin, context: op, changes: &changes)
            }
            return JSONBody.response(WebAccountUserContainer(account: WebAccount(account, expand: expand), adminUser: WebUser(admin, expand: expand)))
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebAccount.self, from: request)
            try checkType(body)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            // Super admins update any account; everyone else only their own (another id is not found).
            let account = try await env.write(
                account: context.principal.role == .superAdmin ? id : context.principal.accountId
            ) { state, changes, op throws(CollabError) in
                try state.updateAccount(id: id, version: body.version, body.input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebAccount(account, expand: expand))
        }
        group.operation(.delete, ":accountId/delete", role: .superAdmin) { request, context in
            let id = try context.pathParameter("accountId")
            // The commit tells every part that keeps something per account (``AccountScopedPart``); the
            // files go here, as a reset's do, so the answer comes once they are off the disk.
            try await env.repository.deleteAccount(id) { state throws(CollabError) in try state.checkCanDelete(for: context.principal) }
            await env.files.removeAccount(id)
            return noContent
        }
    }
}
