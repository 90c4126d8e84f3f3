/// `ExternalMessageInterceptorData` (the `MessageInterceptorData` variant MockCollab implements).
public typealias WebMessageInterceptor = WebEntity<WebMessageInterceptorFields>

/// The fields of `ExternalMessageInterceptorData` after the ``WebEntityHeader``.
public struct WebMessageInterceptorFields: WebEntityFields, Equatable {
    public static let typeName = "ExternalMessageInterceptorData"
    public var name: String?
    public var description: String?
    /// `EMessageInterceptorMessageFilter`: `AGENT`, `VISITOR` or `ALL`.
    public var messageFilter: String?
    /// `EMessageInterceptorTimeoutBehavior`: `REJECT` or `CONTINUE`.
    public var timeoutBehavior: String?
    /// `EMessageInterceptorType`: `EXTERNAL`.
    public var interceptorType: String?
    public var webhookStatus: String?
    public var webhookEndpoint: String?
    public var webhookApiVersion: String?
    public var webhookSecret: String?

    enum CodingKeys: String, CodingKey {
        case name, description, messageFilter, timeoutBehavior
        case interceptorType = "type"
        case webhookStatus, webhookEndpoint, webhookApiVersion, webhookSecret
    }
}

extension WebMessageInterceptor {
    /// An external message interceptor to create.
    public init(
        name: String? = nil, messageFilter: String? = nil, timeoutBehavior: String? = nil, webhookEndpoint: String? = nil,
        webhookSecret: String? = nil
    ) {
        self.init(
            WebMessageInterceptorFields(
                name: name, messageFilter: messageFilter, timeoutBehavior: timeoutBehavior, interceptorType: "EXTERNAL",
                webhookEndpoint: webhookEndpoint, webhookSecret: webhookSecret
            )
        )
    }
}

/// `InterceptorNewMessageRequest`: what an external message interceptor receives
/// (`outbound.message_interceptor.new_message`) and answers with a ``WebMessageInterceptorDecision``.
public struct WebInterceptorNewMessageRequest: Codable, Sendable {
    public var type: String? = "InterceptorNewMessageRequest"
    public var accountId: String?
    public var serviceName: String?
    public var conversationMessage: WebTextMessage?
    public var conversationLanguage: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", accountId, serviceName, conversationMessage, conversationLanguage
    }

    public init() {}
}

/// `MessageInterceptorOutboundApproveResponse` / `MessageInterceptorOutboundRejectResponse`.
public struct WebMessageInterceptorDecision: Codable, Sendable {
    public var type: String?
    /// `APPROVE` or `REJECT`.
    public var decision: String?
    public var reason: String?
    /// `ESentRejectionSeverity`.
    public var severity: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case decision = "type"
        case reason, severity
    }

    public init(approve: Bool, reason: String? = nil) {
        type = approve ? "MessageInterceptorOutboundApproveResponse" : "MessageInterceptorOutboundRejectResponse"
        decision = approve ? "APPROVE" : "REJECT"
        self.reason = reason
    }
}

/// `MessageRejectedEvent`: the `message_interceptor.message_rejected` webhook event.
public typealias WebMessageRejectedEvent = VendorEvent<WebMessageRejectedFields>

/// The fields of `MessageRejectedEvent` after the ``VendorEvent`` header.
public struct WebMessageRejectedFields: Codable, Sendable {
    public var message: WebTextMessage?
    public var severity: String?
    public var reason: String?

    public init() {}
}
