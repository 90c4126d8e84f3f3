import CollabCore
import CollabWire
import Hummingbird

/// The inspector's view of what the Web API keeps beyond the built-in entities:
/// `GET /_mock/v1/entities?account=` lists the kinds with their counts;
/// `GET /_mock/v1/entities/{typeName}?account=&offset=&limit=` a page of one kind's entities as the Web API
/// shows them, oldest first.
///
/// The kinds are the entity layer's (``EntityRegistry``), the account's conversation invitations (with their
/// secondary targets) and, for super admins only, the server's global file-upload interceptors (scope GLOBAL:
/// they belong to no account, and the `account` parameter does not apply to them).
///
/// An entity shows what the Web API would show the caller: a declared kind's secrets only when the caller's
/// role may read the kind there, else without them, as a redacted snapshot has it.
struct EntityInspectorRoutes {
    let environment: CollabEnvironment

    /// The kinds listed beside the declared ones.
    static let invitations = "ConversationInvitation"
    static let globalFileUploadInterceptors = "FileUploadGlobalInterceptor"

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.get("entities") { request, context in
            let accountId = try env.inspectedAccount(request, context: context)
            let (counts, invitations) = try env.read(account: accountId) { state in (state.declared.counts, state.invitations.count) }
            var kinds = EntityRegistry.kinds.map {
                EntityKindCount(typeName: $0.typeName, seedKey: $0.seedKey, scope: .account, count: counts[$0.typeName] ?? 0)
            }
            kinds.append(EntityKindCount(typeName: Self.invitations, seedKey: nil, scope: .account, count: invitations))
            if context.principal.role >= .superAdmin {
                let global = try GlobalFileUploadInterceptors(environment: env).read(context.principal) { $0.count }
                kinds.append(EntityKindCount(typeName: Self.globalFileUploadInterceptors, seedKey: nil, scope: .global, count: global))
            }
            return JSONBody.response(kinds)
        }
        group.get("entities/:typeName") { request, context in
            let name = try context.pathParameter("typeName")
            let window = try InspectorWindow(request)
            if name == Self.globalFileUploadInterceptors {
                _ = try context.inspectorConfinement()
                try context.principal.require(.superAdmin)
                let page = try GlobalFileUploadInterceptors(environment: env).read(context.principal) { list throws(CollabError) in
                    try FileUploadInterceptor.search(window.query, in: list)
                }
                return JSONBody.response(
                    page.webResult("FileUploadInterceptorResult", offset: window.offset) { WebFileUploadInterceptorFields.body(showing: $0) }
                )
            }
            let accountId = try env.inspectedAccount(request, context: context)
            if name == Self.invitations {
                let now = env.clock.now()
                // The Web API's planned search: a page in creation order walks it, as `invitations/search` does.
                let page = try env.read(account: accountId) { state throws(CollabError) in
                    try state.searchInvitations(window.query, now: now, for: .control(of: accountId))
                }
                return JSONBody.response(page.webResult("ConversationInvitationResult", offset: window.offset) { WebInvitation($0, now: now) })
            }
            guard let type = EntityRegistry.type(named: name) else { throw CollabError.notFound("entity kind", name) }
            let role = context.principal.role
            let page = try env.read(account: accountId) { state throws(CollabError) in
                try Self.page(type, state, window: window, role: role)
            }
            return JSONBody.response(page)
        }
    }

    private static func page<E: DeclaredEntity>(
        _ type: E.Type, _ state: borrowing AccountState, window: InspectorWindow, role: AuthorizationRole
    ) throws(CollabError) -> WebResult<JSONValue> {
        var query = window.query
        if E.declaration.field("CREATION_TIMESTAMP") == nil { query.orderBy = [SearchOrder(field: "ID")] }
        let result = try state.declared.table(E.self).search(query) { _ in true }
        let declaration = E.declaration
        return result.webResult(declaration.resultType, offset: window.offset) { EntityWire.json(declaration.shown($0, to: role)) }
    }
}

/// The page an inspector listing asks for: `offset` (default 0) and `limit` (default 100, at most 1000),
/// oldest first.
private struct InspectorWindow {
    var offset: Int
    var query: SearchQuery

    init(_ request: Request) throws(CollabError) {
        let offset = try request.integerQuery("offset", atLeast: 0) ?? 0
        let limit = try request.integerQuery("limit", atLeast: 1).map { min($0, SearchQuery.maximumLimit) } ?? SearchQuery.defaultLimit
        self.offset = offset
        query = try SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP")], offset: offset, limit: limit)
    }
}

/// One kind in the inspector's list.
private struct EntityKindCount: Encodable {
    enum Scope: String, Encodable {
        /// Entities of the account in view.
        case account = "ACCOUNT"
        /// Entities of the whole server (super admins only).
        case global = "GLOBAL"
    }

    var typeName: String
    /// The key a seed file lists the kind under (absent for kinds seeds do not list under `entities`).
    var seedKey: String?
    var scope: Scope
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
