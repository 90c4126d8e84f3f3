/// What message and file-upload interceptors share: a named endpoint of one account that gets a signed
/// request before a message or a file is accepted, with a status, a secret and an optimistic
/// `version`, kept in a short per-account list. The generic operations below store both kinds.
public protocol Interceptor: StorableEntity, Sendable {
    /// The editable fields a create or an update takes.
    associatedtype Input: InterceptorInput

    /// The vendor's entity name, as a not-found error names it.
    static var entityName: String { get }
    /// The kind in words, for conflicts ("message interceptor").
    static var noun: String { get }
    /// Where an account keeps this kind.
    static var table: WritableKeyPath<AccountState, [String: Self]> { get }
    /// The order an account's interceptors are listed and called in.
    static func precedes(_ lhs: Self, _ rhs: Self) -> Bool
    /// A new interceptor from checked input (name and endpoint present).
    static func make(_ input: Input, id: String, accountId: String, secret: String, now: Timestamp) -> Self

    var id: String { get }
    var accountId: String { get }
    var name: String { get set }
    var description: String? { get set }
    var status: WebhookRegistration.Status { get set }
    var endpoint: String { get set }
    var secret: String { get set }
    var modificationTimestamp: Timestamp { get set }
    var version: Int64 { get set }

    /// Applies the kind's own fields of checked input on an update.
    mutating func applyOwnFields(_ input: Input)
}

extension Interceptor {
    /// Interceptors of one kind an account may hold (each message or upload calls every matching one in turn).
    public static var maximumPerAccount: Int { 20 }
    public var storageAccountId: String? { accountId }
}

/// The editable fields every interceptor kind takes; the kind adds its own and checks them.
public protocol InterceptorInput: Sendable {
    var name: String? { get }
    var description: String? { get }
    var status: WebhookRegistration.Status? { get }
    var endpoint: String? { get }
    var apiVersion: String? { get }
    var secret: String? { get }

    /// Checks the kind's own fields.
    func validateOwnFields() throws(CollabError)
}

extension InterceptorInput {
    /// No fields of its own to check.
    public func validateOwnFields() throws(CollabError) {}

    /// Checks every field: the shared ones as the vendor's `webhook…` fields, then the kind's own.
    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        guard let name, name.count <= 250 else { throw .badRequest("name is longer than 250 characters") }
        try Limits.checkOptional(description, field: "description", max: 500)
        try validateOwnFields()
        try Limits.checkOutbound(
            endpoint: endpoint, endpointField: "webhookEndpoint", apiVersion: apiVersion, apiVersionField: "webhookApiVersion", secret: secret,
            secretField: "webhookSecret"
        )
    }
}

extension AccountState {
    /// An interceptor of the caller's account.
    public func interceptor<I: Interceptor>(_ type: I.Type, _ id: String, for principal: Principal) throws(CollabError) -> I {
        guard let interceptor = self[keyPath: I.table][id], principal.canAccess(accountId: interceptor.accountId) else {
            throw .notFound(I.entityName, id)
        }
        return interceptor
    }

    /// The account's interceptors of one kind, in their order.
    public func interceptors<I: Interceptor>(_ type: I.Type) -> [I] {
        self[keyPath: I.table].values.sorted(by: I.precedes)
    }

    /// The first of the account's interceptors named `name`.
    public func interceptor<I: Interceptor>(_ type: I.Type, named name: String) throws(CollabError) -> I {
        guard let found = interceptors(I.self).first(where: { $0.name == name }) else { throw .notFound(I.entityName, name) }
        return found
    }

    /// Creates an interceptor; names are unique within an account; a secret is generated when absent.
    public mutating func createInterceptor<I: Interceptor>(
        _ input: I.Input, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> I {
        try input.validate()
        guard self[keyPath: I.table].count < I.maximumPerAccount else {
            throw .conflict("an account holds at most \(I.maximumPerAccount) \(I.noun)s")
        }
        try checkUniqueName(I.self, input.name!, except: nil)
        let id = context.ids.make()
        let interceptor = I.make(input, id: id, accountId: accountId, secret: input.secret ?? context.ids.makeSecret(), now: context.now)
        self[keyPath: I.table][interceptor.id] = interceptor
        changes.put(interceptor)
        return interceptor
    }

    /// Updates an interceptor at the `version` the caller last saw; status and secret are kept when absent.
    public mutating func updateInterceptor<I: Interceptor>(
        id: String, version: Int64?, _ input: I.Input, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> I {
        var interceptor = try self.interceptor(I.self, id, for: principal)
        try Self.checkVersion(version, current: interceptor.version, entity: I.entityName)
        try input.validate()
        try checkUniqueName(I.self, input.name!, except: id)
        interceptor.name = input.name!
        interceptor.description = input.description
        interceptor.applyOwnFields(input)
        interceptor.status = input.status ?? interceptor.status
        interceptor.endpoint = input.endpoint!
        if let secret = input.secret { interceptor.secret = secret }
        interceptor.version += 1
        interceptor.modificationTimestamp = context.now
        self[keyPath: I.table][id] = interceptor
        changes.put(interceptor)
        return interceptor
    }

    /// Deletes an interceptor.
    public mutating func deleteInterceptor<I: Interceptor>(
        _ type: I.Type, _ id: String, for principal: Principal, changes: inout ChangeSet
    ) throws(CollabError) {
        _ = try interceptor(I.self, id, for: principal)
        self[keyPath: I.table][id] = nil
        changes.delete(I.kind, id)
    }

    private func checkUniqueName<I: Interceptor>(_ type: I.Type, _ name: String, except id: String?) throws(CollabError) {
        guard !self[keyPath: I.table].values.contains(where: { $0.name == name && $0.id != id }) else {
            throw .conflict("a \(I.noun) named '\(name)' already exists")
        }
    }
}
