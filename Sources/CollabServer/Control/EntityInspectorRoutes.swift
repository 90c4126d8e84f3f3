import CollabCore
import CollabWire
import Hummingbird

/// The inspector's view of declared entities (``EntityRegistry``): `GET /_mock/v1/entities?account=`
/// lists the kinds with their counts; `GET /_mock/v1/entities/{typeName}?account=&offset=&limit=` a
/// page of one kind's entities as the Web API shows them, oldest first.
struct EntityInspectorRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.get("entities") { request, context in
            let accountId = try env.inspectedAccount(request, context: context)
            let counts = try env.read(account: accountId) { state in state.declared.counts }
            let kinds = EntityRegistry.kinds.map { EntityKindCount(typeName: $0.typeName, seedKey: $0.seedKey, count: counts[$0.typeName] ?? 0) }
            return JSONBody.response(kinds)
        }
        group.get("entities/:typeName") { request, context in
            let accountId = try env.inspectedAccount(request, context: context)
            let name = try context.pathParameter("typeName")
            guard let type = EntityRegistry.type(named: name) else { throw CollabError.notFound("entity kind", name) }
            let offset = try request.query("offset").map { text throws(CollabError) in
                guard let value = Int(text), value >= 0 else { throw .badRequest("offset must be a non-negative integer") }
                return value
            } ?? 0
            let limit = try request.query("limit").map { text throws(CollabError) in
                guard let value = Int(text), value > 0 else { throw .badRequest("limit must be a positive integer") }
                return min(value, SearchQuery.maximumLimit)
            } ?? SearchQuery.defaultLimit
            let page = try env.read(account: accountId) { state throws(CollabError) in try Self.page(type, state, offset: offset, limit: limit) }
            return JSONBody.response(page)
        }
    }

    private static func page<E: DeclaredEntity>(
        _ type: E.Type, _ state: borrowing AccountState, offset: Int, limit: Int
    ) throws(CollabError) -> WebResult<JSONValue> {
        let order = E.declaration.field("CREATION_TIMESTAMP") == nil ? "ID" : "CREATION_TIMESTAMP"
        let query = try SearchQuery(orderBy: [SearchOrder(field: order)], offset: offset, limit: limit)
        let result = try state.declared.table(E.self).search(query) { _ in true }
        return result.webResult(E.declaration.resultType, offset: offset) { EntityWire.json($0) }
    }
}

/// One declared kind in the inspector's list.
private struct EntityKindCount: Encodable {
    var typeName: String
    var seedKey: String
    var count: Int
}

extension CollabEnvironment {
    /// The account an inspector request names (`account`: id or name), or the caller's own.
    func inspectedAccount(_ request: Request, context: CollabRequestContext) throws(CollabError) -> String {
        let confinement = try context.inspectorConfinement()
        guard let accountId = try inspectedAccountId(request.query("account"), confinedTo: confinement) ?? context.principal.accountId else {
            throw CollabError.badRequest("the query parameter 'account' is required")
        }
        return accountId
    }
}
