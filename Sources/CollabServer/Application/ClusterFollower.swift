import CollabStore
import ServiceLifecycle

/// Keeps a cluster replica's shards following the change log (see ``StateRepository/followCluster()``)
/// and the replica announced under its URL (see ``StateRepository/maintainCluster(url:every:)``) until
/// the server shuts down.
struct ClusterFollower: Service {
    let repository: StateRepository
    /// The URL other replicas reach this one at, once it listens.
    let advertisedURL: @Sendable () async -> String

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await repository.followCluster() }
                group.addTask { await repository.maintainCluster(url: await advertisedURL()) }
                await group.waitForAll()
            }
        }
    }
}
