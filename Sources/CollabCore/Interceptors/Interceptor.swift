/// What message and file-upload interceptors share: a named endpoint that gets a signed request before a
/// message or a file is accepted, with a status, a secret and an optimistic `version`, kept in a short
/// list: an account's, or (global file-upload interceptors) the server's GLOBAL level. The generic
/// operations below work on any such list.
public protocol Interceptor: StorableEntity, Equatable, Sendable {
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
    var creationTimestamp: Timestamp { get }
    var status: WebhookRegistration.Status { get set }
    var endpoint: String { get set }
    var secret: String { get set }
    var modificationTimestamp: Timestamp { get set }
    var version: Int64 { get set }

    /// Applies the kind's own fields of checked input on an update.
    mutating func applyOwnFields(_ input: Input)
}

extension Interceptor {
    /// Interceptors of one kind an account (or the server, for global ones) may hold (each message or
    /// upload calls every matching one in turn).
    public static var maximumPerAccount: Int { 20 }
    public var storageAccountId: String? { accountId }

    /// Runs the vendor's `…InterceptorQuery` over a list: filters on NAME (the `StringOperator`s) and
    /// CREATION_TIMESTAMP, MODIFICATION_TIMESTAMP (the `TimestampOperator`s); order by those and ID.
    /// - Throws: `badRequest` naming a field the query model has no filter for, or an operator the
    ///   field's filter schema does not allow.
    public static func search(_ query: SearchQuery, in list: [String: Self]) throws(CollabError) -> SearchPage<Self> {
        let families: [String: EntityField<Self>.Kind] = ["NAME": .string, "CREATION_TIMESTAMP": .timestamp, "MODIFICATION_TIMESTAMP": .timestamp]
        for (position, filter) in query.filters.enumerated() {
            guard let family = families[filter.field] else {
                throw .badRequest("searchFilters[\(position)].field: \(entityName) search has no filter field '\(filter.field)'")
            }
            try family.check(filter, at: position)
        }
        return try searchSchema.run(query, over: list.values, id: \.id)
    }

    /// The fields an interceptor query filters and orders by.
    static var searchSchema: SearchSchema<Self> {
        SearchSchema(
            entityName,
            [
                "ID": { .of($0.id) },
                "NAME": { .of($0.name) },
                "CREATION_TIMESTAMP": { .of($0.creationTimestamp) },
                "MODIFICATION_TIMESTAMP": { .of($0.modificationTimestamp) },
            ]
        )
    }
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
        guard let name, Limits.fits(name, 250) else { throw .badRequest("name is longer than 250 characters") }
        try Limits.checkOptional(description, field: "description", max: 500)
        try validateOwnFields()
        try Limits.checkOutbound(
            endpoint: endpoint, endpointField: "webhookEndpoint", apiVersion: apiVersion, apiVersionField: "webhookApiVersion", secret: secret,
            secretField: "webhookSecret"
        )
    }
}

extension Dictionary where Key == String, Value: Interceptor {
    /// The interceptors in the order they are listed and called in.
    public var inCallOrder: [Value] { values.sorted(by: Value.precedes) }

    /// The interceptor `id`.
    public func interceptor(_ id: String) throws(CollabError) -> Value {
        guard let interceptor = self[id] else { throw .notFound(Value.entityName, id) }
        return interceptor
    }

    /// The first interceptor named `name`.
    public func interceptor(named name: String) throws(CollabError) -> Value {
        guard let found = inCallOrder.first(where: { $0.name == name }) else { throw .notFound(Value.entityName, name) }
        return found
    }

    /// Creates an interceptor of `accountId` ("" for a server-wide one); names are unique within the
    /// list; a secret is generated when absent.
    public mutating func createInterceptor(_ input: Value.Input, accountId: String, context: OperationContext) throws(CollabError) -> Value {
        try input.validate()
        guard count < Value.maximumPerAccount else { throw .conflict("at most \(Value.maximumPerAccount) \(Value.noun)s are kept together") }
        try checkUniqueName(input.name!, except: nil)
        let interceptor = Value.make(
            input, id: context.ids.make(), accountId: accountId, secret: input.secret ?? context.ids.makeSecret(), now: context.now
        )
        self[interceptor.id] = interceptor
        return interceptor
    }

    /// Updates an interceptor at the `version` the caller last saw; status and secret are kept when absent.
    public mutating func updateInterceptor(
        id: String, version: Int64?, _ input: Value.Input, context: OperationContext
    ) throws(CollabError) -> Value {
        var interceptor = try self.interceptor(id)
        try AccountState.checkVersion(version, current: interceptor.version, entity: Value.entityName)
        try input.validate()
        try checkUniqueName(input.name!, except: id)
        interceptor.name = input.name!
        interceptor.description = input.description
        interceptor.applyOwnFields(input)
        interceptor.status = input.status ?? interceptor.status
        interceptor.endpoint = input.endpoint!
        if let secret = input.secret { interceptor.secret = secret }
        interceptor.version += 1
        interceptor.modificationTimestamp = context.now
        self[id] = interceptor
        return interceptor
    }

    /// Deletes an interceptor.
    public mutating func deleteInterceptor(_ id: String) throws(CollabError) {
        _ = try interceptor(id)
        self[id] = nil
    }

    private func checkUniqueName(_ name: String, except id: String?) throws(CollabError) {
        guard !values.contains(where: { $0.name == name && $0.id != id }) else {
            throw .conflict("a \(Value.noun) named '\(name)' already exists")
        }
    }

    /// The stored changes that turn `old` into this list.
    func changes(from old: Self, into changes: inout ChangeSet) {
        for (id, interceptor) in self where old[id] != interceptor { changes.put(interceptor) }
        for id in old.keys where self[id] == nil { changes.delete(Value.kind, id) }
    }
}

extension AccountState {
    /// An interceptor of the caller's account.
    public func interceptor<I: Interceptor>(_ type: I.Type, _ id: String, for principal: Principal) throws(CollabError) -> I {
        let interceptor = try self[keyPath: I.table].interceptor(id)
        guard principal.canAccess(accountId: interceptor.accountId) else { throw .notFound(I.entityName, id) }
        return interceptor
    }

    /// The account's interceptors of one kind, in their order.
    public func interceptors<I: Interceptor>(_ type: I.Type) -> [I] {
        self[keyPath: I.table].inCallOrder
    }

    /// Changes the account's interceptors of one kind with `body` (the generic operations above) and
    /// records what changed.
    public mutating func changeInterceptors<I: Interceptor, Result>(
        _ type: I.Type, changes: inout ChangeSet, _ body: (inout [String: I]) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        let old = self[keyPath: I.table]
        var list = old
        let result = try body(&list)
        list.changes(from: old, into: &changes)
        self[keyPath: I.table] = list
        return result
    }
}
