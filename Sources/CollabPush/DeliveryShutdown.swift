import ServiceLifecycle

/// How outbound deliveries (pushes, webhooks, dialog-bot calls) end when the server stops gracefully.
///
/// Once the shutdown began no attempt starts; an attempt in flight gets ``grace`` more, then it is
/// cancelled; a delivery waiting out a backoff stops waiting and is not retried. Without this, an
/// endpoint that does not answer held every stop for as long as its timeouts and backoffs lasted, up to
/// the shutdown deadline — a cost a test harness that stops the server after each suite pays every
/// time. Outside a `ServiceGroup` there is no graceful shutdown, and every attempt and pause runs as asked.
public enum DeliveryShutdown {
    /// How long an attempt in flight may still take once a graceful shutdown began.
    public static let grace: Duration = .seconds(1)

    /// What a delivery's last attempt adds to its error when the shutdown ends it.
    public static let notRetried = "not retried: the server is stopping"

    /// `error` with ``notRetried`` after it.
    public static func noting(_ error: String?) -> String {
        [error, notRetried].compactMap { $0 }.joined(separator: "; ")
    }

    /// Thrown instead of starting an attempt once a graceful shutdown began.
    public struct Stopping: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "not attempted: the server is stopping" }
    }

    /// Runs one attempt unless a graceful shutdown began; cancels it ``grace`` after one begins (the
    /// operation sees a cancelled task and ends as it ends on cancellation).
    /// - Parameter operation: The attempt.
    /// - Returns: What the attempt returned, or `nil` when it was not started because the server is stopping.
    public static func attempt<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T? {
        guard !Task.isShuttingDownGracefully else { return nil }
        return await withTaskGroup(of: T?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                // Returns only on a graceful shutdown; when the attempt is over first, this is cancelled.
                guard (try? await gracefulShutdown()) != nil else { return nil }
                try? await Task.sleep(for: grace)
                return nil
            }
            while let next = await group.next() {
                // The attempt ended, or the grace is over and the attempt is cancelled: it ends with what it returns then.
                group.cancelAll()
                if let value = next { return value }
            }
            preconditionFailure("the attempt's task returns a value whatever happens")
        }
    }

    /// Runs one attempt that throws, unless a graceful shutdown began; cancels it ``grace`` after one begins.
    /// - Parameter operation: The attempt.
    /// - Returns: What the attempt returned.
    /// - Throws: ``Stopping`` when it was not started, else what the attempt threw (a cancelled attempt
    ///   usually throws `CancellationError`).
    public static func attempt<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let result: Result<T, any Error>? = await attempt {
            do { return .success(try await operation()) } catch { return .failure(error) }
        }
        guard let result else { throw Stopping() }
        return try result.get()
    }

    /// Waits `duration` before a retry.
    /// - Parameters:
    ///   - duration: The backoff.
    ///   - clock: The clock the wait runs on (tests give one they move themselves).
    /// - Returns: Whether to retry: `false` when a graceful shutdown began before or during the wait, or
    ///   the task was cancelled.
    public static func pauseBeforeRetry(_ duration: Duration, on clock: any Clock<Duration> = ContinuousClock()) async -> Bool {
        guard !Task.isShuttingDownGracefully else { return false }
        try? await cancelWhenGracefulShutdown { try await clock.sleep(for: duration) }
        return !Task.isShuttingDownGracefully && !Task.isCancelled
    }
}
