import CollabCore
import CollabWire
import Hummingbird

/// `/messageinterceptors/…` for external interceptors: create, read, getByName, search, update, delete.
struct MessageInterceptorRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.post, "create", role: .admin) { request, context in
            let body = try await env.decode(WebMessageInterceptor.self, from: request)
            _ = try ownAccount(body.accountId, context.principal)
            let input = try body.input()
            let interceptor = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.createMessageInterceptor(input, context: op, changes: &changes)
            }
            return JSONBody.response(WebMessageInterceptor(interceptor))
        }
        group.operation(.get, ":interceptorId/read", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            let interceptor = try env.read(context.principal) { state throws(CollabError) in try state.messageInterceptor(id, for: context.principal) }
            return JSONBody.response(WebMessageInterceptor(interceptor))
        }
        group.operation(.get, "getByName", role: .admin) { request, context in
            let name = try request.requireQuery("name")
            let interceptor = try env.read(context.principal) { state throws(CollabError) in
                guard let found = state.orderedMessageInterceptors.first(where: { $0.name == name }) else { throw .notFound("MessageInterceptor", name) }
                return found
            }
            return JSONBody.response(WebMessageInterceptor(interceptor))
        }
        group.operation(.post, "search", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request)
            guard query.type == nil || query.type == "MessageInterceptorQuery" else { throw CollabError.badRequest("$_type must be 'MessageInterceptorQuery'") }
            let offset = max(0, query.offset ?? 0)
            guard (query.limit ?? 100) >= 0 else { throw CollabError.badRequest("limit must not be negative") }
            let limit = min(query.limit ?? 100, 1000)
            // At most `MessageInterceptor.maximumPerAccount`: the list is short.
            let all = try env.read(context.principal) { state in state.orderedMessageInterceptors }
            let page = Array(all.dropFirst(offset).prefix(limit))
            return JSONBody.response(
                WebResult(type: "MessageInterceptorResult", items: page.map(WebMessageInterceptor.init), hasMoreItems: offset + page.count < all.count,
                          nextOffset: offset + page.count)
            )
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let body = try await env.decode(WebMessageInterceptor.self, from: request)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let input = try body.input()
            let interceptor = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateMessageInterceptor(id: id, version: body.version, input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebMessageInterceptor(interceptor))
        }
        group.operation(.delete, ":interceptorId/delete", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in
                try state.deleteMessageInterceptor(id, for: context.principal, changes: &changes)
            }
            return noContent
        }
    }
}

extension WebMessageInterceptor {
    init(_ interceptor: MessageInterceptor) {
        self.init(
            name: interceptor.name, messageFilter: interceptor.messageFilter.rawValue, timeoutBehavior: interceptor.timeoutBehavior.rawValue,
            webhookEndpoint: interceptor.endpoint, webhookSecret: interceptor.secret
        )
        id = interceptor.id
        accountId = interceptor.accountId
        description = interceptor.description
        webhookStatus = interceptor.status.rawValue
        webhookApiVersion = interceptor.apiVersion
        creationTimestamp = interceptor.creationTimestamp
        modificationTimestamp = interceptor.modificationTimestamp
        version = interceptor.version
    }

    func input() throws(CollabError) -> MessageInterceptorInput {
        guard type == nil || type == Self.typeName else { throw .badRequest("$_type must be 'ExternalMessageInterceptorData' (internal interceptors are not supported)") }
        guard interceptorType == nil || interceptorType == "EXTERNAL" else { throw .badRequest("type must be EXTERNAL") }
        func parse<T: RawRepresentable & CaseIterable>(_ text: String?, _ field: String) throws(CollabError) -> T? where T.RawValue == String {
            guard let text else { return nil }
            guard let value = T(rawValue: text) else { throw .badRequest("\(field) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))") }
            return value
        }
        return MessageInterceptorInput(
            name: name, description: description, messageFilter: try parse(messageFilter, "messageFilter"),
            timeoutBehavior: try parse(timeoutBehavior, "timeoutBehavior"), status: try parse(webhookStatus, "webhookStatus"), endpoint: webhookEndpoint,
            apiVersion: webhookApiVersion, secret: webhookSecret
        )
    }
}
