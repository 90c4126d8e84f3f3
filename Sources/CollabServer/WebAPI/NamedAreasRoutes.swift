import CollabCore
import CollabWire
import Hummingbird

/// `/namedareas/…`: create, read, readMultiple, search, update, delete.
struct NamedAreasRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "create", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebNamedArea.self, from: request)
            try checkType(body)
            let input = try body.input()
            let area = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.createNamedArea(input, accountId: try ownAccount(body.accountId, context.principal), context: op, changes: &changes)
            }
            return JSONBody.response(WebNamedArea(area, expand: expand))
        }
        group.operation(.get, ":namedAreaId/read", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("namedAreaId")
            let area = try env.read(context.principal) { state throws(CollabError) in try state.namedArea(id, for: context.principal) }
            return JSONBody.response(WebNamedArea(area, expand: expand))
        }
        group.operation(.post, "readMultiple", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let ids = try await env.decode([String].self, from: request)
            let areas = try env.read(context.principal) { state throws(CollabError) in try state.namedAreas(ids, for: context.principal) }
            return JSONBody.response(WebList(type: "NamedAreaList", items: areas.map { WebNamedArea($0, expand: expand) }))
        }
        group.operation(.post, "search", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "NamedAreaQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in try state.searchNamedAreas(query, for: context.principal) }
            return JSONBody.response(page.webResult("NamedAreaResult", offset: query.offset) { WebNamedArea($0, expand: expand) })
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebNamedArea.self, from: request)
            try checkType(body)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let input = try body.input()
            let area = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateNamedArea(id: id, version: body.version, input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebNamedArea(area, expand: expand))
        }
        group.operation(.delete, ":namedAreaId/delete", role: .admin) { request, context in
            let id = try context.pathParameter("namedAreaId")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in try state.deleteNamedArea(id, for: context.principal, context: op, changes: &changes) }
            return noContent
        }
    }
}
