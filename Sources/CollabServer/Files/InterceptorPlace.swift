import CollabCore
import CollabStore
import CollabWire

/// Where the interceptors a set of ``InterceptorRoutes`` serves are kept, and the role their
/// operations need: the caller's account (``AccountInterceptors``), or the server's GLOBAL level
/// (``GlobalFileUploadInterceptors``).
protocol InterceptorPlace: Sendable {
    associatedtype Fields: InterceptorFields

    /// The role the vendor's spec gives the place's create, read, getByName, search, update and delete.
    var role: AuthorizationRole { get }
    /// Reads the interceptors the caller reaches here.
    func read<Result: Sendable>(
        _ principal: Principal, _ body: ([String: Fields.Model]) throws(CollabError) -> Result
    ) throws(CollabError) -> Result
    /// Changes them durably with the generic interceptor operations; `accountId` is what a new one belongs to.
    func write<Result: Sendable>(
        _ principal: Principal, requestedAccount: String?,
        _ body: (inout [String: Fields.Model], _ accountId: String, OperationContext) throws(CollabError) -> Result
    ) async throws -> Result
}

/// An account's interceptors of one kind, reached by its admins.
struct AccountInterceptors<Fields: InterceptorFields>: InterceptorPlace {
    let environment: CollabEnvironment
    var role: AuthorizationRole { .admin }

    func read<Result: Sendable>(
        _ principal: Principal, _ body: ([String: Fields.Model]) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        try environment.read(principal) { state throws(CollabError) in try body(state[keyPath: Fields.Model.table]) }
    }

    func write<Result: Sendable>(
        _ principal: Principal, requestedAccount: String?,
        _ body: (inout [String: Fields.Model], _ accountId: String, OperationContext) throws(CollabError) -> Result
    ) async throws -> Result {
        // A body naming another account is refused as "not found" before anything is read.
        _ = try ownAccount(requestedAccount, principal)
        return try await environment.write(principal) { state, changes, op throws(CollabError) in
            let accountId = state.accountId
            return try state.changeInterceptors(Fields.Model.self, changes: &changes) { list throws(CollabError) in try body(&list, accountId, op) }
        }
    }
}

/// The server's global file-upload interceptors, stored on the GLOBAL level (like the licence and the
/// GLOBAL configuration) and reached by super admins only; they belong to no account (id "").
struct GlobalFileUploadInterceptors: InterceptorPlace {
    typealias Fields = WebFileUploadInterceptorFields
    let environment: CollabEnvironment
    var role: AuthorizationRole { .superAdmin }

    func read<Result: Sendable>(
        _ principal: Principal, _ body: ([String: FileUploadInterceptor]) throws(CollabError) -> Result
    ) throws(CollabError) -> Result {
        try body(environment.repository.directory.globalConfiguration.fileUploadInterceptors)
    }

    func write<Result: Sendable>(
        _ principal: Principal, requestedAccount: String?,
        _ body: (inout [String: FileUploadInterceptor], _ accountId: String, OperationContext) throws(CollabError) -> Result
    ) async throws -> Result {
        let op = environment.operation
        return try await environment.repository.writeAcross(accountNames: []) { set, changes throws(CollabError) in
            try set.changeGlobalFileUploadInterceptors(changes: &changes) { list throws(CollabError) in try body(&list, "", op) }
        }
    }
}
