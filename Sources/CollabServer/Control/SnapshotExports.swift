import CollabCore
import Synchronization

/// Snapshot exports taking place at once: an export builds its whole account in memory (its records,
/// its files' contents, the encoded document), so at most one runs per account and two on the server;
/// another is refused at once with a 429 rather than piling up copies. A whole-server export counts as
/// one of its own.
final class SnapshotExports: Sendable {
    /// Exports at once, all accounts together; of one account (or of the whole server).
    static let ceiling: Int64 = 2
    static let perAccount: Int64 = 1
    /// The key of a whole-server export.
    static let wholeServer = "*"

    private let slots = Mutex(SharedBudget(ceiling: ceiling, share: perAccount))

    /// Runs `export` while it holds a slot of `accountId` (`nil`: the whole server).
    /// - Throws: `tooManyRequests` (`Retry-After`) when the account, or the server, is at its most
    ///   exports; `export` does not run.
    func run<Result: Sendable>(accountId: String?, _ export: () async throws -> Result) async throws -> Result {
        let key = accountId ?? Self.wholeServer
        if let shortfall = slots.withLock({ $0.take(1, for: key) }) {
            let what =
                switch shortfall {
                case .account: accountId == nil ? "a snapshot of the whole server is being taken" : "a snapshot of this account is being taken"
                case .server: "the server takes its most snapshots at once (\(Self.ceiling))"
                }
            throw CollabError.tooManyRequests("\(what); retry when it is done", retryAfterSeconds: 1)
        }
        defer { slots.withLock { $0.release(1, for: key) } }
        return try await export()
    }
}
