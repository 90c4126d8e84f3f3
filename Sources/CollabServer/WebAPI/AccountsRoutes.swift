import CollabCore
import CollabWire
import Hummingbird

/// `/accounts/…`: getCurrentAccount, read, search, create, createAccountWithNewAdmin, update, delete.
struct AccountsRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.get, "getCurrentAccount", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let account = try env.read { state throws(CollabError) in try state.currentAccount(context.principal) }
            return JSONBody.response(WebAccount(account, expand: expand))
        }
        group.operation(.get, ":accountId/read", role: .superAdmin) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("accountId")
            let account = try env.read { state throws(CollabError) in try state.account(id, for: context.principal) }
            return JSONBody.response(WebAccount(account, expand: expand))
        }
        group.operation(.post, "search", role: .superAdmin) { request, context in
            let expand = try Expansion(request)
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "AccountQuery")
            let page = try env.read { state throws(CollabError) in try state.searchAccounts(query) }
            return JSONBody.response(page.webResult("AccountResult", offset: query.offset) { WebAccount($0, expand: expand) })
        }
        group.operation(.post, "create", role: .superAdmin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebAccount.self, from: request)
            try checkType(body)
            let account = try await env.write { state, changes, op throws(CollabError) in
                try state.createAccount(body.input, context: op, changes: &changes)
            }
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
            let (account, admin) = try await env.writeAtomically { state, changes, op throws(CollabError) in
                let account = try state.createAccount(accountBody.input, context: op, changes: &changes)
                let admin = try state.createUser(input, passwordHash: nil, accountId: account.id, grantor: .superAdmin, context: op, changes: &changes)
                return (account, admin)
            }
            return JSONBody.response(WebAccountUserContainer(account: WebAccount(account, expand: expand), adminUser: WebUser(admin, expand: expand)))
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebAccount.self, from: request)
            try checkType(body)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let account = try await env.write { state, changes, op throws(CollabError) in
                try state.updateAccount(id: id, version: body.version, body.input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebAccount(account, expand: expand))
        }
        group.operation(.delete, ":accountId/delete", role: .superAdmin) { request, context in
            let id = try context.pathParameter("accountId")
            try await env.write { state, changes, _ throws(CollabError) in
                try state.deleteAccount(id, for: context.principal, changes: &changes)
            }
            env.frames.removeAll(accountId: id)
            return noContent
        }
    }
}
