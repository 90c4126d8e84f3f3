import CollabStore
import ServiceLifecycle

/// Keeps a cluster replica's shards following the change log (see ``StateRepository/followCluster()``)
/// until the server shuts down, and lets timed work run when another replica moved the clock.
struct ClusterFollower: Service {
    let repository: StateRepository
    let clockTasks: ClockDrivenTasks

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await repository.followCluster()
        }
    }
}
