import CollabCore
import CollabWire
import Hummingbird

/// `/fileuploadinterceptors/…`: create, read, getByName, search, update, delete, approveFileUpload,
/// rejectFileUpload, and the download link an interceptor reads a pending file through.
struct FileInterceptorRoutes {
    let environment: CollabEnvironment
    let interception: FileInterception

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let interception = self.interception
        group.operation(.post, "create", role: .admin) { request, context in
            let body = try await env.decode(WebFileUploadInterceptor.self, from: request)
            try checkType(body)
            _ = try ownAccount(body.accountId, context.principal)
            let interceptor = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.createFileUploadInterceptor(try body.input(), context: op, changes: &changes)
            }
            return JSONBody.response(WebFileUploadInterceptor(interceptor))
        }
        group.operation(.get, ":interceptorId/read", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            let interceptor = try env.read(context.principal) { state throws(CollabError) in try state.fileUploadInterceptor(id, for: context.principal) }
            return JSONBody.response(WebFileUploadInterceptor(interceptor))
        }
        group.operation(.get, "getByName", role: .admin) { request, context in
            let name = try request.requireQuery("name")
            let interceptor = try env.read(context.principal) { state throws(CollabError) in
                guard let found = state.orderedFileUploadInterceptors.first(where: { $0.name == name }) else {
                    throw .notFound("FileUploadInterceptor", name)
                }
                return found
            }
            return JSONBody.response(WebFileUploadInterceptor(interceptor))
        }
        group.operation(.post, "search", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request)
            guard query.type == nil || query.type == "FileUploadInterceptorQuery" else { throw CollabError.badRequest("$_type must be 'FileUploadInterceptorQuery'") }
            let offset = max(0, query.offset ?? 0)
            guard (query.limit ?? 100) >= 0 else { throw CollabError.badRequest("limit must not be negative") }
            let limit = min(query.limit ?? 100, 1000)
            // An account holds at most `FileUploadInterceptor.maximumPerAccount`: the list is short.
            let all = try env.read(context.principal) { state in state.orderedFileUploadInterceptors }
            let page = Array(all.dropFirst(offset).prefix(limit))
            let more = offset + page.count < all.count
            return JSONBody.response(
                WebResult(type: "FileUploadInterceptorResult", items: page.map(WebFileUploadInterceptor.init), hasMoreItems: more, nextOffset: offset + page.count)
            )
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let body = try await env.decode(WebFileUploadInterceptor.self, from: request)
            try checkType(body)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let interceptor = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateFileUploadInterceptor(id: id, version: body.version, try body.input(), for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebFileUploadInterceptor(interceptor))
        }
        group.operation(.delete, ":interceptorId/delete", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in
                try state.deleteFileUploadInterceptor(id, for: context.principal, changes: &changes)
            }
            return noContent
        }
        for (operation, approve) in [("approveFileUpload", true), ("rejectFileUpload", false)] {
            group.operation(.post, RouterPath(operation), role: .admin) { request, context in
                let body = try await env.decode(WebFileUploadDecision.self, from: request)
                guard let token = body.token, !token.isEmpty, token.count <= 200 else { throw CollabError.badRequest("token is required") }
                try Limits.checkOptional(body.reason, field: "reason", max: Limits.textLength)
                guard let accountId = context.principal.accountId,
                    interception.resolve(token, accountId: accountId, approve ? .approved : .rejected(body.reason ?? "rejected by an interceptor"))
                else {
                    throw CollabError.notFound("FileUpload", "token")
                }
                return noContent
            }
        }
        // The `downloadLink` of the new-file event: the token alone authorises it, while the decision is pending.
        group.get("files") { request, context in
            let token = try request.requireQuery("token")
            guard let pending = interception.pendingFile(token) else { throw CollabError.notFound("File", "token") }
            let location = env.files.location(accountId: pending.accountId, conversationId: pending.conversationId, fileId: pending.file.id)
            return try await FileDownload.response(for: pending.file, location: location, request: request, context: context)
        }
    }
}

extension WebFileUploadInterceptor {
    init(_ interceptor: FileUploadInterceptor) {
        self.init(name: interceptor.name, order: interceptor.order, mimeTypeRegex: interceptor.mimeTypeRegex, webhookEndpoint: interceptor.endpoint)
        id = interceptor.id
        accountId = interceptor.accountId
        description = interceptor.description
        webhookStatus = interceptor.status.rawValue
        webhookApiVersion = interceptor.apiVersion
        webhookSecret = interceptor.secret
        creationTimestamp = interceptor.creationTimestamp
        modificationTimestamp = interceptor.modificationTimestamp
        version = interceptor.version
    }

    func input() throws(CollabError) -> FileUploadInterceptorInput {
        var status: WebhookRegistration.Status?
        if let webhookStatus {
            guard let parsed = WebhookRegistration.Status(rawValue: webhookStatus) else {
                throw .badRequest("webhookStatus must be one of \(WebhookRegistration.Status.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            status = parsed
        }
        return FileUploadInterceptorInput(
            name: name, description: description, order: order, mimeTypeRegex: mimeTypeRegex, status: status, endpoint: webhookEndpoint,
            apiVersion: webhookApiVersion, secret: webhookSecret
        )
    }
}
