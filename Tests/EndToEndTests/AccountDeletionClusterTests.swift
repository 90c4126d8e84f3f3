import CollabClient
import CollabWire
import Foundation
import Testing

/// An account deleted on one replica is forgotten on every replica: the change log carries the deletion
/// into each replica's committed stream, and its parts let go of the account there too.
@Suite(
    "Deleting an account across replicas", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"] != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)")
)
struct AccountDeletionClusterTests {
    static let seed = """
        accounts:
          - name: desk
            users:
              - {username: root, password: pw, role: SUPER_ADMIN}
          - name: gone
            users:
              - {username: gone-admin, password: pw, role: ADMIN}
              - {username: gone-agent, password: pw, role: REGISTERED_USER}
        """

    @Test("deleting an account on one replica closes its live connections on another; both replicas forget its fault rules")
    func deletionReachesEveryReplica() async throws {
        let (_, replicas) = try await ClusterReplicaTests.replicas(2)
        let (a, b) = (replicas[0], replicas[1])
        try await ControlClient(baseURL: a.baseURL, credentials: .bearer(ClusterReplicaTests.controlToken)).seed(Self.seed)
        let goneAdminOnB = ControlClient(baseURL: b.baseURL, credentials: .basic(username: "gone-admin", password: "pw"))
        let rule = try await goneAdminOnB.addFault(FaultRule(match: FaultMatch(path: "/never"), action: .error(status: 503)))
        let goneId = try #require(rule.accountId)
        let controlOnB = ControlClient(baseURL: b.baseURL, credentials: .bearer(ClusterReplicaTests.controlToken))
        #expect(try await controlOnB.faults().contains { $0.accountId == goneId })
        // And one on A, the replica that deletes the account: its own commit tells its parts.
        let goneAdminOnA = ControlClient(baseURL: a.baseURL, credentials: .basic(username: "gone-admin", password: "pw"))
        _ = try await goneAdminOnA.addFault(FaultRule(match: FaultMatch(path: "/never-on-a"), action: .error(status: 503)))
        let controlOnA = ControlClient(baseURL: a.baseURL, credentials: .bearer(ClusterReplicaTests.controlToken))

        let agent = AgentClient(baseURL: a.baseURL)
        try await agent.login(username: "gone-agent", password: "pw")
        let token = try #require(agent.session?.token)
        let stream = LiveEventStream(url: "ws://127.0.0.1:\(b.port)/agent/v1/events?token=\(token)")
        await stream.waitUntilConnected()
        try await b.waitForMetric("mockcollab_live_connections 1")

        try await AdminClient(baseURL: a.baseURL, credentials: .basic(username: "root", password: "pw")).accounts.delete(goneId)
        #expect(try await !controlOnA.faults().contains { $0.accountId == goneId }, "A forgot at the deleting commit")
        // B applies the deletion from the change log: the connection closes, and in the same step its
        // fault rules for the account go.
        try await b.waitForMetric("mockcollab_live_connections 0")
        let deadline = ContinuousClock.now + .seconds(30)
        while try await controlOnB.faults().contains(where: { $0.accountId == goneId }) {
            guard ContinuousClock.now < deadline else {
                Issue.record("replica B kept the deleted account's fault rule")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        stream.close()
        try await ClusterReplicaTests.stop(replicas)
    }

    @Test("a server snapshot restored on one replica deletes no account on another: its live connections and fault rules stay there")
    func restoreDeletesNothingElsewhere() async throws {
        let (_, replicas) = try await ClusterReplicaTests.replicas(2)
        let (a, b) = (replicas[0], replicas[1])
        let controlOnA = ControlClient(baseURL: a.baseURL, credentials: .bearer(ClusterReplicaTests.controlToken))
        try await controlOnA.seed(Self.seed)
        let goneAdminOnB = ControlClient(baseURL: b.baseURL, credentials: .basic(username: "gone-admin", password: "pw"))
        let rule = try await goneAdminOnB.addFault(FaultRule(match: FaultMatch(path: "/never"), action: .error(status: 503)))
        let agent = AgentClient(baseURL: a.baseURL)
        try await agent.login(username: "gone-agent", password: "pw")
        let stream = LiveEventStream(url: "ws://127.0.0.1:\(b.port)/agent/v1/events?token=\(try #require(agent.session?.token))")
        let events = EventCollector(stream.events)
        await stream.waitUntilConnected()
        try await events.sync(stream)
        // Taken with the agent's session in it, so the restore keeps the session the socket runs on.
        let snapshot = try await controlOnA.exportSnapshot()

        // The restore replaces every account's data (its entries remove each account's records before
        // writing them again). Replica B applies the same entries: the log names no deletion in them.
        try await controlOnA.importSnapshot(snapshot)
        // A write after the restore, seen on B, means B applied the restore's entries before it.
        let marker = try await AdminClient(baseURL: a.baseURL, credentials: .basic(username: "root", password: "pw")).accounts
            .create(WebAccount(name: "after-restore"))
        let rootOnB = AdminClient(baseURL: b.baseURL, credentials: .basic(username: "root", password: "pw"))
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? await rootOnB.accounts.read(try #require(marker.id))) == nil {
            guard ContinuousClock.now < deadline else {
                Issue.record("replica B did not apply the write after the restore")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let controlOnB = ControlClient(baseURL: b.baseURL, credentials: .bearer(ClusterReplicaTests.controlToken))
        #expect(try await controlOnB.faults().contains { $0.id == rule.id }, "B kept the account's fault rule")
        // The socket B holds is the one opened before the restore, and it still answers: a closed one
        // would have ended the stream (4001) or reconnected it.
        let kept = "connections \(stream.connectionCount), connected \(stream.isConnected), last failure \(stream.lastFailure ?? "none")"
        #expect(stream.isConnected && stream.connectionCount == 1, "B closed the account's live connection: \(kept)")
        try await events.sync(stream)
        stream.close()
        try await ClusterReplicaTests.stop(replicas)
    }
}
