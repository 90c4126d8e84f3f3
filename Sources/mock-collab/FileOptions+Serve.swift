import ArgumentParser
import CollabCore
import CollabServer
import Foundation

/// `serve`'s bounds on files shared in conversations: sizes, the quota and the upload slots, each with
/// a share per account.
struct ServeFileOptions: ParsableArguments {

    @Option(help: "Largest file upload in bytes; com.unblu.filemanager.maxFileSize can only lower it (MOCK_COLLAB_MAX_FILE_SIZE).")
    var maxFileSize: Int64 = EnvironmentDefaults.value("MOCK_COLLAB_MAX_FILE_SIZE", 10 * 1024 * 1024)

    @Option(help: "Bytes all stored files may take; default 1 GiB on disk, 64 MiB in memory (MOCK_COLLAB_FILE_QUOTA).")
    var fileQuota: Int64?

    @Option(
        help: """
            Bytes one account's stored files may take, beyond which its uploads are answered 507; \
            default: a quarter of --file-quota (MOCK_COLLAB_ACCOUNT_FILE_QUOTA).
            """
    )
    var accountFileQuota: Int64?

    @Option(help: "Uploads streaming at once on the server; one more is answered 429 (MOCK_COLLAB_MAX_CONCURRENT_UPLOADS).")
    var maxConcurrentUploads: Int = EnvironmentDefaults.value("MOCK_COLLAB_MAX_CONCURRENT_UPLOADS", 16)

    @Option(
        help: """
            Uploads one account's callers may stream at once; one more of theirs is answered 429; \
            default: a quarter of --max-concurrent-uploads, at least 1 (MOCK_COLLAB_MAX_UPLOADS_PER_ACCOUNT).
            """
    )
    var maxUploadsPerAccount: Int?

    @Option(
        help: """
            Bytes per second an upload, or any other request body, must average once --upload-rate-grace is over, else it is \
            answered 408 (an upload's slot freed); 0: no minimum (MOCK_COLLAB_UPLOAD_MIN_RATE).
            """
    )
    var uploadMinRate: Int = EnvironmentDefaults.value("MOCK_COLLAB_UPLOAD_MIN_RATE", 1024)

    @Option(help: "Seconds an upload or other request body may take before it must keep up with --upload-min-rate (MOCK_COLLAB_UPLOAD_RATE_GRACE).")
    var uploadRateGrace: Double = EnvironmentDefaults.value("MOCK_COLLAB_UPLOAD_RATE_GRACE", 10)

    @Option(help: "Directory for stored files; default files/ beside the SQLite file, ./.mock-collab/files with PostgreSQL (MOCK_COLLAB_FILES_DIR).")
    var filesDir: String?

    // The options without a default take their environment variable when not given (an optional option
    // may not default to one).
    private var quota: Int64? { fileQuota ?? EnvironmentDefaults.optional("MOCK_COLLAB_FILE_QUOTA") }
    private var accountQuota: Int64? { accountFileQuota ?? EnvironmentDefaults.optional("MOCK_COLLAB_ACCOUNT_FILE_QUOTA") }
    private var uploadsPerAccount: Int? { maxUploadsPerAccount ?? EnvironmentDefaults.optional("MOCK_COLLAB_MAX_UPLOADS_PER_ACCOUNT") }
    private var directory: String? { filesDir ?? EnvironmentDefaults.string("MOCK_COLLAB_FILES_DIR") }

    func validate() throws {
        guard maxFileSize > 0 else { throw ValidationError("--max-file-size must be positive") }
        if let quota { guard quota > 0 else { throw ValidationError("--file-quota must be positive") } }
        if let accountQuota { guard accountQuota > 0 else { throw ValidationError("--account-file-quota must be positive") } }
        guard maxConcurrentUploads > 0 else { throw ValidationError("--max-concurrent-uploads must be positive") }
        if let uploadsPerAccount, uploadsPerAccount <= 0 { throw ValidationError("--max-uploads-per-account must be positive") }
        guard uploadMinRate >= 0 else { throw ValidationError("--upload-min-rate must be 0 or more") }
        guard uploadRateGrace > 0, uploadRateGrace <= 86_400 else { throw ValidationError("--upload-rate-grace must be above 0 and at most 86400") }
    }

    var settings: FileSettings {
        FileSettings(
            maxFileSize: maxFileSize, quota: quota, accountQuota: accountQuota, maxConcurrentUploads: maxConcurrentUploads,
            maxUploadsPerAccount: uploadsPerAccount, minimumRate: MinimumRate(bytesPerSecond: uploadMinRate, grace: .seconds(uploadRateGrace)),
            directory: directory
        )
    }
}
