import CollabCore
import CollabWire
import Hummingbird

/// `/fileuploadinterceptors/…`: the operations of every interceptor kind (``InterceptorRoutes``),
/// approveFileUpload, rejectFileUpload, and the download link an interceptor reads a pending file through.
struct FileInterceptorRoutes {
    let environment: CollabEnvironment
    let interception: FileInterception

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let interception = self.interception
        InterceptorRoutes<WebFileUploadInterceptor>(environment: env).register(on: group)
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

extension WebFileUploadInterceptor: InterceptorWire {
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
        try checkType(self)
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
