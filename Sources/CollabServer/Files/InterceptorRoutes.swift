import CollabCore
import CollabWire
import Hummingbird

/// The Web API body of an interceptor kind: made from the stored interceptor, read into its input.
protocol InterceptorWire: WebAPIObject {
    associatedtype Model: Interceptor

    var id: String? { get }
    var version: Int64? { get }
    var accountId: String? { get }

    init(_ interceptor: Model)
    /// The input the body carries, after the body's own checks (`$_type`, enumerations).
    func input() throws(CollabError) -> Model.Input
}

/// The operations every interceptor kind has (`/messageinterceptors/…`, `/fileuploadinterceptors/…`):
/// create, read, getByName, search, update, delete. A kind's own operations are registered beside them.
struct InterceptorRoutes<Wire: InterceptorWire> {
    typealias Model = Wire.Model
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "create", role: .admin) { request, context in
            let body = try await env.decode(Wire.self, from: request)
            _ = try ownAccount(body.accountId, context.principal)
            let input = try body.input()
            let interceptor: Model = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.createInterceptor(input, context: op, changes: &changes)
            }
            return JSONBody.response(Wire(interceptor))
        }
        group.operation(.get, ":interceptorId/read", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            let interceptor = try env.read(context.principal) { state throws(CollabError) in
                try state.interceptor(Model.self, id, for: context.principal)
            }
            return JSONBody.response(Wire(interceptor))
        }
        group.operation(.get, "getByName", role: .admin) { request, context in
            let name = try request.requireQuery("name")
            let interceptor = try env.read(context.principal) { state throws(CollabError) in try state.interceptor(Model.self, named: name) }
            return JSONBody.response(Wire(interceptor))
        }
        group.operation(.post, "search", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request)
            let queryType = "\(Model.entityName)Query"
            guard query.type == nil || query.type == queryType else { throw CollabError.badRequest("$_type must be '\(queryType)'") }
            let offset = max(0, query.offset ?? 0)
            guard (query.limit ?? 100) >= 0 else { throw CollabError.badRequest("limit must not be negative") }
            let limit = min(query.limit ?? 100, 1000)
            // An account holds at most `Interceptor.maximumPerAccount` of a kind: the list is short.
            let all = try env.read(context.principal) { state in state.interceptors(Model.self) }
            let page = Array(all.dropFirst(offset).prefix(limit))
            let more = offset + page.count < all.count
            return JSONBody.response(
                WebResult(type: "\(Model.entityName)Result", items: page.map(Wire.init), hasMoreItems: more, nextOffset: offset + page.count)
            )
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let body = try await env.decode(Wire.self, from: request)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let input = try body.input()
            let interceptor: Model = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateInterceptor(id: id, version: body.version, input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(Wire(interceptor))
        }
        group.operation(.delete, ":interceptorId/delete", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in
                try state.deleteInterceptor(Model.self, id, for: context.principal, changes: &changes)
            }
            return noContent
        }
    }
}
