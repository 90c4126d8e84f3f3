import Foundation

/// A file-upload interceptor (the vendor's `FileUploadInterceptorData`): before a file is accepted,
/// its endpoint gets a signed `file_upload_interceptor.new_file` event with a token and a download
/// link, and approves or rejects the upload with that token (`fileuploadinterceptors/approveFileUpload`,
/// `rejectFileUpload`). Interceptors run in `order`; the first rejection ends the upload.
public struct FileUploadInterceptor: Sendable, Codable, Equatable, Identifiable {
    public var id: String
    public var accountId: String
    public var name: String
    public var description: String?
    /// Position among the account's interceptors (lower first).
    public var order: Int
    /// Types the interceptor reviews (a whole-string match); `nil`: every type.
    public var mimeTypeRegex: String?
    public var status: WebhookRegistration.Status
    public var endpoint: String
    public var apiVersion: String
    /// The HMAC key of `x-unblu-signature-256`.
    public var secret: String
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64

    /// Whether the interceptor reviews files of `mimeType`.
    public func reviews(_ mimeType: String) -> Bool {
        guard status == .active else { return false }
        guard let mimeTypeRegex, !mimeTypeRegex.isEmpty else { return true }
        guard let regex = try? NSRegularExpression(pattern: "^(?:\(mimeTypeRegex))$") else { return false }
        return regex.firstMatch(in: mimeType, range: NSRange(mimeType.startIndex..., in: mimeType)) != nil
    }
}

/// The editable fields of a file-upload interceptor.
public struct FileUploadInterceptorInput: Sendable {
    public var name: String?
    public var description: String?
    public var order: Int?
    public var mimeTypeRegex: String?
    public var status: WebhookRegistration.Status?
    public var endpoint: String?
    public var apiVersion: String?
    public var secret: String?

    public init(
        name: String? = nil, description: String? = nil, order: Int? = nil, mimeTypeRegex: String? = nil, status: WebhookRegistration.Status? = nil,
        endpoint: String? = nil, apiVersion: String? = nil, secret: String? = nil
    ) {
        self.name = name
        self.description = description
        self.order = order
        self.mimeTypeRegex = mimeTypeRegex
        self.status = status
        self.endpoint = endpoint
        self.apiVersion = apiVersion
        self.secret = secret
    }

    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        guard let name, name.count <= 250 else { throw .badRequest("name is longer than 250 characters") }
        try Limits.checkOptional(description, field: "description", max: 500)
        guard order != nil else { throw .badRequest("order is required") }
        try Limits.checkOutbound(
            endpoint: endpoint, endpointField: "webhookEndpoint", apiVersion: apiVersion, apiVersionField: "webhookApiVersion", secret: secret,
            secretField: "webhookSecret"
        )
        if let mimeTypeRegex, !mimeTypeRegex.isEmpty {
            guard mimeTypeRegex.count <= 500, (try? NSRegularExpression(pattern: mimeTypeRegex)) != nil else {
                throw .badRequest("mimeTypeRegex is not a valid regular expression of at most 500 characters")
            }
        }
    }
}

extension FileUploadInterceptor: StorableEntity {
    public static var kind: EntityKind { .fileUploadInterceptor }
    public var storageAccountId: String? { accountId }
}

extension AccountState {
    /// An interceptor of the caller's account.
    public func fileUploadInterceptor(_ id: String, for principal: Principal) throws(CollabError) -> FileUploadInterceptor {
        guard let interceptor = fileUploadInterceptors[id], principal.canAccess(accountId: interceptor.accountId) else {
            throw .notFound("FileUploadInterceptor", id)
        }
        return interceptor
    }

    /// The account's interceptors, in order (then by id).
    public var orderedFileUploadInterceptors: [FileUploadInterceptor] {
        fileUploadInterceptors.values.sorted { ($0.order, $0.id) < ($1.order, $1.id) }
    }

    /// The active interceptors that review files of `mimeType`, in order.
    public func fileUploadInterceptors(reviewing mimeType: String) -> [FileUploadInterceptor] {
        orderedFileUploadInterceptors.filter { $0.reviews(mimeType) }
    }

    /// Creates an interceptor; names are unique within an account; a secret is generated when absent.
    public mutating func createFileUploadInterceptor(
        _ input: FileUploadInterceptorInput, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> FileUploadInterceptor {
        try input.validate()
        guard fileUploadInterceptors.count < FileUploadInterceptor.maximumPerAccount else {
            throw .conflict("an account holds at most \(FileUploadInterceptor.maximumPerAccount) file upload interceptors")
        }
        guard !fileUploadInterceptors.values.contains(where: { $0.name == input.name }) else {
            throw .conflict("a file upload interceptor named '\(input.name!)' already exists")
        }
        let interceptor = FileUploadInterceptor(
            id: context.ids.make(), accountId: accountId, name: input.name!, description: input.description, order: input.order!,
            mimeTypeRegex: input.mimeTypeRegex.flatMap { $0.isEmpty ? nil : $0 }, status: input.status ?? .active, endpoint: input.endpoint!,
            apiVersion: "V4", secret: input.secret ?? context.ids.makeSecret(), creationTimestamp: context.now, modificationTimestamp: context.now, version: 1
        )
        fileUploadInterceptors[interceptor.id] = interceptor
        changes.put(interceptor)
        return interceptor
    }

    /// Updates an interceptor (optimistic `version`); the secret is kept when absent.
    public mutating func updateFileUploadInterceptor(
        id: String, version: Int64?, _ input: FileUploadInterceptorInput, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> FileUploadInterceptor {
        var interceptor = try fileUploadInterceptor(id, for: principal)
        try Self.checkVersion(version, current: interceptor.version, entity: "FileUploadInterceptor")
        try input.validate()
        guard !fileUploadInterceptors.values.contains(where: { $0.name == input.name && $0.id != id }) else {
            throw .conflict("a file upload interceptor named '\(input.name!)' already exists")
        }
        interceptor.name = input.name!
        interceptor.description = input.description
        interceptor.order = input.order!
        interceptor.mimeTypeRegex = input.mimeTypeRegex.flatMap { $0.isEmpty ? nil : $0 }
        interceptor.status = input.status ?? interceptor.status
        interceptor.endpoint = input.endpoint!
        if let secret = input.secret { interceptor.secret = secret }
        interceptor.version += 1
        interceptor.modificationTimestamp = context.now
        fileUploadInterceptors[id] = interceptor
        changes.put(interceptor)
        return interceptor
    }

    /// Deletes an interceptor.
    public mutating func deleteFileUploadInterceptor(_ id: String, for principal: Principal, changes: inout ChangeSet) throws(CollabError) {
        _ = try fileUploadInterceptor(id, for: principal)
        fileUploadInterceptors[id] = nil
        changes.delete(.fileUploadInterceptor, id)
    }
}

extension FileUploadInterceptor {
    /// Interceptors one account may hold (each upload calls every matching one in turn).
    public static let maximumPerAccount = 20
}
