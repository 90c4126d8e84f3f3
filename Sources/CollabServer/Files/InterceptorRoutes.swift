import CollabCore
import CollabWire
import Hummingbird

/// The fields of an interceptor kind's Web API body: its body is made from the stored interceptor and
/// read into its input.
protocol InterceptorFields: WebEntityFields {
    associatedtype Model: Interceptor

    /// The body showing `interceptor`.
    static func body(showing interceptor: Model) -> WebEntity<Self>
    /// The input `body` carries, after the body's own checks (`$_type`, enumerations).
    static func input(of body: WebEntity<Self>) throws(CollabError) -> Model.Input
}

/// The operations every interceptor kind has (`/messageinterceptors/…`, `/fileuploadinterceptors/…`,
/// `/fileuploadglobalinterceptors/…`): create, read, getByName, search, update, delete, on the list its
/// ``InterceptorPlace`` keeps. A kind's own operations are registered beside them.
struct InterceptorRoutes<Place: InterceptorPlace> {
    typealias Wire = WebEntity<Place.Fields>
    typealias Fields = Place.Fields
    typealias Model = Fields.Model
    let place: Place
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let place = self.place
        let role = place.role
        group.operation(.post, "create", role: role) { request, context in
            let body = try await env.decode(Wire.self, from: request)
            let input = try Fields.input(of: body)
            let interceptor: Model = try await place.write(context.principal, requestedAccount: body.accountId) {
                list, accountId, op throws(CollabError) in
                try list.createInterceptor(input, accountId: accountId, context: op)
            }
            return JSONBody.response(Fields.body(showing: interceptor))
        }
        group.operation(.get, ":interceptorId/read", role: role) { _, context in
            let id = try context.pathParameter("interceptorId")
            let interceptor = try place.read(context.principal) { list throws(CollabError) in try list.interceptor(id) }
            return JSONBody.response(Fields.body(showing: interceptor))
        }
        group.operation(.get, "getByName", role: role) { request, context in
            let name = try request.requireQuery("name")
            let interceptor = try place.read(context.principal) { list throws(CollabError) in try list.interceptor(named: name) }
            return JSONBody.response(Fields.body(showing: interceptor))
        }
        group.operation(.post, "search", role: role) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "\(Model.entityName)Query")
            // A list holds at most `Interceptor.maximumPerAccount`: filtering and ordering all of it is cheap.
            let page = try place.read(context.principal) { list throws(CollabError) in
                try Model.search(query, in: list)
            }
            return JSONBody.response(page.webResult("\(Model.entityName)Result", offset: query.offset) { Fields.body(showing: $0) })
        }
        group.operation(.post, "update", role: role) { request, context in
            let body = try await env.decode(Wire.self, from: request)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let input = try Fields.input(of: body)
            let interceptor: Model = try await place.write(context.principal, requestedAccount: nil) { list, _, op throws(CollabError) in
                try list.updateInterceptor(id: id, version: body.version, input, context: op)
            }
            return JSONBody.response(Fields.body(showing: interceptor))
        }
        group.operation(.delete, ":interceptorId/delete", role: role) { _, context in
            let id = try context.pathParameter("interceptorId")
            try await place.write(context.principal, requestedAccount: nil) { list, _, _ throws(CollabError) in try list.deleteInterceptor(id) }
            return noContent
        }
    }
}
