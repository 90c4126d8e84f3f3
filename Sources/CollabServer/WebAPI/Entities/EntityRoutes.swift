import CollabCore
import CollabWire
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// The Web API operations of every declared entity kind (``EntityRegistry``), registered from each
/// kind's declaration: the path, the operations and their roles, the `…Query`/`…Result`/`…List`
/// schema names. Behaviour the vendor specifies beyond these lives in the kind's own route file.
struct EntityRoutes {
    let environment: CollabEnvironment

    func register(on routes: RouterGroup<CollabRequestContext>) {
        for type in EntityRegistry.kinds { register(type, on: routes) }
    }

    private func register<E: DeclaredEntity>(_ type: E.Type, on routes: RouterGroup<CollabRequestContext>) {
        let env = environment
        let declaration = E.declaration
        let operations = declaration.operations
        let group = routes.group(RouterPath(declaration.path))
        let idPath = ":\(declaration.idParameter)"
        // create and update: a draft from the body, stored by the layer, answered as stored.
        for (path, role, isCreate) in [("create", operations.create, true), ("update", operations.update, false)] {
            guard let role else { continue }
            group.operation(.post, RouterPath(path), role: role) { request, context in
                let expanding = try Self.expanding(E.self, request)
                let draft = try await env.decodeEntity(E.self, from: request)
                let entity = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    isCreate
                        ? try state.createEntity(draft, for: context.principal, context: op, changes: &changes)
                        : try state.updateEntity(draft, for: context.principal, context: op, changes: &changes)
                }
                return JSONBody.response(EntityWire.json(entity, expanding: expanding))
            }
        }
        if let role = operations.read {
            group.operation(.get, RouterPath("\(idPath)/read"), role: role) { request, context in
                let expanding = try Self.expanding(E.self, request)
                let id = try context.pathParameter(declaration.idParameter)
                let entity = try env.read(context.principal) { state throws(CollabError) in try state.entity(E.self, id, for: context.principal) }
                return JSONBody.response(EntityWire.json(entity, expanding: expanding))
            }
        }
        if let role = operations.delete {
            group.operation(.delete, RouterPath("\(idPath)/delete"), role: role) { _, context in
                let id = try context.pathParameter(declaration.idParameter)
                _ = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    try state.deleteEntity(E.self, id, for: context.principal, context: op, changes: &changes)
                }
                return noContent
            }
        }
        if let role = operations.search {
            group.operation(.post, "search", role: role) { request, context in
                let expanding = try Self.expanding(E.self, request)
                let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: declaration.queryType)
                let page = try env.read(context.principal) { state throws(CollabError) in
                    try state.searchEntities(E.self, query, for: context.principal)
                }
                let role = context.principal.role
                return JSONBody.response(
                    page.webResult(declaration.resultType, offset: query.offset) {
                        EntityWire.json(declaration.shown($0, to: role), expanding: expanding)
                    })
            }
        }
        if let role = operations.readMultiple {
            group.operation(.post, "readMultiple", role: role) { request, context in
                let expanding = try Self.expanding(E.self, request)
                let ids = try await env.decode([String].self, from: request)
                let entities = try env.read(context.principal) { state throws(CollabError) in
                    try state.entities(E.self, ids: ids, for: context.principal)
                }
                let role = context.principal.role
                let items = entities.map { EntityWire.json(declaration.shown($0, to: role), expanding: expanding) }
                return JSONBody.response(WebList(type: declaration.listType, items: items))
            }
        }
        if let role = operations.getByName {
            group.operation(.get, "getByName", role: role) { request, context in
                let expanding = try Self.expanding(E.self, request)
                let name = try request.requireQuery("name")
                let entity = try env.read(context.principal) { state throws(CollabError) in
                    try state.entity(E.self, named: name, for: context.principal)
                }
                return JSONBody.response(EntityWire.json(declaration.shown(entity, to: context.principal.role), expanding: expanding))
            }
        }
        if let role = operations.getByNames {
            group.operation(.post, "getByNames", role: role) { request, context in
                let expanding = try Self.expanding(E.self, request)
                let names = try await env.decode([String].self, from: request)
                let entities = try env.read(context.principal) { state throws(CollabError) in
                    try state.entities(E.self, names: names, for: context.principal)
                }
                let role = context.principal.role
                let items = entities.map { EntityWire.json(declaration.shown($0, to: role), expanding: expanding) }
                return JSONBody.response(WebList(type: declaration.listType, items: items))
            }
        }
    }
}

extension EntityRoutes {
    /// The expandable fields of `type` a request's `expand` names; kinds without any ignore `expand`.
    static func expanding<E: DeclaredEntity>(_ type: E.Type, _ request: Request) throws(CollabError) -> Set<String> {
        E.declaration.expandable.isEmpty ? [] : try Expansion(request).fields
    }
}

extension CollabEnvironment {
    /// Decodes a request body into a draft of a declared entity, within the configured size limit.
    func decodeEntity<E: DeclaredEntity>(_ type: E.Type, from request: Request) async throws(CollabError) -> E {
        let buffer = try await collectBody(request)
        guard buffer.readableBytes > 0 else { throw .badRequest("a JSON request body is required") }
        return try EntityWire.draft(E.self, from: Data(buffer: buffer))
    }
}
