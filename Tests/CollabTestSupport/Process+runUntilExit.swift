package import Foundation

extension Process {
    /// Runs the process and waits for it to exit without holding a thread of the concurrency pool.
    ///
    /// `waitUntilExit()` blocks its thread, and the pool has one thread per core: a child that talks
    /// to a server in this test process (a `visitor`, `load`) then waits for a server that cannot run,
    /// and on a two-core machine two such waits stop every test in the process.
    package func runUntilExit() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            terminationHandler = { _ in continuation.resume() }
            do {
                try ChildPipes.spawn { try run() }
            } catch {
                terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}
