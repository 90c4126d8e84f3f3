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
        InterceptorRoutes(place: AccountInterceptors<WebFileUploadInterceptorFields>(environment: env), environment: env).register(on: group)
        // An account's admin decides for the account's own interceptors.
        Self.registerDecisions(on: group, environment: env, interception: interception) { principal, pending in
            pending.reviewer == .account && pending.accountId == principal.accountId
        }
        // The `downloadLink` of the new-file event: the token alone authorises it, while the decision is pending.
        group.get("files") { request, context in
            let token = try request.requireQuery("token")
            guard let pending = interception.pendingFile(token) else { throw CollabError.notFound("File", "token") }
            let location = env.files.location(accountId: pending.accountId, conversationId: pending.conversationId, fileId: pending.file.id)
            return try await FileDownload.response(for: pending.file, location: location, request: request, context: context)
        }
    }

    /// `approveFileUpload` and `rejectFileUpload` (ADMIN in the vendor's spec, for both kinds): resolve the
    /// pending file of the body's token when `decides` lets the caller; any other token is the vendor's 404.
    static func registerDecisions(
        on group: RouterGroup<CollabRequestContext>, environment env: CollabEnvironment, interception: FileInterception,
        decides: @escaping @Sendable (Principal, FileInterception.Pending) -> Bool
    ) {
        for (operation, approve) in [("approveFileUpload", true), ("rejectFileUpload", false)] {
            group.operation(.post, RouterPath(operation), role: .admin) { request, context in
                let body = try await env.decode(WebFileUploadDecision.self, from: request)
                guard let token = body.token, !token.isEmpty, token.utf8.count <= 200 else { throw CollabError.badRequest("token is required") }
                try Limits.checkOptional(body.reason, field: "reason", max: Limits.textLength)
                let decision: FileInterception.Decision = approve ? .approved : .rejected(body.reason ?? "rejected by an interceptor")
                guard interception.resolve(token, decision, if: { decides(context.principal, $0) }) else {
                    throw CollabError.notFound("FileUpload", "token")
                }
                return noContent
            }
        }
    }
}

/// `/fileuploadglobalinterceptors/…`: the server's global file-upload interceptors. Super admins manage
/// them (create, read, getByName, search, update, delete, sendPing); every upload in every account is
/// reviewed by the matching ones after the account's own interceptors. `approveFileUpload` and
/// `rejectFileUpload` resolve a global review: for a super admin (the operator of the global backend), or
/// an admin of the account the file was uploaded in.
struct GlobalFileInterceptorRoutes {
    let environment: CollabEnvironment
    let interception: FileInterception
    let dispatcher: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let place = GlobalFileUploadInterceptors(environment: env)
        InterceptorRoutes(place: place, environment: env).register(on: group)
        FileInterceptorRoutes.registerDecisions(on: group, environment: env, interception: interception) { principal, pending in
            pending.reviewer == .global && (principal.role >= .superAdmin || principal.canAccess(accountId: pending.accountId))
        }
        let dispatcher = self.dispatcher
        group.operation(.post, ":interceptorId/sendPing", role: place.role) { _, context in
            let id = try context.pathParameter("interceptorId")
            let interceptor = try place.read(context.principal) { list throws(CollabError) in try list.interceptor(id) }
            dispatcher.ping(interceptor, now: env.clock.now())
            return noContent
        }
    }
}

extension WebFileUploadInterceptorFields: InterceptorFields {
    static func body(showing interceptor: FileUploadInterceptor) -> WebFileUploadInterceptor {
        var body = WebFileUploadInterceptor(
            name: interceptor.name, order: interceptor.order, mimeTypeRegex: interceptor.mimeTypeRegex, webhookEndpoint: interceptor.endpoint
        )
        body.showRecordFields(of: interceptor)
        // A global interceptor belongs to no account.
        body.accountId = interceptor.accountId.isEmpty ? nil : interceptor.accountId
        body.description = interceptor.description
        body.webhookStatus = interceptor.status.rawValue
        body.webhookApiVersion = interceptor.apiVersion
        body.webhookSecret = interceptor.secret
        return body
    }

    static func input(of body: WebFileUploadInterceptor) throws(CollabError) -> FileUploadInterceptorInput {
        try checkType(body)
        return try FileUploadInterceptorInput(body)
    }
}
