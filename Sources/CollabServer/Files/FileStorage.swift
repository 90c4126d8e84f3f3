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
/// on disk beside the SQLite file, or in memory — within a quota each account has a share of.
///
/// An upload takes one of its account's upload slots, is streamed to a staging area (bounded by the
/// upload's maximum size and the room its account has, hashed and sniffed on the way, cut when it
/// arrives slower than the minimum rate), then checked, then committed: on disk the file is fsynced,
/// renamed into place and its directory fsynced before the message that names it is committed, so an
/// acknowledged upload survives `kill -9`. A file whose message never committed (a crash in between)
/// is removed by the sweep at start.
final class FileStorage: Sendable {
    enum Backend: Sendable {
        case disk(root: String)
        case memory
    }

    let backend: Backend
    /// The slowest an upload's body may arrive.
    let minimumRate: MinimumRate
    /// The clock the minimum rate is measured on.
    let clock: any Clock<Duration>
    let state: Mutex<State>

    struct State {
        /// Stored bytes, per account within the quota.
        var stored: SharedBudget
        /// Uploads streaming now, per account within the slots.
        var uploads: SharedBudget
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

    init(backend: Backend, quota: Int64, settings: FileSettings = FileSettings(), clock: any Clock<Duration> = ContinuousClock()) {
        self.backend = backend
        self.minimumRate = settings.minimumRate
        self.clock = clock
        let slots = Int64(settings.maxConcurrentUploads)
        state = Mutex(
            State(
                stored: SharedBudget(ceiling: quota, share: settings.accountQuota),
                uploads: SharedBudget(ceiling: slots, share: settings.maxUploadsPerAccount.map(Int64.init))
            )
        )
    }

    /// The storage for a configuration: `files/` beside the SQLite file, `.mock-collab/files` with
    /// PostgreSQL (or the configured directory), or memory.
    convenience init(configuration: ServerConfiguration) {
        let settings = configuration.files
        let clock = configuration.uploadClock
        switch configuration.storage {
        case .memory:
            self.init(backend: .memory, quota: settings.quota ?? FileSettings.defaultMemoryQuota, settings: settings, clock: clock)
        case .sqlite(path: let path):
            let root = settings.directory ?? ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("files")
            self.init(
                backend: .disk(root: root.isEmpty ? "files" : root), quota: settings.quota ?? FileSettings.defaultDiskQuota, settings: settings,
                clock: clock
            )
        case .postgres:
            // The database keeps records, not file contents: files stay on this machine's disk (one
            // serving process per database, see docs/SCALE-OUT.md).
            self.init(
                backend: .disk(root: settings.directory ?? ".mock-collab/files"), quota: settings.quota ?? FileSettings.defaultDiskQuota,
                settings: settings, clock: clock
            )
        }
    }

    /// Bytes stored now.
    var usedBytes: Int64 { state.withLock { $0.stored.used } }

    /// The server-wide quota in bytes.
    var quota: Int64 { state.withLock { $0.stored.ceiling } }

    // MARK: uploading

    /// Streams `body` into staging for `accountId`, refusing more than `limit` bytes or more than the
    /// account has room for (the rest is not read), and a body slower than the minimum rate.
    /// - Throws: ``FileRefusal`` (busy, too large, quota, empty, too slow) or an I/O error.
    func stage(_ body: some AsyncSequence<ByteBuffer, any Error> & Sendable, limit: Int64, accountId: String) async throws -> Staged {
        let room = try state.withLock { state throws(FileRefusal) -> (bytes: Int64, shortfall: SharedBudget.Shortfall) in
            if let shortfall = state.uploads.take(1, for: accountId) { throw Self.busy(shortfall, state.uploads) }
            let room = state.stored.room(for: accountId)
            return (room, state.stored.shortfall(room + 1, for: accountId) ?? .server)
        }
        defer { state.withLock { $0.uploads.release(1, for: accountId) } }
        let bound = min(limit, room.bytes)
        let received = ByteCount()
        return try await withThrowingTaskGroup(of: Staged?.self) { group in
            group.addTask { try await self.receive(body, bound: bound, limit: limit, room: room.shortfall, received: received) }
            if minimumRate.isEnforced {
                group.addTask { try await Self.watch(received, keepingUp: self.minimumRate, on: self.clock) }
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let staged = result { return staged }
            }
            throw CancellationError()  // the receiving task always returns or throws
        }
    }

    /// Reads the body into staging, hashing and keeping its head.
    private func receive(
        _ body: some AsyncSequence<ByteBuffer, any Error>, bound: Int64, limit: Int64, room: SharedBudget.Shortfall, received: ByteCount
    ) async throws -> Staged {
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
                received.add(Int64(chunk.readableBytes))
                if size > bound {
                    if bound < limit { throw Self.quotaExceeded(room) }
                    throw FileRefusal(.tooLarge, "the file is larger than the maximum of \(limit) bytes")
                }
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                if head.count < ContentSniffer.headLength {
                    head += chunk.getBytes(at: chunk.readerIndex, length: min(chunk.readableBytes, ContentSniffer.headLength - head.count)) ?? []
                }
                if let writer { try await writer.write(chunk) } else { buffer?.writeImmutableBuffer(chunk) }
            }
            // Cut off by the minimum rate: the body's end is not the file's.
            try Task.checkCancellation()
            guard size > 0 else { throw FileRefusal(.empty, "the file is empty") }
            if let writer { try await writer.finish() }
        } catch {
            if let writer { await writer.abandon() }
            throw error
        }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return Staged(size: size, sha256: digest, head: head, tempPath: writer?.path, buffer: buffer)
    }

    /// Returns when the upload ends (it is cancelled then); throws `tooSlow` once the bytes received fall
    /// behind the minimum rate.
    private static func watch<C: Clock<Duration>>(_ received: ByteCount, keepingUp rate: MinimumRate, on clock: C) async throws -> Staged? {
        let start = clock.now
        while true {
            try await clock.sleep(until: start.advanced(by: rate.allowance(afterReceiving: received.value)), tolerance: nil)
            let brought = received.value
            if rate.isBehind(startedAt: start, now: clock.now, received: brought) {
                throw FileRefusal(
                    .tooSlow,
                    "the upload arrived slower than \(rate.bytesPerSecond) bytes per second (\(brought) bytes); send it again on a better connection"
                )
            }
        }
    }

    /// The refusal of an upload when the slots are taken.
    static func busy(_ shortfall: SharedBudget.Shortfall, _ slots: SharedBudget) -> FileRefusal {
        switch shortfall {
        case .account:
            FileRefusal(.busy, "this account has \(slots.share) uploads in progress, the most one account may have at once; try again shortly")
        case .server:
            FileRefusal(.busy, "the server has \(slots.ceiling) uploads in progress, the most it takes at once; try again shortly")
        }
    }

    /// The refusal of a file the quota has no room for.
    static func quotaExceeded(_ shortfall: SharedBudget.Shortfall) -> FileRefusal {
        switch shortfall {
        case .account: FileRefusal(.quotaExceeded, "this account's share of the file storage quota is used up; remove files or conversations first")
        case .server: FileRefusal(.quotaExceeded, "the file storage quota is used up")
        }
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
                if let shortfall = state.stored.take(staged.size, for: accountId) { throw Self.quotaExceeded(shortfall) }
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
            if let size = state.sizes[accountId]?[conversationId]?.removeValue(forKey: fileId) { state.stored.release(size, for: accountId) }
            state.contents[Self.key(accountId, conversationId, fileId)] = nil
        }
    }

    // MARK: cleanup

    /// Forgets a deleted conversation's files: their bytes leave the quota (and memory) at once; on disk
    /// their directory stays until ``removeDirectory(accountId:conversationId:)``.
    func forgetConversation(accountId: String, conversationId: String) {
        state.withLock { state in
            for (fileId, size) in state.sizes[accountId]?.removeValue(forKey: conversationId) ?? [:] {
                state.stored.release(size, for: accountId)
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
                for fileId in files.keys { state.contents[Self.key(accountId, conversationId, fileId)] = nil }
            }
            state.stored.releaseAll(for: accountId)
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

    /// Keeps exactly the files the state refers to (account → conversation → file id → SHA-256): finishes
    /// the imports a crash interrupted after their commit, removes
    /// staging leftovers and files whose message never committed or whose conversation is gone, and
    /// counts what stays against the quota. Runs once at start, before the server listens. Without
    /// `removeOrphans` (a cluster replica, whose directory other replicas write to) it only counts.
    func sweep(keeping referenced: [String: [String: [String: String]]], removingOrphans removeOrphans: Bool = true) async {
        guard case .disk(let root) = backend else { return }
        let sizes: [String: [String: [String: Int64]]] = (try? await Self.blocking {
            let manager = FileManager.default
            var byComponent: [String: (String, [String: (String, Set<String>)])] = [:]
            var ids: [String: String] = [:]
            for (account, conversations) in referenced {
                var inner: [String: (String, Set<String>)] = [:]
                for (conversation, files) in conversations {
                    inner[Self.component(conversation)] = (conversation, Set(files.keys.map(Self.component)))
                    ids[Self.component(conversation)] = conversation
                    for file in files.keys { ids[Self.component(file)] = file }
                }
                byComponent[Self.component(account)] = (account, inner)
                ids[Self.component(account)] = account
            }
            if removeOrphans {
                Self.finishImports(root: root, referenced: referenced, byComponent: ids)
                try? manager.removeItem(atPath: Self.importsDirectory(root: root))
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
            // What is on disk counts, even past a share the configuration lowered since.
            state.stored.reset()
            for (account, conversations) in sizes { state.stored.force(conversations.values.reduce(0) { $0 + $1.values.reduce(0, +) }, for: account) }
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

/// Bytes an upload has brought so far, read by its minimum-rate watch.
private final class ByteCount: Sendable {
    private let count = Atomic<Int64>(0)
    var value: Int64 { count.load(ordering: .relaxed) }
    func add(_ bytes: Int64) { _ = count.wrappingAdd(bytes, ordering: .relaxed) }
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
