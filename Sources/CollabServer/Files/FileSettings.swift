/// Bounds on files shared in conversations (`mock-collab serve`'s `--max-file-size` and `--file-quota`).
public struct FileSettings: Sendable, Equatable {
    /// The largest upload in bytes; `com.unblu.filemanager.maxFileSize` can only lower it.
    public var maxFileSize: Int64
    /// Bytes all stored files may take together; `nil`: 1 GiB on disk, 64 MiB with `memory` storage.
    public var quota: Int64?
    /// Uploads streaming at once; one more is answered 429 at once.
    public var maxConcurrentUploads: Int
    /// Where files are kept with SQLite storage; `nil`: `files/` beside the SQLite file.
    public var directory: String?

    /// - Parameters:
    ///   - maxFileSize: Default 10 MiB.
    ///   - quota: Default per storage (see ``quota``).
    ///   - maxConcurrentUploads: Default 16.
    ///   - directory: Default `files/` beside the SQLite file.
    public init(maxFileSize: Int64 = 10 * 1024 * 1024, quota: Int64? = nil, maxConcurrentUploads: Int = 16, directory: String? = nil) {
        self.maxFileSize = maxFileSize
        self.quota = quota
        self.maxConcurrentUploads = maxConcurrentUploads
        self.directory = directory
    }

    static let defaultDiskQuota: Int64 = 1 << 30
    static let defaultMemoryQuota: Int64 = 64 << 20
}
