/// A wait in a test that outlived its limit.
package struct DeadlineExceeded: Error, CustomStringConvertible {
    package var what: String
    package var limit: Duration
    package var description: String { "\(what) did not happen within \(limit)" }
}

/// Runs `body`, and fails with ``DeadlineExceeded`` when it has not finished within `limit`: `body` is
/// then cancelled, and the call returns once it has ended. So `body` must end when cancelled (a
/// continuation no one resumes would keep the test waiting as before).
package func withDeadline<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlineExceeded(what: what, limit: limit) }
        return value
    }
}
