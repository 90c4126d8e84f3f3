/// An external message interceptor (the vendor's `ExternalMessageInterceptorData`): before a message
/// is stored, its endpoint gets a signed `outbound.message_interceptor.new_message` request and answers
/// APPROVE or REJECT in the response body. No answer in time follows `timeoutBehavior`.
public struct MessageInterceptor: Sendable, Codable, Equatable, Identifiable {
    /// `EMessageInterceptorMessageFilter`: whose messages it reviews.
    public enum MessageFilter: String, Sendable, Codable, CaseIterable {
        case agent = "AGENT"
        case visitor = "VISITOR"
        case all = "ALL"
    }

    /// `EMessageInterceptorTimeoutBehavior`.
    public enum TimeoutBehavior: String, Sendable, Codable, CaseIterable {
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

    /// Interceptors one account may hold (each message calls every matching one in turn).
    public static let maximumPerAccount = 20
}

/// The editable fields of a message interceptor.
public struct MessageInterceptorInput: Sendable {
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

    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        guard let name, name.count <= 250 else { throw .badRequest("name is longer than 250 characters") }
        try Limits.checkOptional(description, field: "description", max: 500)
        try Limits.checkOutbound(
            endpoint: endpoint, endpointField: "webhookEndpoint", apiVersion: apiVersion, apiVersionField: "webhookApiVersion", secret: secret,
            secretField: "webhookSecret"
        )
    }
}

extension MessageInterceptor: StorableEntity {
    public static var kind: EntityKind { .messageInterceptor }
    public var storageAccountId: String? { accountId }
}

extension AccountState {
    /// An interceptor of the caller's account.
    public func messageInterceptor(_ id: String, for principal: Principal) throws(CollabError) -> MessageInterceptor {
        guard let interceptor = messageInterceptors[id], principal.canAccess(accountId: interceptor.accountId) else {
            throw .notFound("MessageInterceptor", id)
        }
        return interceptor
    }

    /// The account's message interceptors by name, then id.
    public var orderedMessageInterceptors: [MessageInterceptor] {
        messageInterceptors.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// The active interceptors that review a message from `personId`.
    public func messageInterceptors(reviewing personId: String) -> [MessageInterceptor] {
        guard !messageInterceptors.isEmpty else { return [] }
        let fromAgent = isAgent(personId, accountId: accountId)
        return orderedMessageInterceptors.filter { $0.reviews(fromAgent: fromAgent) }
    }

    public mutating func createMessageInterceptor(
        _ input: MessageInterceptorInput, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> MessageInterceptor {
        try input.validate()
        guard messageInterceptors.count < MessageInterceptor.maximumPerAccount else {
            throw .conflict("an account holds at most \(MessageInterceptor.maximumPerAccount) message interceptors")
        }
        guard !messageInterceptors.values.contains(where: { $0.name == input.name }) else {
            throw .conflict("a message interceptor named '\(input.name!)' already exists")
        }
        let interceptor = MessageInterceptor(
            id: context.ids.make(), accountId: accountId, name: input.name!, description: input.description, messageFilter: input.messageFilter ?? .all,
            timeoutBehavior: input.timeoutBehavior ?? .reject, status: input.status ?? .active, endpoint: input.endpoint!, apiVersion: "V4",
            secret: input.secret ?? context.ids.makeSecret(), creationTimestamp: context.now, modificationTimestamp: context.now, version: 1
        )
        messageInterceptors[interceptor.id] = interceptor
        changes.put(interceptor)
        return interceptor
    }

    public mutating func updateMessageInterceptor(
        id: String, version: Int64?, _ input: MessageInterceptorInput, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> MessageInterceptor {
        var interceptor = try messageInterceptor(id, for: principal)
        try Self.checkVersion(version, current: interceptor.version, entity: "MessageInterceptor")
        try input.validate()
        guard !messageInterceptors.values.contains(where: { $0.name == input.name && $0.id != id }) else {
            throw .conflict("a message interceptor named '\(input.name!)' already exists")
        }
        interceptor.name = input.name!
        interceptor.description = input.description
        interceptor.messageFilter = input.messageFilter ?? interceptor.messageFilter
        interceptor.timeoutBehavior = input.timeoutBehavior ?? interceptor.timeoutBehavior
        interceptor.status = input.status ?? interceptor.status
        interceptor.endpoint = input.endpoint!
        if let secret = input.secret { interceptor.secret = secret }
        interceptor.version += 1
        interceptor.modificationTimestamp = context.now
        messageInterceptors[id] = interceptor
        changes.put(interceptor)
        return interceptor
    }

    public mutating func deleteMessageInterceptor(_ id: String, for principal: Principal, changes: inout ChangeSet) throws(CollabError) {
        _ = try messageInterceptor(id, for: principal)
        messageInterceptors[id] = nil
        changes.delete(.messageInterceptor, id)
    }
}
