import CollabCore
import CollabWire

/// `/messageinterceptors/…` for external interceptors: the operations of every interceptor kind (``InterceptorRoutes``).
extension WebMessageInterceptorFields: InterceptorFields {
    static func body(showing interceptor: MessageInterceptor) -> WebMessageInterceptor {
        var body = WebMessageInterceptor(
            name: interceptor.name, messageFilter: interceptor.messageFilter.rawValue, timeoutBehavior: interceptor.timeoutBehavior.rawValue,
            webhookEndpoint: interceptor.endpoint, webhookSecret: interceptor.secret
        )
        body.showRecordFields(of: interceptor)
        body.description = interceptor.description
        body.webhookStatus = interceptor.status.rawValue
        body.webhookApiVersion = interceptor.apiVersion
        return body
    }

    static func input(of body: WebMessageInterceptor) throws(CollabError) -> MessageInterceptorInput {
        guard body.type == nil || body.type == typeName else {
            throw .badRequest("$_type must be 'ExternalMessageInterceptorData' (internal interceptors are not supported)")
        }
        guard body.interceptorType == nil || body.interceptorType == "EXTERNAL" else { throw .badRequest("type must be EXTERNAL") }
        return MessageInterceptorInput(
            name: body.name, description: body.description,
            messageFilter: try MessageInterceptor.MessageFilter.parseIfPresent(body.messageFilter, field: "messageFilter"),
            timeoutBehavior: try MessageInterceptor.TimeoutBehavior.parseIfPresent(body.timeoutBehavior, field: "timeoutBehavior"),
            status: try WebhookRegistration.Status.parseIfPresent(body.webhookStatus, field: "webhookStatus"), endpoint: body.webhookEndpoint,
            apiVersion: body.webhookApiVersion, secret: body.webhookSecret
        )
    }
}
