/// `FileUploadInterceptorData`.
public typealias WebFileUploadInterceptor = WebEntity<WebFileUploadInterceptorFields>

/// The fields of `FileUploadInterceptorData` after the ``WebEntityHeader``.
public struct WebFileUploadInterceptorFields: WebEntityFields, Equatable {
    public static let typeName = "FileUploadInterceptorData"
    public var name: String?
    public var description: String?
    public var order: Int?
    public var mimeTypeRegex: String?
    /// `ERegistrationStatus`.
    public var webhookStatus: String?
    public var webhookEndpoint: String?
    public var webhookApiVersion: String?
    public var webhookSecret: String?
}

extension WebFileUploadInterceptor {
    /// A file-upload interceptor to create.
    public init(name: String? = nil, order: Int? = nil, mimeTypeRegex: String? = nil, webhookEndpoint: String? = nil, webhookSecret: String? = nil) {
        self.init(
            WebFileUploadInterceptorFields(
                name: name, order: order, mimeTypeRegex: mimeTypeRegex, webhookEndpoint: webhookEndpoint, webhookSecret: webhookSecret
            )
        )
    }
}

/// The body of `approveFileUpload` (`token`) and `rejectFileUpload` (`token`, `reason`).
public struct WebFileUploadDecision: Codable, Sendable {
    public var type: String?
    public var token: String?
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", token, reason
    }

    public init(token: String, reason: String? = nil) {
        self.token = token
        self.reason = reason
    }
}

/// `InterceptorNewFileEvent`: what an interceptor's endpoint receives for a file to review.
public typealias WebInterceptorNewFileEvent = VendorEvent<WebInterceptorNewFileFields>

/// The fields of `InterceptorNewFileEvent` after the ``VendorEvent`` header.
public struct WebInterceptorNewFileFields: Codable, Sendable {
    /// Approves or rejects the upload, and authorises `downloadLink`.
    public var apiToken: String?
    public var name: String?
    public var mimeType: String?
    public var length: Int64?
    public var downloadLink: String?
    /// `EFileUploadInterceptorSource`: `CONVERSATION`.
    public var source: String?
    public var person: WebPerson?
    public var conversationId: String?

    public init() {}
}

/// `InterceptorFileRejectedEvent`: the `file_upload_interceptor.file_rejected` webhook event.
public typealias WebInterceptorFileRejectedEvent = VendorEvent<WebInterceptorFileRejectedFields>

/// The fields of `InterceptorFileRejectedEvent` after the ``VendorEvent`` header.
public struct WebInterceptorFileRejectedFields: Codable, Sendable {
    public var name: String?
    public var mimeType: String?
    public var length: Int64?
    public var interceptorId: String?
    public var source: String?
    public var personId: String?
    public var conversationId: String?
    public var reason: String?

    public init() {}
}
