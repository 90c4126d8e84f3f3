import CollabCore
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File contents for snapshots: read a stored file whole, and put a snapshot's file in place as
/// durably as an upload (written to staging, fsynced, renamed into place, its directory fsynced).
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

    /// Stores `bytes` under the file's id, replacing a file of the same id, within the quota.
    /// - Throws: `payloadTooLarge` when the quota has no room, or an I/O error.
    func put(_ bytes: Data, accountId: String, conversationId: String, fileId: String) async throws {
        let size = Int64(bytes.count)
        let previous = try state.withLock { state throws(CollabError) -> Int64? in
            let previous = state.sizes[accountId]?[conversationId]?[fileId]
            guard state.used - (previous ?? 0) + size <= quota else {
                throw CollabError(.payloadTooLarge, "the snapshot's files do not fit in the file storage quota (\(quota) bytes, \(state.used) used)")
            }
            state.used += size - (previous ?? 0)
            state.sizes[accountId, default: [:]][conversationId, default: [:]][fileId] = size
            return previous
        }
        switch backend {
        case .memory:
            state.withLock { $0.contents[Self.key(accountId, conversationId, fileId)] = ByteBuffer(data: bytes) }
        case .disk(let root):
            do {
                let directory = Self.directory(root: root, accountId: accountId, conversationId: conversationId)
                let target = (directory as NSString).appendingPathComponent(Self.component(fileId))
                let staging = (root as NSString).appendingPathComponent(".staging")
                let temp = (staging as NSString).appendingPathComponent(EntityIDGenerator.system.make())
                try await Self.blocking {
                    try Self.makeDirectories(staging, below: root)
                    try Self.writeDurably(bytes, to: temp)
                    try Self.makeDirectories(directory, below: root)
                    guard rename(temp, target) == 0 else {
                        let code = errno
                        unlink(temp)
                        throw FileStorageError.io("rename", code)
                    }
                    try Self.fsyncPath(directory)
                }
            } catch {
                state.withLock { state in
                    state.used -= size - (previous ?? 0)
                    if let previous { state.sizes[accountId]?[conversationId]?[fileId] = previous } else {
                        state.sizes[accountId]?[conversationId]?[fileId] = nil
                    }
                }
                throw error
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
