import Hummingbird
import Logging
import ServiceLifecycle

extension MockCollabServer {
    /// Runs `app`; once a graceful shutdown has lasted past `shutdownTimeout` (plus a little for the
    /// connections the guard closes at that moment), whatever is still running is cancelled, so the
    /// process always exits — and exits 0, since stopping is what was asked for.
    func runBounded(_ app: some ApplicationProtocol, shutdownTimeout: Duration) async throws {
        let logger = self.logger
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await app.run()
                return true
            }
            group.addTask {
                try await gracefulShutdown()
                logger.info("shutting down: finishing the requests in flight")
                try await Task.sleep(for: shutdownTimeout + .seconds(2))
                return false
            }
            var deadlineReached = false
            do {
                while let appFinished = try await group.next() {
                    if appFinished {
                        group.cancelAll()
                        return
                    }
                    deadlineReached = true
                    logger.warning("graceful shutdown took longer than \(shutdownTimeout); cancelling what is left")
                    group.cancelAll()
                }
            } catch where deadlineReached {
                logger.notice("stopped by the shutdown deadline", metadata: ["error": "\(error)"])
            }
        }
    }
}
