import Logging
import SQLiteNIO
import Synchronization

/// Moves an SQLite database's write-ahead log into the database file on a connection of its own, so
/// the work is not done inside a commit.
///
/// SQLite checkpoints automatically when a commit leaves the WAL over its threshold, and that commit
/// pays for copying every page: under a steady write load about one commit in a few hundred stalls.
/// Here a PASSIVE checkpoint (it never blocks the writer, and copies what it can) runs on a second
/// connection shortly after commits, at most every ``interval``; the writer's automatic checkpoint is
/// only a backstop.
///
/// Under a steady write load the WAL still only starts over after the writer's own checkpoint (a
/// PASSIVE one never finds the WAL fully copied as the writer begins), and that checkpoint is in a
/// commit: it syncs the WAL, copies what the last background checkpoint left and syncs the database.
/// Checkpointing often keeps what it has left small (docs/PERFORMANCE.md, "The durable write's p99").
final class WALCheckpointer: Sendable {
    /// The most often a checkpoint runs: often, so that the writer's own checkpoint finds little to
    /// copy and few unsynced pages.
    static let interval: Duration = .milliseconds(20)

    private let connection: SQLiteConnection
    private let signal: AsyncStream<Void>.Continuation
    private let task: Task<Void, Never>

    init(path: String, logger: Logger) async throws {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        _ = try await connection.query("PRAGMA busy_timeout=5000")
        self.connection = connection
        let (commits, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.signal = signal
        task = Task {
            for await _ in commits {
                do {
                    _ = try await connection.query("PRAGMA wal_checkpoint(PASSIVE)")
                } catch {
                    logger.debug("background WAL checkpoint failed", metadata: ["error": "\(error)"])
                }
                // At most one checkpoint per interval; commits meanwhile coalesce into one signal.
                try? await Task.sleep(for: Self.interval)
            }
        }
    }

    /// A transaction committed: a checkpoint is due.
    func committed() {
        signal.yield()
    }

    /// Stops checkpointing and closes the connection.
    func close() async {
        signal.finish()
        await task.value
        try? await connection.close()
    }
}
