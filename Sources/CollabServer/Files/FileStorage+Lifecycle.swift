import CollabCore
import CollabStore

extension CollabEnvironment {
    /// Reconciles stored files with the state at start: keeps exactly the files FILE messages name, and
    /// finishes the imports a crash interrupted.
    func sweepFiles() async throws {
        let referenced = try repository.readEach { state in (state.accountId, state.fileDigests) }
        // Replicas of a cluster share the files directory: one starting must not remove another's
        // uploads in flight (staged, or stored before their message commits).
        await files.sweep(keeping: Dictionary(referenced, uniquingKeysWith: { first, _ in first }), removingOrphans: !repository.isClusterReplica)
    }
}
