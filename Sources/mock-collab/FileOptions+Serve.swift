import ArgumentParser
import CollabServer
import Foundation

/// `serve`'s bounds on files shared in conversations.
struct ServeFileOptions: ParsableArguments {
    private static let environment = ProcessInfo.processInfo.environment

    @Option(help: "Largest file upload in bytes; com.unblu.filemanager.maxFileSize can only lower it (MOCK_COLLAB_MAX_FILE_SIZE).")
    var maxFileSize: Int64 = environment["MOCK_COLLAB_MAX_FILE_SIZE"].flatMap(Int64.init) ?? 10 * 1024 * 1024

    @Option(help: "Bytes all stored files may take; default 1 GiB on disk, 64 MiB in memory (MOCK_COLLAB_FILE_QUOTA).")
    var fileQuota: Int64? = environment["MOCK_COLLAB_FILE_QUOTA"].flatMap(Int64.init)

    @Option(help: "Directory for stored files; default files/ beside the SQLite file, ./.mock-collab/files with PostgreSQL (MOCK_COLLAB_FILES_DIR).")
    var filesDir: String? = environment["MOCK_COLLAB_FILES_DIR"]

    func validate() throws {
        guard maxFileSize > 0 else { throw ValidationError("--max-file-size must be positive") }
        if let fileQuota { guard fileQuota > 0 else { throw ValidationError("--file-quota must be positive") } }
    }

    var settings: FileSettings { FileSettings(maxFileSize: maxFileSize, quota: fileQuota, directory: filesDir) }
}
