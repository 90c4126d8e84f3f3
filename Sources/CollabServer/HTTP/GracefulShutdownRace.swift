import ServiceLifecycle

/// How a wait raced against a graceful shutdown ended.
enum ShutdownRace<Value: Sendable>: Sendable {
    case finished(Value)
    case shuttingDown
}

/// Runs `operation` until it returns or a graceful shutdown begins (then it is cancelled), so a
/// long-poll never holds a shutdown up.
func untilGracefulShutdown<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) async -> ShutdownRace<Value> {
    await withTaskGroup(of: ShutdownRace<Value>?.self) { group in
        group.addTask { .finished(await operation()) }
        group.addTask {
            do {
                try await gracefulShutdown()
                return .shuttingDown
            } catch {
                return nil
            }
        }
        while let result = await group.next() {
            if let result {
                group.cancelAll()
                return result
            }
        }
        return .shuttingDown
    }
}
