import CollabCore
import Crypto
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File contents for snapshots: a stored file read whole for an export; an import's files staged out of
/// sight, shown only once the import's records commit, so a refused import leaves every stored byte as
/// it was.
///
/// On disk an import stages under `.staging/import-<id>/<account>/<conversation>/<file>`, each file
/// fsynced with its directory before the records commit, then renamed into place. A crash between the
/// commit and the renames leaves the staged files; the sweep at start finishes the renames for those
/// the committed FILE messages name with the same SHA-256 (``finishImports(root:referenced:byComponent:)``).
extension FileStorage {
    /// Whether a file is stored now.
    func contains(accountId: String, conversationId: String, fileId: String) -> Bool {
        state.withLock { $0.sizes[accountId]?[conversationId]?[fileId] != nil }
    }

    /// The bytes of a stored file, `nil` when it is missing.
    func contents(accountId: String, conversationId: String, fileId: String) async -> Data? {
        switch location(accountId: accountId, conversationId: conversationId, fileId: fileId) {
        case .none: return nil
        case .buffer(let buffer): return Data(buffer.readableBytesView)
        case .path(let path): return try? await Self.blocking { FileManager.default.contents(atPath: path) }
        }
    }

    /// The files of one snapshot import, staged and not yet visible.
    final class ImportStaging: Sendable {
        struct File: Sendable {
            var accountId: String
            var conversationId: String
            var fileId: String
            var size: Int64
            /// Where the staged bytes are: a path on disk, or the bytes with `memory` storage.
            var location: Location
        }

        /// `.staging/import-<id>` on disk.
        let directory: String?
        let files = Mutex<[File]>([])

        init(directory: String?) {
            self.directory = directory
        }

        /// Bytes staged in all.
        var size: Int64 { files.withLock { $0.reduce(0) { $0 + $1.size } } }
    }

    /// A staging area for one import.
    func beginImport() -> ImportStaging {
        switch backend {
        case .memory: ImportStaging(directory: nil)
        case .disk(let root): ImportStaging(directory: Self.importsDirectory(root: root) + "/import-" + EntityIDGenerator.system.make())
        }
    }

    /// Stages one file of an import (durably on disk) and says what it holds.
    func stage(_ content: Snapshot.FileContent, accountId: String, in staging: ImportStaging) async throws -> SnapshotReader.StagedFile {
        let bytes = content.bytes
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let location: Location
        if let root = staging.directory {
            let directory = Self.directory(root: root, accountId: accountId, conversationId: content.conversationId)
            let path = (directory as NSString).appendingPathComponent(Self.component(content.fileId))
            try await Self.blocking {
                try Self.makeDirectories(directory, below: (root as NSString).deletingLastPathComponent)
                try Self.writeDurably(bytes, to: path)
                try Self.fsyncPath(directory)
            }
            location = .path(path)
        } else {
            location = .buffer(ByteBuffer(data: bytes))
        }
        staging.files.withLock {
            $0.append(
                .init(
                    accountId: accountId, conversationId: content.conversationId, fileId: content.fileId, size: Int64(bytes.count),
                    location: location
                )
            )
        }
        return SnapshotReader.StagedFile(conversationId: content.conversationId, fileId: content.fileId, size: Int64(bytes.count), sha256: digest)
    }

    /// Checks that the staged files fit in the server's quota beside the files stored now (those they
    /// replace aside). An import is the operator's: accounts' shares do not apply to it.
    /// - Throws: `payloadTooLarge` naming the quota.
    func checkRoom(for staging: ImportStaging) throws(CollabError) {
        let files = staging.files.withLock { $0 }
        try state.withLock { state throws(CollabError) in
            let replaced = files.reduce(Int64(0)) { $0 + (state.sizes[$1.accountId]?[$1.conversationId]?[$1.fileId] ?? 0) }
            let needed = state.stored.used - replaced + files.reduce(0) { $0 + $1.size }
            guard needed <= state.stored.ceiling else {
                throw CollabError(
                    .payloadTooLarge,
                    "the snapshot's files do not fit in the file storage quota (\(state.stored.ceiling) bytes, \(state.stored.used) used)"
                )
            }
        }
    }

    /// Puts an import's staged files in place, each replacing a stored file of its id (the import's
    /// records have committed).
    func publish(_ staging: ImportStaging) async {
        let files = staging.files.withLock { $0 }
        var complete = true
        for file in files {
            if case .path(let source) = file.location, case .disk(let root) = backend {
                let directory = Self.directory(root: root, accountId: file.accountId, conversationId: file.conversationId)
                let target = (directory as NSString).appendingPathComponent(Self.component(file.fileId))
                do {
                    try await Self.blocking {
                        try Self.makeDirectories(directory, below: root)
                        guard rename(source, target) == 0 else { throw FileStorageError.io("rename", errno) }
                        try Self.fsyncPath(directory)
                    }
                } catch {
                    // The staged file stays: the sweep at the next start puts it in place.
                    complete = false
                    continue
                }
            }
            state.withLock { state in
                if let previous = state.sizes[file.accountId]?[file.conversationId]?[file.fileId] {
                    state.stored.release(previous, for: file.accountId)
                }
                state.stored.force(file.size, for: file.accountId)
                state.sizes[file.accountId, default: [:]][file.conversationId, default: [:]][file.fileId] = file.size
                if case .buffer(let buffer) = file.location { state.contents[Self.key(file.accountId, file.conversationId, file.fileId)] = buffer }
            }
        }
        if complete { await discard(staging) }
    }

    /// Drops an import's staging area (what was published is gone from it already).
    func discard(_ staging: ImportStaging) async {
        staging.files.withLock { $0 = [] }
        if let directory = staging.directory {
            _ = try? await Self.blocking { try? FileManager.default.removeItem(atPath: directory) }
        }
    }

    /// Where imports stage on disk.
    static func importsDirectory(root: String) -> String {
        (root as NSString).appendingPathComponent(".staging")
    }

    /// Finishes the imports a crash interrupted between their commit and their renames: a staged file
    /// the committed FILE message names, with the same SHA-256, goes into place. Runs in the sweep at
    /// start (blocking), before the staging area is cleared.
    /// - Parameters:
    ///   - referenced: Account → conversation → file id → SHA-256, as the state has them.
    ///   - byComponent: The ids of the path components the state knows.
    static func finishImports(root: String, referenced: [String: [String: [String: String]]], byComponent: [String: String]) {
        let manager = FileManager.default
        let imports = importsDirectory(root: root)
        for entry in (try? manager.contentsOfDirectory(atPath: imports)) ?? [] where entry.hasPrefix("import-") {
            let importRoot = (imports as NSString).appendingPathComponent(entry)
            for accountEntry in (try? manager.contentsOfDirectory(atPath: importRoot)) ?? [] {
                guard let accountId = byComponent[accountEntry] else { continue }
                let accountPath = (importRoot as NSString).appendingPathComponent(accountEntry)
                for conversationEntry in (try? manager.contentsOfDirectory(atPath: accountPath)) ?? [] {
                    guard let conversationId = byComponent[conversationEntry] else { continue }
                    let conversationPath = (accountPath as NSString).appendingPathComponent(conversationEntry)
                    for fileEntry in (try? manager.contentsOfDirectory(atPath: conversationPath)) ?? [] {
                        guard let fileId = byComponent[fileEntry], let wanted = referenced[accountId]?[conversationId]?[fileId] else { continue }
                        let source = (conversationPath as NSString).appendingPathComponent(fileEntry)
                        guard let bytes = manager.contents(atPath: source),
                            SHA256.hash(data: bytes).map({ String(format: "%02x", $0) }).joined() == wanted
                        else { continue }
                        let directory = Self.directory(root: root, accountId: accountId, conversationId: conversationId)
                        try? makeDirectories(directory, below: root)
                        if rename(source, (directory as NSString).appendingPathComponent(fileEntry)) == 0 { try? fsyncPath(directory) }
                    }
                }
            }
        }
    }

    /// Writes a new file and fsyncs it before closing.
    private static func writeDurably(_ bytes: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileStorageError.io("open", errno) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)  // non-empty buffer: baseAddress is set
                if written < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    unlink(path)
                    throw FileStorageError.io("write", code)
                }
                offset += written
            }
        }
        guard fsync(fd) == 0 else {
            let code = errno
            unlink(path)
            throw FileStorageError.io("fsync", code)
        }
    }
}
