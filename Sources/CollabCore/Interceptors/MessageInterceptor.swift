public import CollabWire
/// An external message interceptor (the vendor's `ExternalMessageInterceptorData`): before a message
/// is stored, its endpoint gets a signed `outbound.message_interceptor.new_message` request and answers
/// APPROVE or REJECT in the response body. No answer in time follows `timeoutBehavior`.
public struct MessageInterceptor: Interceptor, Codable, Equatable, Identifiable {
    /// `EMessageInterceptorMessageFilter`: whose messages it reviews.
    public enum MessageFilter: String, Sendable, Codable, CaseIterable, NamedCases {
        case agent = "AGENT"
        case visitor = "VISITOR"
        case all = "ALL"
    }

    /// `EMessageInterceptorTimeoutBehavior`.
    public enum TimeoutBehavior: String, Sendable, Codable, CaseIterable, NamedCases {
        case reject = "REJECT"
        case `continue` = "CONTINUE"
    }

    public var id: String
    public var accountId: String
    public var name: String
    public var description: String?
    public var messageFilter: MessageFilter
    public var timeoutBehavior: TimeoutBehavior
    public var status: WebhookRegistration.Status
    public var endpoint: String
    public var apiVersion: String
    public var secret: String
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64

    /// Whether it reviews a message from an agent (`true`) or a visitor.
    public func reviews(fromAgent: Bool) -> Bool {
        status == .active && (messageFilter == .all || (messageFilter == .agent) == fromAgent)
    }
}

/// The editable fields of a message interceptor.
public struct MessageInterceptorInput: InterceptorInput {
    public var name: String?
    public var description: String?
    public var messageFilter: MessageInterceptor.MessageFilter?
    public var timeoutBehavior: MessageInterceptor.TimeoutBehavior?
    public var status: WebhookRegistration.Status?
    public var endpoint: String?
    public var apiVersion: String?
    public var secret: String?

    public init(
        name: String? = nil, description: String? = nil, messageFilter: MessageInterceptor.MessageFilter? = nil,
        timeoutBehavior: MessageInterceptor.TimeoutBehavior? = nil, status: WebhookRegistration.Status? = nil, endpoint: String? = nil,
        apiVersion: String? = nil, secret: String? = nil
    ) {
        self.name = name
        self.description = description
        self.messageFilter = messageFilter
        self.timeoutBehavior = timeoutBehavior
        self.status = status
        self.endpoint = endpoint
        self.apiVersion = apiVersion
        self.secret = secret
    }
}

extension MessageInterceptor {
    public static var kind: EntityKind { .messageInterceptor }
    public static var entityName: String { "MessageInterceptor" }
    public static var noun: String { "message interceptor" }
    public static var table: WritableKeyPath<AccountState, [String: MessageInterceptor]> { \.messageInterceptors }

    /// By name, then id.
    public static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.name, lhs.id) < (rhs.name, rhs.id) }

    public static func make(_ input: MessageInterceptorInput, id: String, accountId: String, secret: String, now: Timestamp) -> Self {
        MessageInterceptor(
            id: id, accountId: accountId, name: input.name!, description: input.description, messageFilter: input.messageFilter ?? .all,
            timeoutBehavior: input.timeoutBehavior ?? .reject, status: input.status ?? .active, endpoint: input.endpoint!, apiVersion: "V4",
            secret: secret, creationTimestamp: now, modificationTimestamp: now, version: 1
        )
    }

    public mutating func applyOwnFields(_ input: MessageInterceptorInput) {
        messageFilter = input.messageFilter ?? messageFilter
        timeoutBehavior = input.timeoutBehavior ?? timeoutBehavior
    }
}

extension AccountState {
    /// The active interceptors that review a message from `personId`.
    public func messageInterceptors(reviewing personId: String) -> [MessageInterceptor] {
        guard !messageInterceptors.isEmpty else { return [] }
        let fromAgent = isAgent(personId, accountId: accountId)
        return interceptors(MessageInterceptor.self).filter { $0.reviews(fromAgent: fromAgent) }
    }
}
