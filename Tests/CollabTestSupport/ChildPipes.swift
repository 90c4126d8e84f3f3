package import Foundation

/// Pipes to child processes that no other child inherits.
///
/// Foundation on Linux closes a new child's other descriptors only up to the highest one open when it
/// looks, just before it spawns: a pipe another thread makes in between goes to that child as well, and
/// then the pipe does not reach its end until both children have exited. A test that reads a child's
/// output to its end, or two cluster replicas stopped one after the other, then wait for a process that
/// is waiting for them. Here pipes are made, and children started, one at a time, and each pipe's ends
/// are closed on exec: a child keeps only the end it is given as stdin, stdout or stderr (a descriptor
/// duplicated there is not closed on exec).
package enum ChildPipes {
    private static let lock = NSLock()

    /// A new pipe whose ends no child started later inherits, unless handed to it.
    package static func make() -> Pipe {
        lock.withLock {
            let pipe = Pipe()
            for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
                _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
            }
            return pipe
        }
    }

    /// Starts a child (`start` calls `run()`), never while another thread is making a pipe.
    package static func spawn(_ start: () throws -> Void) rethrows {
        try lock.withLock { try start() }
    }
}
