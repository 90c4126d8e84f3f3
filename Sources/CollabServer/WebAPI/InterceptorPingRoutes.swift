import CollabCore
import CollabWire
import Hummingbird

/// `fileuploadinterceptors/{id}/sendPing` (a `WebhookPingEvent` to the interceptor's endpoint, queued
/// like any webhook) and `messageinterceptors/{id}/sendPing` (a `PingRequest` the external interceptor
/// must answer with its `PingResponse`, within the account's interceptor timeout).
struct InterceptorPingRoutes {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let dispatcher = dispatcher
        group.group("fileuploadinterceptors").operation(.post, ":interceptorId/sendPing", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            let interceptor = try env.read(context.principal) { state throws(CollabError) in
                try state.interceptor(FileUploadInterceptor.self, id, for: context.principal)
            }
            dispatcher.ping(interceptor, now: env.clock.now())
            return noContent
        }
        group.group("messageinterceptors").operation(.post, ":interceptorId/sendPing", role: .admin) { _, context in
            let id = try context.pathParameter("interceptorId")
            let (interceptor, timeout) = try env.read(context.principal) { state throws(CollabError) in
                (try state.interceptor(MessageInterceptor.self, id, for: context.principal), MessageReview.timeoutMillis(state))
            }
            guard interceptor.status == .active else { throw CollabError(.unavailable, "the message interceptor is \(interceptor.status.rawValue)") }
            let target = OutboundTarget(
                name: "the message interceptor", endpoint: interceptor.endpoint, secret: interceptor.secret, timeoutMillis: Int64(timeout)
            )
            return JSONBody.response(try await dispatcher.ping(target, accountId: interceptor.accountId, serviceName: "message interceptor"))
        }
    }
}
