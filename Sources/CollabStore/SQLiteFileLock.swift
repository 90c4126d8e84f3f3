import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on `<database>.lock`, held while a store has the database open,
/// so a second server started on the same file (two CI jobs in one workspace share the default
/// `./.mock-collab/state.sqlite`) refuses to start instead of merging its writes into the first's. The
/// kernel releases it when the process ends, however it ends (`kill -9` included): a stale lock file
/// never blocks a restart.
final class SQLiteFileLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock of the database at `databasePath`.
    /// - Throws: ``SQLiteStoreError/inUse(path:)`` when another process holds it.
    init(databasePath: String) throws {
        let path = databasePath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SQLiteStoreError.lockFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            if reason == EWOULDBLOCK { throw SQLiteStoreError.inUse(path: databasePath) }
            throw SQLiteStoreError.lockFile(path: path, reason: String(cString: strerror(reason)))
        }
        self.descriptor = descriptor
    }

    /// Lets the database go.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
