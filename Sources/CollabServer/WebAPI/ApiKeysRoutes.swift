import CollabCore
import CollabWire
import Hummingbird

/// `/apikeys/getByKey` and `/apikeys/getDefault`: the key's create, read, readMultiple, search, update
/// and delete come from its declaration (``ApiKey``, ``EntityRoutes``).
struct ApiKeysRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.get, "getByKey", role: .admin) { request, context in
            let expanding = try EntityRoutes.expanding(ApiKey.self, request)
            let keyString = try request.requireQuery("apiKey")
            let key = try env.read(context.principal) { state throws(CollabError) in try state.apiKey(byKey: keyString, for: context.principal) }
            return JSONBody.response(EntityWire.json(key, expanding: expanding))
        }
        group.operation(.get, "getDefault", role: .admin) { request, context in
            let expanding = try EntityRoutes.expanding(ApiKey.self, request)
            let key = try env.read(context.principal) { state throws(CollabError) in try state.defaultApiKey(for: context.principal) }
            return JSONBody.response(EntityWire.json(key, expanding: expanding))
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
