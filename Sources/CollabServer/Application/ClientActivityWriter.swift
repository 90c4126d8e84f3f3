import CollabCore
import CollabStore
import Logging
import ServiceLifecycle
import Synchronization

/// Stores mobile clients' activity on a cluster replica, so the replica that runs the idle expiry sees
/// activity another replica served (``Authenticator/client(token:)`` hands it the clients due).
///
/// At most one write per client is queued or running: requests of a client whose activity is already on
/// its way add nothing, however slow the database, so the queue is bounded by the number of clients (a
/// write per request used to be spawned until one committed). The queued clients of one account are
/// stored in one write, accounts one after another. It runs in the server's service group, so no write
/// outlives the store: on shutdown it stores what is queued, then returns before the store closes.
final class ClientActivityWriter: Service {
    /// Stores the activity of `tokens`, clients of the account `accountId`.
    typealias Write = @Sendable (_ accountId: String, _ tokens: [String]) async throws -> Void

    private struct State {
        /// Clients to store, by account.
        var queued: [String: Set<String>] = [:]
        /// Clients queued or being stored.
        var busy: Set<String> = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let write: Write
    private let logger: Logger

    /// - Parameters:
    ///   - write: How activity is stored.
    ///   - logger: Where failed writes are logged.
    init(write: @escaping Write, logger: Logger) {
        self.write = write
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Stores activity through `repository` (a write of the account per batch).
    convenience init(repository: StateRepository, logger: Logger) {
        self.init(
            write: { accountId, tokens in
                try await repository.write(account: accountId) { state, changes throws(CollabError) in
                    for token in tokens { state.storeClientActivity(token: token, changes: &changes) }
                }
            },
            logger: logger
        )
    }

    /// Queues a client's activity to be stored, unless it is queued or being stored already.
    /// - Returns: Whether it was queued.
    @discardableResult
    func note(accountId: String, token: String) -> Bool {
        let queued = state.withLock { state in
            guard !state.stopped, state.busy.insert(token).inserted else { return false }
            state.queued[accountId, default: []].insert(token)
            return true
        }
        if queued { wake.yield() }
        return queued
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            for await _ in wakes {
                let batch = state.withLock { state in
                    defer { state.queued = [:] }
                    return state.queued
                }
                for (accountId, tokens) in batch.sorted(by: { $0.key < $1.key }) {
                    do {
                        try await write(accountId, tokens.sorted())
                    } catch {
                        // The client's next request queues it again.
                        logger.warning("storing clients' activity failed", metadata: ["account": "\(accountId)", "error": "\(error)"])
                    }
                    state.withLock { $0.busy.subtract(tokens) }
                }
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    /// Takes no more activity; ``run()`` stores what is queued and returns.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.finish()
    }
}
