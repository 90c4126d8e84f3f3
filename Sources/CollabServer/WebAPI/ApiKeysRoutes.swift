import CollabCore
import CollabWire
import Hummingbird

/// `/apikeys/…`: create, read, getByKey, getDefault, readMultiple, search, update, delete.
struct ApiKeysRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "create", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebApiKey.self, from: request)
            try checkType(body)
            let key = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                let accountId = try ownAccount(body.accountId, context.principal)
                return try state.createApiKey(body.input, accountId: accountId, context: op, changes: &changes)
            }
            return JSONBody.response(WebApiKey(key, expand: expand))
        }
        group.operation(.get, ":apiKeyId/read", role: .admin) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("apiKeyId")
            let key = try env.read(context.principal) { state throws(CollabError) in try state.apiKey(id, for: context.principal) }
            return JSONBody.response(WebApiKey(key, expand: expand))
        }
        group.operation(.get, "getByKey", role: .admin) { request, context in
            let expand = try Expansion(request)
            let keyString = try request.requireQuery("apiKey")
            let key = try env.read(context.principal) { state throws(CollabError) in try state.apiKey(byKey: keyString, for: context.principal) }
            return JSONBody.response(WebApiKey(key, expand: expand))
        }
        group.operation(.get, "getDefault", role: .admin) { request, context in
            let expand = try Expansion(request)
            let key = try env.read(context.principal) { state throws(CollabError) in try state.defaultApiKey(for: context.principal) }
            return JSONBody.response(WebApiKey(key, expand: expand))
        }
        group.operation(.post, "readMultiple", role: .admin) { request, context in
            let expand = try Expansion(request)
            let ids = try await env.decode([String].self, from: request)
            let keys = try env.read(context.principal) { state throws(CollabError) in try state.apiKeys(ids, for: context.principal) }
            return JSONBody.response(WebList(type: "ApiKeyList", items: keys.map { WebApiKey($0, expand: expand) }))
        }
        group.operation(.post, "search", role: .admin) { request, context in
            let expand = try Expansion(request)
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "ApiKeyQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in try state.searchApiKeys(query, for: context.principal) }
            return JSONBody.response(page.webResult("ApiKeyResult", offset: query.offset) { WebApiKey($0, expand: expand) })
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebApiKey.self, from: request)
            try checkType(body)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let key = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateApiKey(id: id, version: body.version, body.input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebApiKey(key, expand: expand))
        }
        group.operation(.delete, ":apiKeyId/delete", role: .admin) { request, context in
            let id = try context.pathParameter("apiKeyId")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in try state.deleteApiKey(id, for: context.principal, context: op, changes: &changes) }
            return noContent
        }
    }
}

/// The account a create operation writes into: the caller's own. A body naming another account is
/// refused as "not found", like every other cross-account access.
func ownAccount(_ requested: String?, _ principal: Principal) throws(CollabError) -> String {
    guard let own = principal.accountId else { throw .unauthorized("this operation needs a caller that belongs to an account") }
    if let requested, requested != own, !principal.canAccess(accountId: requested) { throw .notFound("Account", requested) }
    return requested ?? own
}
