public import CollabCore

/// Bounds on files shared in conversations (`mock-collab serve`'s `--max-file-size`, `--file-quota`,
/// `--account-file-quota`, `--max-concurrent-uploads`, `--max-uploads-per-account`, `--upload-min-rate`
/// and `--upload-rate-grace`). The quota and the upload slots are shared by the accounts: each may
/// hold its share, the server its ceiling (see ``SharedBudget``).
public struct FileSettings: Sendable, Equatable {
    /// The largest upload in bytes; `com.unblu.filemanager.maxFileSize` can only lower it.
    public var maxFileSize: Int64
    /// Bytes all stored files may take together; `nil`: 1 GiB on disk, 64 MiB with `memory` storage.
    public var quota: Int64?
    /// Bytes one account's files may take; `nil`: a quarter of ``quota``.
    public var accountQuota: Int64?
    /// Uploads streaming at once on the server; one more is answered 429 at once.
    public var maxConcurrentUploads: Int
    /// Uploads one account's callers may stream at once; `nil`: a quarter of ``maxConcurrentUploads``
    /// (at least 1). One more of theirs is answered 429 at once.
    public var maxUploadsPerAccount: Int?
    /// The slowest an upload's body may arrive; a slower one is answered 408 and its slot freed.
    public var minimumRate: MinimumRate
    /// Where files are kept with SQLite storage; `nil`: `files/` beside the SQLite file.
    public var directory: String?

    /// - Parameters:
    ///   - maxFileSize: Default 10 MiB.
    ///   - quota: Default per storage (see ``quota``).
    ///   - accountQuota: Default a quarter of the quota.
    ///   - maxConcurrentUploads: Default 16.
    ///   - maxUploadsPerAccount: Default a quarter of `maxConcurrentUploads`.
    ///   - minimumRate: Default 1 KiB/s after 10 s.
    ///   - directory: Default `files/` beside the SQLite file.
    public init(
        maxFileSize: Int64 = 10 * 1024 * 1024, quota: Int64? = nil, accountQuota: Int64? = nil, maxConcurrentUploads: Int = 16,
        maxUploadsPerAccount: Int? = nil, minimumRate: MinimumRate = MinimumRate(), directory: String? = nil
    ) {
        self.maxFileSize = maxFileSize
        self.quota = quota
        self.accountQuota = accountQuota
        self.maxConcurrentUploads = maxConcurrentUploads
        self.maxUploadsPerAccount = maxUploadsPerAccount
        self.minimumRate = minimumRate
        self.directory = directory
    }

    static let defaultDiskQuota: Int64 = 1 << 30
    static let defaultMemoryQuota: Int64 = 64 << 20
}
