/// The file a FILE message carries. Download it from `/mobile/v1/conversations/{conversationId}/files/{id}`
/// (visitors) or `/agent/v1/conversations/{conversationId}/files/{id}` (agents and admins).
public struct FileView: Codable, Sendable, Equatable {
    /// The file's id (the vendor's `fileStoreId`).
    public var id: String
    public var name: String
    /// The type sniffed from the content.
    public var mimeType: String
    public var size: Int64
    /// Lower-case hex SHA-256 of the content; the download's `ETag` is this in quotes.
    public var sha256: String

    public init(id: String, name: String, mimeType: String, size: Int64, sha256: String) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.sha256 = sha256
    }
}

/// The files of a conversation, oldest first.
public struct FileList: Codable, Sendable {
    /// Each file with the FILE message that carries it.
    public var files: [MessageView]
    public init(files: [MessageView]) { self.files = files }
}

/// The typed error body's `type` values for refused files (beside the SDK's client error types).
public enum FileErrorType {
    public static let typeNotAllowed = "FILE_TYPE_NOT_ALLOWED"
    public static let typeMismatch = "FILE_TYPE_MISMATCH"
    public static let tooLarge = "FILE_TOO_LARGE"
    public static let quotaExceeded = "FILE_QUOTA_EXCEEDED"
    public static let rejected = "FILE_REJECTED"
    public static let empty = "FILE_EMPTY"
    public static let busy = "FILE_UPLOADS_BUSY"
    public static let tooSlow = "FILE_UPLOAD_TOO_SLOW"
}
