import CollabCore
import CollabStore
import Crypto
import Foundation
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of files shared in conversations, kept by id under `<account>/<conversation>/<file>` —
/// on disk beside the SQLite file, or in memory — within a total quota.
///
/// An upload is first streamed to a staging area (bounded by the upload's maximum size, hashed and
/// sniffed on the way), then checked, then committed: on disk the file is fsynced, renamed into place
/// and its directory fsynced before the message that names it is committed, so an acknowledged upload
/// survives `kill -9`. A file whose message never committed (a crash in between) is removed by the
/// sweep at start.
final class FileStorage: Sendable {
    enum Backend: Sendable {
        case disk(root: String)
        case memory
    }

    let backend: Backend
    let quota: Int64
    let maxConcurrentUploads: Int
    let state = Mutex<State>(State())

    struct State {
        var used: Int64 = 0
        var uploads = 0
        /// Bytes per account and conversation (both backends), for quota and cleanup.
        var sizes: [String: [String: [String: Int64]]] = [:]
        /// Contents with the memory backend.
        var contents: [String: ByteBuffer] = [:]
    }

    /// An upload streamed to staging, not yet visible.
    struct Staged: Sendable {
        var size: Int64
        var sha256: String
        var head: [UInt8]
        fileprivate var tempPath: String?
        fileprivate var buffer: ByteBuffer?
    }

    init(backend: Backend, quota: Int64, maxConcurrentUploads: Int) {
        self.backend = backend
        self.quota = quota
        self.maxConcurrentUploads = maxConcurrentUploads
    }

    /// The storage for a configuration: `files/` beside the SQLite file, `.mock-collab/files` with
    /// PostgreSQL (or the configured directory), or memory.
    convenience init(configuration: ServerConfiguration) {
        let settings = configuration.files
        switch configuration.storage {
        case .memory:
            self.init(backend: .memory, quota: settings.quota ?? FileSettings.defaultMemoryQuota, maxConcurrentUploads: settings.maxConcurrentUploads)
        case .sqlite(path: let path):
            let root = settings.directory ?? ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("files")
            self.init(
                backend: .disk(root: root.isEmpty ? "files" : root), quota: settings.quota ?? FileSettings.defaultDiskQuota,
                maxConcurrentUploads: settings.maxConcurrentUploads
            )
        case .postgres:
            // The database keeps records, not file contents: files stay on this machine's disk (one
            // serving process per database, see docs/SCALE-OUT.md).
            self.init(
                backend: .disk(root: settings.directory ?? ".mock-collab/files"), quota: settings.quota ?? FileSettings.defaultDiskQuota,
                maxConcurrentUploads: settings.maxConcurrentUploads
            )
        }
    }

    /// Bytes stored now.
    var usedBytes: Int64 { state.withLock { $0.used } }

    // MARK: uploading

    /// Streams `body` into staging, refusing more than `limit` bytes (the rest is not read).
    /// - Throws: ``FileRefusal`` (too large, busy, empty, quota) or an I/O error.
    func stage(_ body: some AsyncSequence<ByteBuffer, any Error> & Sendable, limit: Int64) async throws -> Staged {
        try state.withLock { state throws(FileRefusal) in
            guard state.uploads < maxConcurrentUploads else { throw FileRefusal(.busy, "too many uploads at once; try again shortly") }
            state.uploads += 1
        }
        defer { state.withLock { $0.uploads -= 1 } }
        let room = max(0, quota - usedBytes)
        let bound = min(limit, room)
        var hasher = SHA256()
        var head: [UInt8] = []
        var size: Int64 = 0
        var writer: TempWriter?
        var buffer: ByteBuffer?
        if case .disk(let root) = backend {
            writer = try await TempWriter.create(directory: (root as NSString).appendingPathComponent(".staging"))
        } else {
            buffer = ByteBuffer()
        }
        do {
            for try await chunk in body {
                size += Int64(chunk.readableBytes)
                if size > bound {
                    if bound < limit { throw FileRefusal(.quotaExceeded, "the file storage quota is used up") }
                    throw FileRefusal(.tooLarge, "the file is larger than the maximum of \(limit) bytes")
                }
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                if head.count < ContentSniffer.headLength {
                    head += chunk.getBytes(at: chunk.readerIndex, length: min(chunk.readableBytes, ContentSniffer.headLength - head.count)) ?? []
                }
                if let writer { try await writer.write(chunk) } else { buffer?.writeImmutableBuffer(chunk) }
            }
            guard size > 0 else { throw FileRefusal(.empty, "the file is empty") }
            if let writer { try await writer.finish() }
        } catch {
            if let writer { await writer.abandon() }
            throw error
        }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return Staged(size: size, sha256: digest, head: head, tempPath: writer?.path, buffer: buffer)
    }

    /// Drops a staged upload that was refused.
    func discard(_ staged: Staged) async {
        if let path = staged.tempPath { _ = try? await Self.blocking { _ = unlink(path) } }
    }

    /// Makes a staged upload durable under its id, within the quota.
    /// - Throws: ``FileRefusal/Code/quotaExceeded`` or an I/O error; the staged file is gone either way.
    func commit(_ staged: Staged, accountId: String, conversationId: String, fileId: String) async throws {
        do {
            try state.withLock { state throws(FileRefusal) in
                guard state.used + staged.size <= quota else { throw FileRefusal(.quotaExceeded, "the file storage quota is used up") }
                state.used += staged.size
                state.sizes[accountId, default: [:]][conversationId, default: [:]][fileId] = staged.size
            }
        } catch {
            await discard(staged)
            throw error
        }
        switch backend {
        case .memory:
            state.withLock { $0.contents[Self.key(accountId, conversationId, fileId)] = staged.buffer ?? ByteBuffer() }
        case .disk(let root):
            do {
                let directory = Self.directory(root: root, accountId: accountId, conversationId: conversationId)
                let target = (directory as NSString).appendingPathComponent(Self.component(fileId))
                let source = staged.tempPath!  // staged on disk with the disk backend
                try await Self.blocking {
                    try Self.makeDirectories(directory, below: root)
                    guard rename(source, target) == 0 else { throw FileStorageError.io("rename", errno) }
                    try Self.fsyncPath(directory)
                }
            } catch {
                await discard(staged)
                forget(accountId: accountId, conversationId: conversationId, fileId: fileId)
                throw error
            }
        }
    }

    /// Removes one file (its message did not commit).
    func remove(accountId: String, conversationId: String, fileId: String) async {
        forget(accountId: accountId, conversationId: conversationId, fileId: fileId)
        if case .disk(let root) = backend {
            let path = (Self.directory(root: root, accountId: accountId, conversationId: conversationId) as NSString)
                .appendingPathComponent(Self.component(fileId))
            _ = try? await Self.blocking { _ = unlink(path) }
        }
    }

    private func forget(accountId: String, conversationId: String, fileId: String) {
        state.withLock { state in
            if let size = state.sizes[accountId]?[conversationId]?.removeValue(forKey: fileId) { state.used -= size }
            state.contents[Self.key(accountId, conversationId, fileId)] = nil
        }
    }

    // MARK: cleanup

    /// Forgets a deleted conversation's files: their bytes leave the quota (and memory) at once; on disk
    /// their directory stays until ``removeDirectory(accountId:conversationId:)``.
    func forgetConversation(accountId: String, conversationId: String) {
        state.withLock { state in
            for (fileId, size) in state.sizes[accountId]?.removeValue(forKey: conversationId) ?? [:] {
                state.used -= size
                state.contents[Self.key(accountId, conversationId, fileId)] = nil
            }
        }
    }

    /// Removes a deleted conversation's directory from disk (the sweep at start catches a crash before).
    func removeDirectory(accountId: String, conversationId: String) async {
        guard case .disk(let root) = backend else { return }
        let path = Self.directory(root: root, accountId: accountId, conversationId: conversationId)
        _ = try? await Self.blocking { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Removes an account's files (it was deleted or reset).
    func removeAccount(_ accountId: String) async {
        state.withLock { state in
            for (conversationId, files) in state.sizes.removeValue(forKey: accountId) ?? [:] {
                for (fileId, size) in files {
                    state.used -= size
                    state.contents[Self.key(accountId, conversationId, fileId)] = nil
                }
            }
        }
        if case .disk(let root) = backend {
            let path = (root as NSString).appendingPathComponent(Self.component(accountId))
            _ = try? await Self.blocking { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// Removes every file (a full reset).
    func removeAll() async {
        let accounts = state.withLock { Array($0.sizes.keys) }
        for account in accounts { await removeAccount(account) }
    }

    /// Keeps exactly the files the state refers to (account → conversation → file ids): removes
    /// staging leftovers and files whose message never committed or whose conversation is gone, and
    /// counts what stays against the quota. Runs once at start, before the server listens. Without
    /// `removeOrphans` (a cluster replica, whose directory other replicas write to) it only counts.
    func sweep(keeping referenced: [String: [String: Set<String>]], removingOrphans removeOrphans: Bool = true) async {
        guard case .disk(let root) = backend else { return }
        let sizes: [String: [String: [String: Int64]]] = (try? await Self.blocking {
            let manager = FileManager.default
            if removeOrphans { try? manager.removeItem(atPath: (root as NSString).appendingPathComponent(".staging")) }
            var byComponent: [String: (String, [String: (String, Set<String>)])] = [:]
            for (account, conversations) in referenced {
                var inner: [String: (String, Set<String>)] = [:]
                for (conversation, files) in conversations { inner[Self.component(conversation)] = (conversation, Set(files.map(Self.component))) }
                byComponent[Self.component(account)] = (account, inner)
            }
            var result: [String: [String: [String: Int64]]] = [:]
            for accountEntry in (try? manager.contentsOfDirectory(atPath: root)) ?? [] where accountEntry != ".staging" {
                let accountPath = (root as NSString).appendingPathComponent(accountEntry)
                guard let (account, conversations) = byComponent[accountEntry] else {
                    if removeOrphans { try? manager.removeItem(atPath: accountPath) }
                    continue
                }
                for conversationEntry in (try? manager.contentsOfDirectory(atPath: accountPath)) ?? [] {
                    let conversationPath = (accountPath as NSString).appendingPathComponent(conversationEntry)
                    guard let (conversation, files) = conversations[conversationEntry] else {
                        if removeOrphans { try? manager.removeItem(atPath: conversationPath) }
                        continue
                    }
                    for fileEntry in (try? manager.contentsOfDirectory(atPath: conversationPath)) ?? [] {
                        let filePath = (conversationPath as NSString).appendingPathComponent(fileEntry)
                        guard files.contains(fileEntry) else {
                            if removeOrphans { try? manager.removeItem(atPath: filePath) }
                            continue
                        }
                        let size = (try? manager.attributesOfItem(atPath: filePath)[.size] as? NSNumber)?.int64Value ?? 0
                        result[account, default: [:]][conversation, default: [:]][fileEntry] = size
                    }
                }
            }
            return result
        }) ?? [:]
        state.withLock { state in
            state.sizes = sizes
            state.used = sizes.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.values.reduce(0, +) } }
        }
    }

    // MARK: reading

    /// Where a stored file's bytes are: a path on disk, or the buffer in memory; `nil` when missing.
    enum Location: Sendable {
        case path(String)
        case buffer(ByteBuffer)
    }

    func location(accountId: String, conversationId: String, fileId: String) -> Location? {
        switch backend {
        case .memory:
            return state.withLock { $0.contents[Self.key(accountId, conversationId, fileId)] }.map(Location.buffer)
        case .disk(let root):
            let path = (Self.directory(root: root, accountId: accountId, conversationId: conversationId) as NSString)
                .appendingPathComponent(Self.component(fileId))
            return .path(path)
        }
    }

    // MARK: paths and blocking I/O

    static func key(_ account: String, _ conversation: String, _ file: String) -> String { "\(account)/\(conversation)/\(file)" }

    static func directory(root: String, accountId: String, conversationId: String) -> String {
        ((root as NSString).appendingPathComponent(component(accountId)) as NSString).appendingPathComponent(component(conversationId))
    }

    /// Ids as one safe path component: generated ids pass unchanged; anything else (a seed's own id)
    /// is hex-encoded, so no id can climb out of the storage directory.
    static func component(_ id: String) -> String {
        let safe = !id.isEmpty && !id.hasPrefix(".") && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
        return safe ? id : "x" + id.utf8.map { String(format: "%02x", $0) }.joined()
    }

    /// Creates `directory` and its missing parents up to `root`, fsyncing each parent that gained an entry.
    static func makeDirectories(_ directory: String, below root: String) throws {
        var missing: [String] = []
        var current = directory
        while !FileManager.default.fileExists(atPath: current), current != "/", !current.isEmpty {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() {
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw FileStorageError.io("mkdir", errno) }
            try fsyncPath((path as NSString).deletingLastPathComponent)
        }
    }

    static func fsyncPath(_ path: String) throws {
        let fd = open(path.isEmpty ? "." : path, O_RDONLY)
        guard fd >= 0 else { throw FileStorageError.io("open", errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileStorageError.io("fsync", errno) }
    }

    /// Runs blocking file work on NIO's thread pool, off the event loops.
    static func blocking<T: Sendable>(_ work: @Sendable @escaping () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}

/// An I/O failure of the file storage.
enum FileStorageError: Error, CustomStringConvertible {
    case io(String, Int32)
    var description: String {
        switch self {
        case .io(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// A staging file written chunk by chunk on the thread pool, fsynced when finished.
private final class TempWriter: Sendable {
    let path: String
    let fd: Int32
    private let closed = Mutex(false)

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    static func create(directory: String) async throws -> TempWriter {
        let name = EntityIDGenerator.system.make()
        return try await FileStorage.blocking {
            if !FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            let path = (directory as NSString).appendingPathComponent(name)
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileStorageError.io("open", errno) }
            return TempWriter(path: path, fd: fd)
        }
    }

    func write(_ chunk: ByteBuffer) async throws {
        let fd = fd
        try await FileStorage.blocking {
            try chunk.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = posixWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw FileStorageError.io("write", errno)
                    }
                    offset += written
                }
            }
        }
    }

    /// fsync and close: the content is durable before it is renamed into place.
    func finish() async throws {
        try await FileStorage.blocking { [self] in
            defer { closeOnce() }
            guard fsync(fd) == 0 else { throw FileStorageError.io("fsync", errno) }
        }
    }

    func abandon() async {
        _ = try? await FileStorage.blocking { [self] in
            closeOnce()
            unlink(path)
        }
    }

    private func closeOnce() {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if !wasClosed { close(fd) }
    }
}

private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}
