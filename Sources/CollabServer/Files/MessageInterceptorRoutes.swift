import CollabCore
import CollabWire

/// `/messageinterceptors/…` for external interceptors: the operations of every interceptor kind (``InterceptorRoutes``).
extension WebMessageInterceptor: InterceptorWire {
    init(_ interceptor: MessageInterceptor) {
        self.init(
            name: interceptor.name, messageFilter: interceptor.messageFilter.rawValue, timeoutBehavior: interceptor.timeoutBehavior.rawValue,
            webhookEndpoint: interceptor.endpoint, webhookSecret: interceptor.secret
        )
        showRecordFields(of: interceptor)
        description = interceptor.description
        webhookStatus = interceptor.status.rawValue
        webhookApiVersion = interceptor.apiVersion
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
