import AsyncHTTPClient
import CollabClient
import CollabWire
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import Synchronization
import Testing

@testable import CollabStore

/// Three `serve --cluster` processes on one PostgreSQL database behave as one server: live events
/// cross replicas, ids are cluster-wide, the accept race has one winner, timed work fires once, the
/// clock is shared, and a replica killed with -9 loses nothing it acknowledged. Needs
/// `MOCK_COLLAB_TEST_POSTGRES` (scripts/test starts a throwaway PostgreSQL).
@Suite(
    "Replicas on one PostgreSQL database", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"] != nil, "set MOCK_COLLAB_TEST_POSTGRES (scripts/test does)")
)
struct ClusterReplicaTests {
    static let seedYAML = """
        accounts:
          - name: desk
            apiKeys: [{key: desk-key}]
            namedAreas: [{siteId: area-a, name: Area A}]
            users:
              - {username: admin-d, password: pw, role: ADMIN}
              - {username: agent-a, password: pw, role: REGISTERED_USER, displayName: Agent A}
              - {username: agent-b, password: pw, role: REGISTERED_USER, displayName: Agent B}
        """

    static let controlToken = "cluster-control-token"

    /// Starts `count` replicas on a fresh database with the desk seed.
    static func replicas(_ count: Int, extra: [String] = []) async throws -> (url: String, replicas: [ServerProcess]) {
        let url = try await PostgresServerTests.freshDatabase()
        let seedPath = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-seed-\(UUID().uuidString).yaml")
        try seedYAML.write(to: seedPath, atomically: true, encoding: .utf8)
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-files-\(UUID().uuidString)").path
        // Started together: the seed is applied once, whoever comes first.
        let replicas = try await withThrowingTaskGroup(of: ServerProcess.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await ServerProcess(arguments: [
                        "--storage", url, "--cluster", "--seed", seedPath.path, "--files-dir", files, "--control-token", Self.controlToken,
                    ] + extra)
                }
            }
            var started: [ServerProcess] = []
            for try await replica in group { started.append(replica) }
            return started
        }
        return (url, replicas)
    }

    static func stop(_ replicas: [ServerProcess]) async throws {
        for replica in replicas where replica.process.isRunning {
            replica.signal(SIGTERM)
            _ = try await replica.waitForExit()
        }
    }

    static func login(_ replica: ServerProcess, _ username: String) async throws -> AgentClient {
        let client = AgentClient(baseURL: replica.baseURL)
        try await client.login(username: username, password: "pw")
        return client
    }

    static func visitor(_ replica: ServerProcess, device: String) -> VisitorClient {
        VisitorClient(configuration: ClientConfiguration(baseURL: replica.baseURL, apiKey: "desk-key", deviceId: device))
    }

    /// A visitor on `replica` whose conversation `agent` accepted, and a call the agent started ringing
    /// there: the app, its collected events (the call's start among them) and the call's id.
    static func ringingCall(_ replica: ServerProcess, agent: AgentClient, device: String) async throws -> (VisitorClient, EventCollector, String) {
        let app = Self.visitor(replica, device: device)
        try await app.start()
        let appEvents = EventCollector(app.events)
        let conversation = try await app.startConversation()
        _ = try await agent.accept(conversation.id)
        let call = try await agent.startCall(in: conversation.id)
        try await appEvents.wait(for: "call started") { $0.type == "conversation.call.started" }
        return (app, appEvents, call.id)
    }

    @Test("a visitor on one replica and an agent on another hold a conversation, live both ways; the agent resumes on a third")
    func conversationAcrossReplicas() async throws {
        let (_, replicas) = try await Self.replicas(3)
        let agentOnB = try await Self.login(replicas[1], "agent-a")
        try await agentOnB.setPresence("ONLINE")
        let streamB = try await agentOnB.connectEvents()
        let agentEvents = EventCollector(streamB.events)

        let app = Self.visitor(replicas[0], device: "phone-cluster")
        try await app.start()
        let appEvents = EventCollector(app.events)
        let conversation = try await app.startConversation(topic: "Across replicas")
        try await agentEvents.wait(for: "queued, seen on B") { $0.type == "conversation.queued" && $0.conversation?.id == conversation.id }

        _ = try await agentOnB.accept(conversation.id)
        try await appEvents.wait(for: "active, seen on A") { $0.type == "conversation.active" }
        for index in 1...3 {
            _ = try await app.send("visitor \(index)", in: conversation.id)
            _ = try await agentOnB.send("agent \(index)", in: conversation.id)
        }
        let expected = (1...3).flatMap { ["visitor \($0)", "agent \($0)"] }
        let atAgent = try await agentEvents.wait(count: 6) { $0.type == "conversation.new_message" }
        let atVisitor = try await appEvents.wait(count: 6) { $0.type == "conversation.new_message" }
        #expect(atAgent.compactMap(\.message?.text) == expected)
        #expect(atVisitor.compactMap(\.message?.text) == expected)
        // Both replicas give an event the same, cluster-wide id.
        #expect(atAgent.map(\.id) == atVisitor.map(\.id))

        // Resume on a third replica from the last id seen on B: what was sent meanwhile arrives, once.
        let lastSeen = try #require(atAgent.last?.id)
        streamB.close()
        _ = try await app.send("while away", in: conversation.id)
        let agentOnC = try await Self.login(replicas[2], "agent-a")
        let resumed = EventCollector(try await agentOnC.connectEvents(lastEventId: lastSeen).events)
        let replayed = try await resumed.wait(for: "replayed on C") { $0.type == "conversation.new_message" }
        #expect(replayed.message?.text == "while away")
        #expect(replayed.id > lastSeen)
        #expect(resumed.events.filter { $0.type == "conversation.new_message" }.count == 1, "nothing from before the resume point")
        // Reads agree on every replica.
        for replica in replicas {
            let reader = try await Self.login(replica, "agent-a")
            let page = try await reader.messages(in: conversation.id)
            #expect(page.messages.map(\.text) == expected + ["while away"])
        }
        try await Self.stop(replicas)
    }

    @Test("agents on different replicas accepting the same conversation: exactly one wins")
    func acceptRace() async throws {
        let (_, replicas) = try await Self.replicas(3)
        let agents = [
            try await Self.login(replicas[1], "agent-a"), try await Self.login(replicas[2], "agent-b"),
        ]
        for round in 0..<5 {
            let app = Self.visitor(replicas[0], device: "race-\(round)")
            try await app.start(liveEvents: false)
            let conversation = try await app.startConversation()
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for agent in agents {
                    group.addTask { (try? await agent.accept(conversation.id)) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1, "round \(round): \(outcomes)")
        }
        try await Self.stop(replicas)
    }

    @Test("the virtual clock is shared, a replica started later takes it, and a missed call is timed out once for the cluster")
    func sharedClockAndTimersOnce() async throws {
        let (url, replicas) = try await Self.replicas(3)
        let control = ControlClient(baseURL: replicas[0].baseURL, credentials: .bearer(Self.controlToken))
        let agentOnB = try await Self.login(replicas[1], "agent-a")
        let app = Self.visitor(replicas[2], device: "phone-call")
        try await app.start()
        let appEvents = EventCollector(app.events)
        let conversation = try await app.startConversation()
        _ = try await agentOnB.accept(conversation.id)
        _ = try await agentOnB.startCall(in: conversation.id)
        try await appEvents.wait(for: "call started") { $0.type == "conversation.call.started" }

        // Moved on replica A, read on every replica.
        let before = try await control.clock()
        _ = try await control.changeClock(ClockChange(advanceMillis: 120_000))
        for replica in replicas {
            let reader = ControlClient(baseURL: replica.baseURL, credentials: .bearer(Self.controlToken))
            var now = try await reader.clock().now
            for _ in 0..<500 where now - before.now < 120_000 { now = try await reader.clock().now }
            #expect(now - before.now >= 120_000, "replica \(replica.baseURL) did not take the shared clock")
        }
        try await appEvents.wait(for: "call ended as missed") { $0.type == "conversation.call.ended" }
        try await appEvents.sync(app.liveConnection)
        #expect(appEvents.events.filter { $0.type == "conversation.call.ended" }.count == 1, "timed out once, not once per replica")
        // The setting is stored with the state: a replica that joins afterwards starts from it.
        let late = try await ServerProcess(arguments: ["--storage", url, "--cluster", "--control-token", Self.controlToken])
        let lateClock = try await ControlClient(baseURL: late.baseURL, credentials: .bearer(Self.controlToken)).clock()
        #expect(lateClock.offset >= 119_000, "the late replica's offset is \(lateClock.offset)")
        try await Self.stop(replicas + [late])
    }

    @Test("moving the clock on any replica, leader or not, times out a ringing call before the answer; once for the cluster")
    func clockOnEveryReplica() async throws {
        let (_, replicas) = try await Self.replicas(2)
        let agent = try await Self.login(replicas[0], "agent-a")
        var readers: [AgentClient] = []
        for replica in replicas { readers.append(try await Self.login(replica, "agent-b")) }
        // One replica leads; the clock moved through each, so at least once through a follower.
        for (index, replica) in replicas.enumerated() {
            let (app, appEvents, callId) = try await Self.ringingCall(replicas[0], agent: agent, device: "phone-clock-\(index)")
            let control = ControlClient(baseURL: replica.baseURL, credentials: .bearer(Self.controlToken))
            _ = try await control.changeClock(ClockChange(advanceMillis: 120_000))
            // Read where the clock moved, without waiting: the control API promises the work is done.
            let read = try await readers[index].call(callId)
            #expect(read.state == "ENDED" && read.endReason == "NOT_ANSWERED", "moved on \(replica.baseURL): \(read.state)")
            try await appEvents.wait(for: "call ended as missed") { $0.type == "conversation.call.ended" }
            try await appEvents.sync(app.liveConnection)
            #expect(appEvents.events.filter { $0.type == "conversation.call.ended" }.count == 1, "timed out once, not once per replica")
        }
        try await Self.stop(replicas)
    }

    @Test("a push goes out once for the cluster, from the replica that committed the write")
    func pushesOnce() async throws {
        let (_, replicas) = try await Self.replicas(3)
        let app = Self.visitor(replicas[0], device: "phone-push")
        try await app.start()
        let notifications = NotificationAPI(client: app)
        _ = try await notifications.register(apnsToken: apnsToken, pushKitToken: nil, version: .encryptedService)
        let conversation = try await app.startConversation(topic: "push once")
        let agentOnB = try await Self.login(replicas[1], "agent-a")
        _ = try await agentOnB.accept(conversation.id)
        try await app.setAppState(.background)
        _ = try await agentOnB.send("are you there?", in: conversation.id)

        let onB = ControlClient(baseURL: replicas[1].baseURL, credentials: .bearer(Self.controlToken))
        _ = try await onB.waitForPush(kind: "NEW_MESSAGE", conversationId: conversation.id)
        var total = 0
        for replica in replicas {
            let control = ControlClient(baseURL: replica.baseURL, credentials: .bearer(Self.controlToken))
            // Every push queued before this call is in that replica's outbox.
            _ = try await control.transport.raw("GET", "/_mock/v1/pushes/settle")
            total += try await control.pushes([("kind", "NEW_MESSAGE"), ("conversationId", conversation.id)]).count
        }
        #expect(total == 1, "one push for the cluster, not one per replica")
        try await Self.stop(replicas)
    }

    @Test("logging out on one replica closes the agent's live connection on another")
    func logoutEndsConnectionsEverywhere() async throws {
        let (_, replicas) = try await Self.replicas(2)
        let agentOnA = try await Self.login(replicas[0], "agent-a")
        let token = try #require(agentOnA.session?.token)
        // The same session, used on replica B.
        let port = replicas[1].port
        let stream = LiveEventStream(url: "ws://127.0.0.1:\(port)/agent/v1/events?token=\(token)")
        try await withDeadline(.seconds(30), "the agent's live connection to replica B") { await stream.waitUntilConnected() }
        try await replicas[1].waitForMetric("mockcollab_live_connections 1")
        try await agentOnA.logout()
        // B closes the connection once it applies the logout, and refuses the client's reconnects.
        try await replicas[1].waitForMetric("mockcollab_live_connections 0")
        stream.close()
        try await Self.stop(replicas)
    }

    @Test("a replica that loses the database stops acknowledging writes and carries on once it is back")
    func replicaLosesDatabase() async throws {
        let (url, replicas) = try await Self.replicas(1)
        var components = try #require(URLComponents(string: url))
        let forwarder = try await TCPForwarder(targetPort: try #require(components.port))
        components.port = forwarder.port
        let cut = try await ServerProcess(arguments: ["--storage", try #require(components.string), "--cluster", "--database-timeout", "2"])
        let adminOnCut = AdminClient(baseURL: cut.baseURL, credentials: .basic(username: "admin-d", password: "pw"))
        let adminOnOther = AdminClient(baseURL: replicas[0].baseURL, credentials: .basic(username: "admin-d", password: "pw"))
        _ = try await adminOnCut.namedAreas.create(WebNamedArea(name: "before", siteId: "before"))

        await forwarder.cut()
        do {
            _ = try await adminOnCut.namedAreas.create(WebNamedArea(name: "lost", siteId: "lost"))
            Issue.record("a write was acknowledged without its database")
        } catch {
            #expect(error.status == 503, "\(error)")
        }
        var status = 200
        for _ in 0..<200 where status == 200 { status = try await PostgresServerTests.readiness(cut) }
        #expect(status == 503)
        // The cluster carries on without it.
        _ = try await adminOnOther.namedAreas.create(WebNamedArea(name: "meanwhile", siteId: "meanwhile"))

        forwarder.restore()
        for _ in 0..<200 where status != 200 { status = try await PostgresServerTests.readiness(cut) }
        #expect(status == 200)
        _ = try await adminOnCut.namedAreas.create(WebNamedArea(name: "after", siteId: "after"))
        for admin in [adminOnCut, adminOnOther] {
            let found = Set((try await admin.namedAreas.search(WebQuery(type: "NamedAreaQuery", limit: 100)).items ?? []).compactMap(\.siteId))
            #expect(found.isSuperset(of: ["before", "meanwhile", "after"]))
            #expect(!found.contains("lost"), "the refused write is nowhere")
        }
        try await Self.stop(replicas + [cut])
        await forwarder.close()
    }

    @Test("timed work whose write fails (its account's lock held past the database timeout) runs once the lock is free")
    func failedTimedWorkRunsAgain() async throws {
        let (url, replicas) = try await Self.replicas(1, extra: ["--database-timeout", "2"])
        let replica = replicas[0]
        let agent = try await Self.login(replica, "agent-a")
        let (app, appEvents, callId) = try await Self.ringingCall(replica, agent: agent, device: "phone-held-lock")
        let account = try await AdminClient(baseURL: replica.baseURL, credentials: .basic(username: "admin-d", password: "pw")).accounts.current()
        // Another session holds the account's lock: the clock moves (a server-wide write), but the missed
        // call's write waits for the lock and fails after the database timeout.
        let holder = try await Self.connect(url, id: 9)
        try await holder.query("BEGIN", logger: TestServer.logger)
        try await holder.query("SELECT pg_advisory_xact_lock(\(PostgresStore.accountLock(try #require(account.id))))", logger: TestServer.logger)
        let control = ControlClient(baseURL: replica.baseURL, credentials: .bearer(Self.controlToken))
        _ = try await control.changeClock(ClockChange(advanceMillis: 120_000))
        #expect(try await agent.call(callId).state != "ENDED", "the call ended while its account's lock was held")
        // Once the lock is free, the replica's next tick does the work the failed one took off the queue.
        try await holder.query("ROLLBACK", logger: TestServer.logger)
        try await holder.close()
        try await appEvents.wait(for: "call ended as missed") { $0.type == "conversation.call.ended" }
        let read = try await agent.call(callId)
        #expect(read.state == "ENDED" && read.endReason == "NOT_ANSWERED", "\(read.state)")
        try await appEvents.sync(app.liveConnection)
        #expect(appEvents.events.filter { $0.type == "conversation.call.ended" }.count == 1, "ended once, whatever the failed tries")
        try await Self.stop(replicas)
    }

    @Test("a write queued behind a lock it cannot get is refused after the database timeout, not held")
    func lockWaitIsBounded() async throws {
        let (url, replicas) = try await Self.replicas(1, extra: ["--database-timeout", "2"])
        let admin = AdminClient(baseURL: replicas[0].baseURL, credentials: .basic(username: "admin-d", password: "pw"))
        let holder = try await Self.connect(url, id: 8)
        // Another session holds the lock every write takes: a query waiting on it cannot be cancelled
        // from the replica, so only the database's own lock timeout answers the request in time.
        try await holder.query("BEGIN", logger: TestServer.logger)
        try await holder.query("SELECT pg_advisory_xact_lock(\(PostgresStore.globalLock))", logger: TestServer.logger)
        do {
            _ = try await admin.namedAreas.create(WebNamedArea(name: "blocked", siteId: "blocked"))
            Issue.record("a write was acknowledged while another session held its lock")
        } catch {
            #expect(error.status == 503, "\(error)")
        }
        try await holder.query("ROLLBACK", logger: TestServer.logger)
        try await holder.close()
        _ = try await admin.namedAreas.create(WebNamedArea(name: "free", siteId: "free"))
        let found = Set((try await admin.namedAreas.search(WebQuery(type: "NamedAreaQuery", limit: 100)).items ?? []).compactMap(\.siteId))
        #expect(found.contains("free") && !found.contains("blocked"))
        try await Self.stop(replicas)
    }

    @Test("a co-browsing viewer on another replica than the device sees its frames, in order")
    func framesAcrossReplicas() async throws {
        let (_, replicas) = try await Self.replicas(2)
        let app = Self.visitor(replicas[0], device: "phone-frames")
        try await app.start(liveEvents: false)
        let conversation = try await app.startConversation(engagementType: "MOBILE_COBROWSING_REQUEST")
        let agentOnB = try await Self.login(replicas[1], "agent-a")
        _ = try await agentOnB.accept(conversation.id)
        let session = try await app.startCoBrowsing(in: conversation.id)
        let agentToken = try #require(agentOnB.session?.token)

        let seen = ListBox<UInt32>()
        let viewerReady = PortBox()
        let last: UInt32 = 5
        let viewer = Task {
            // Released however the connection ends, so a refused upgrade fails the test instead of hanging it.
            defer { viewerReady.set(0) }
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(replicas[1].port)/agent/v1/cobrowsing/\(session.id)/frames?token=\(agentToken)",
                configuration: .init(maxFrameSize: 1 << 20), logger: Logger(label: "viewer")
            ) { inbound, _, _ in
                viewerReady.set(1)
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .binary(let buffer) = message, let frame = try? FrameHeader.decode(buffer.readableBytesView) else { continue }
                    seen.append(frame.header.sequence)
                    if frame.header.sequence == last { return }
                }
            }
        }
        _ = await viewerReady.wait()
        // Uploaded to replica A, paced by the rate limit the server answers with.
        var sequence: UInt32 = 0
        while sequence <= last {
            let answer = try await app.transport.raw(
                "POST", "/mobile/v1/cobrowsing/\(session.id)/frames", body: jpeg(Int(sequence)), contentType: "image/jpeg",
                headers: [("x-frame-sequence", String(sequence)), ("x-frame-width", "390"), ("x-frame-height", "844")]
            )
            let ack = try JSONDecoder().decode(FrameAck.self, from: answer.body)
            if ack.type == "frame.throttled" {
                try await Task.sleep(for: .milliseconds(ack.retryAfterMs ?? 100))
                continue
            }
            #expect(ack.type == "frame.accepted", "\(ack)")
            sequence += 1
        }
        _ = try await withDeadline(.seconds(60), "the viewer's last frame") {
            try await withTaskCancellationHandler { try await viewer.value } onCancel: { viewer.cancel() }
        }
        #expect(seen.all.last == last, "the viewer on B saw the device's last frame")
        #expect(seen.all == seen.all.sorted(), "in order")
        try await Self.stop(replicas)
    }

    @Test("the journal and statistics can be asked for the whole cluster")
    func clusterWideReads() async throws {
        let (_, replicas) = try await Self.replicas(2)
        for (index, replica) in replicas.enumerated() {
            let admin = AdminClient(baseURL: replica.baseURL, credentials: .basic(username: "admin-d", password: "pw"))
            _ = try await admin.namedAreas.create(WebNamedArea(name: "on \(index)", siteId: "on-\(index)"))
        }
        let control = ControlClient(baseURL: replicas[0].baseURL, credentials: .basic(username: "admin-d", password: "pw"))
        // Each replica announces itself once it listens; wait until both are known.
        var page = try await control.transport.send(
            "GET", "/_mock/v1/journal", query: [("scope", "cluster"), ("path", "/app/rest/v4/namedareas")], as: JournalPage.self)
        for _ in 0..<500 where (page.replicas ?? []).count < 2 {
            page = try await control.transport.send(
                "GET", "/_mock/v1/journal", query: [("scope", "cluster"), ("path", "/app/rest/v4/namedareas")], as: JournalPage.self)
        }
        #expect(page.replicas?.count == 2)
        #expect(page.missingReplicas == [])
        let creations = page.entries.filter { $0.method == "POST" }
        #expect(Set(creations.compactMap(\.replica)).count == 2, "one creation journaled on each replica")
        #expect(creations.map(\.timestamp) == creations.map(\.timestamp).sorted())
        let local = try await control.journal(JournalFilter(path: "/app/rest/v4/namedareas"))
        #expect(local.replicas == nil && local.entries.filter { $0.method == "POST" }.count == 1, "without scope: this replica only")

        let stats = try await control.transport.send("GET", "/_mock/v1/stats", query: [("scope", "cluster")], as: StateStats.self)
        let own = try await control.stats()
        #expect(stats.replicas?.count == 2)
        #expect(stats.namedAreas == own.namedAreas, "the stored state is the same on every replica")
        #expect(stats.journalEntries > own.journalEntries, "the journals of both replicas are counted")
        let refused = try await control.transport.raw("GET", "/_mock/v1/stats", query: [("scope", "everywhere")])
        #expect(refused.status == 400)
        try await Self.stop(replicas)
    }

    @Test("a client active on any replica is not stopped as idle by the replica that runs timed work; an idle one is")
    func idleExpiryAcrossReplicas() async throws {
        let (_, replicas) = try await Self.replicas(2, extra: ["--client-idle-seconds", "100"])
        let controls = replicas.map { ControlClient(baseURL: $0.baseURL, credentials: .bearer(Self.controlToken)) }
        _ = try await controls[0].changeClock(ClockChange(frozen: true))
        // One client served only by each replica: whichever runs the expiry, one of them is served elsewhere.
        let apps = [Self.visitor(replicas[0], device: "idle-a"), Self.visitor(replicas[1], device: "idle-b")]
        for app in apps { try await app.start(liveEvents: false) }
        /// Moves the shared clock, then lets every replica run what fell due before answering.
        func advance(_ millis: Int64) async throws {
            _ = try await controls[0].changeClock(ClockChange(advanceMillis: millis))
            for control in controls { _ = try await control.changeClock(ClockChange(advanceMillis: 0)) }
        }
        for _ in 0..<5 {
            try await advance(30_000)
            for app in apps { _ = try await app.agentAvailability() }
        }
        // 150 s after start, active every 30 s: both still started.
        for app in apps { _ = try await app.agentAvailability() }
        try await advance(200_000)
        for app in apps {
            do {
                _ = try await app.agentAvailability()
                Issue.record("a client idle for 200 s was not stopped")
            } catch {
                #expect(error.status == 401, "\(error)")
            }
        }
        try await Self.stop(replicas)
    }

    @Test("three replicas behind nginx: a conversation goes on through a kill -9 of one, and the live streams resume")
    func behindNginx() async throws {
        let (_, replicas) = try await Self.replicas(3)
        let nginx = try await LoopbackNginx.start(inFrontOf: replicas.map(\.port))
        /// A request the load balancer could not complete (its replica died mid-request) is sent again:
        /// with the same clientMessageId, a message is stored once however often it is sent.
        func retrying<T: Sendable>(_ body: () async throws -> T) async throws -> T {
            var attempt = 0
            while true {
                do {
                    return try await body()
                } catch let error as CollabClientError where attempt < 20 && (error.status == nil || error.status == 502 || error.status == 503) {
                    attempt += 1
                }
            }
        }
        let agent = AgentClient(baseURL: nginx.url)
        _ = try await retrying { try await agent.login(username: "agent-a", password: "pw") }
        let agentEvents = EventCollector(try await agent.connectEvents().events)
        let app = VisitorClient(configuration: ClientConfiguration(baseURL: nginx.url, apiKey: "desk-key", deviceId: "phone-nginx"))
        _ = try await app.start()
        let appEvents = EventCollector(app.events)
        let conversation = try await app.startConversation(topic: "through nginx")
        _ = try await retrying { try await agent.accept(conversation.id) }

        var sent: [String] = []
        for index in 0..<30 {
            if index == 10 {
                replicas[0].signal(SIGKILL)
                _ = try await replicas[0].waitForExit()
            }
            let text = "message \(index)"
            _ = try await retrying { try await app.send(text, in: conversation.id, clientMessageId: "nginx-\(index)") }
            sent.append(text)
        }
        // Whichever replica a stream was on, it reconnected through nginx and resumed: every message once, in order.
        let atAgent = try await agentEvents.wait(count: 30) { $0.type == "conversation.new_message" }
        let atVisitor = try await appEvents.wait(count: 30) { $0.type == "conversation.new_message" }
        #expect(atAgent.compactMap(\.message?.text) == sent)
        #expect(atVisitor.compactMap(\.message?.text) == sent)
        let page = try await retrying { try await agent.messages(in: conversation.id) }
        #expect(page.messages.map(\.text) == sent, "stored once each")
        try await nginx.stop()
        try await Self.stop(Array(replicas.dropFirst()))
    }

    @Test("concurrent writes to one account on a replica commit together, in fewer transactions than writes, each answered once stored")
    func groupCommit() async throws {
        let (url, replicas) = try await Self.replicas(2)
        let admin = AdminClient(baseURL: replicas[0].baseURL, credentials: .basic(username: "admin-d", password: "pw"))
        let count = 60
        let logBefore = try await Self.logLength(url)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { _ = try await admin.namedAreas.create(WebNamedArea(name: "batch \(index)", siteId: "batch-\(index)")) }
            }
            try await group.waitForAll()
        }
        let entries = try await Self.logLength(url) - logBefore
        #expect(entries >= 1 && entries < count, "\(count) writes in \(entries) log entries")
        // Acknowledged means stored: the other replica reads every one.
        let other = AdminClient(baseURL: replicas[1].baseURL, credentials: .basic(username: "admin-d", password: "pw"))
        let found = Set((try await other.namedAreas.search(WebQuery(type: "NamedAreaQuery", limit: 1000)).items ?? []).compactMap(\.siteId))
        #expect(found.isSuperset(of: (0..<count).map { "batch-\($0)" }))
        try await Self.stop(replicas)
    }

    /// A session of the test's own on the database at `url`.
    static func connect(_ url: String, id: Int) async throws -> PostgresConnection {
        let location = try PostgresLocation(parsing: url)
        return try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
                tls: .disable
            ),
            id: id, logger: TestServer.logger
        )
    }

    /// How many entries the database's change log holds.
    static func logLength(_ url: String) async throws -> Int {
        let connection = try await connect(url, id: 9)
        defer { Task { try? await connection.close() } }
        var count = 0
        let rows = try await connection.query("SELECT COUNT(*)::BIGINT FROM mock_collab_changes", logger: TestServer.logger)
        for try await value in rows.decode(Int64.self) {
            count = Int(value)
        }
        return count
    }

    @Test("webhooks go out once for the cluster; a reset on one replica empties every replica")
    func webhooksOnceAndResetEverywhere() async throws {
        let (_, replicas) = try await Self.replicas(3)
        let receiver = try await WebhookReceiver()
        let adminOnA = AdminClient(baseURL: replicas[0].baseURL, credentials: .basic(username: "admin-d", password: "pw"))
        let _: WebWebhookRegistration = try await adminOnA.transport.send(
            "POST", "/app/rest/v4/webhookregistrations/create",
            body: WebWebhookRegistration(name: "cluster", endpoint: receiver.url, events: ["conversation.created", "conversation.new_message"])
        )
        let app = Self.visitor(replicas[1], device: "phone-hooks")
        try await app.start(liveEvents: false)
        let conversation = try await app.startConversation(topic: "hooks")
        let agentOnC = try await Self.login(replicas[2], "agent-a")
        _ = try await agentOnC.accept(conversation.id)
        _ = try await app.send("hello hooks", in: conversation.id)
        _ = try await receiver.wait(count: 2)
        // Deliveries are logged when the write commits, before it is answered: every log is complete now.
        var logged: [String] = []
        for replica in replicas {
            let control = ControlClient(baseURL: replica.baseURL, credentials: .bearer(Self.controlToken))
            logged += try await control.webhookDeliveries().map(\.eventType)
        }
        #expect(logged.sorted() == ["conversation.created", "conversation.new_message"], "one delivery per event for the cluster: \(logged)")
        #expect(receiver.all.count == 2)

        let control = ControlClient(baseURL: replicas[0].baseURL, credentials: .bearer(Self.controlToken))
        _ = try await control.reset()
        for replica in replicas {
            let stats = try await ControlClient(baseURL: replica.baseURL, credentials: .bearer(Self.controlToken)).stats()
            #expect(stats.conversations == 0 && stats.accounts == 1, "replica \(replica.baseURL): \(stats.conversations) conversations")
        }
        try await receiver.stop()
        try await Self.stop(replicas)
    }

    @Test("kill -9 of a replica under load loses no acknowledged write; its clients go on on another replica")
    func killUnderLoad() async throws {
        let (url, replicas) = try await Self.replicas(3)
        let acknowledged = AcknowledgedWrites()
        let victim = replicas[0]
        // Writers on every replica; those on the victim fail once it dies and move to replica C.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, replica) in replicas.enumerated() {
                group.addTask {
                    var target = replica
                    var written = 0
                    var failures = 0
                    while written < 40 {
                        let admin = AdminClient(baseURL: target.baseURL, credentials: .basic(username: "admin-d", password: "pw"))
                        let siteId = "r\(index)-\(written)"
                        do {
                            _ = try await admin.namedAreas.create(WebNamedArea(name: siteId, siteId: siteId))
                            acknowledged.list.withLock { $0.append(siteId) }
                            written += 1
                        } catch let error as CollabClientError where error.code == .conflict && failures > 0 {
                            // The victim stored this write but died before answering it: the retry finds it there.
                            acknowledged.recovered.withLock { $0.append(siteId) }
                            written += 1
                        } catch {
                            failures += 1
                            guard failures < 50 else { throw error }
                            target = replicas[2]
                        }
                    }
                }
            }
            group.addTask {
                // Mid-load: once some writes went through the victim.
                while acknowledged.list.withLock({ list in list.filter { $0.hasPrefix("r0-") }.count }) < 10 {
                    try await Task.sleep(for: .milliseconds(5))
                }
                victim.signal(SIGKILL)
                _ = try await victim.waitForExit()
            }
            try await group.waitForAll()
        }
        let written = Set(acknowledged.list.withLock { $0 })
        let recovered = Set(acknowledged.recovered.withLock { $0 })
        #expect(written.count + recovered.count == 120 && recovered.count <= 1, "answered \(written.count), found on retry \(recovered.sorted())")
        // Every acknowledged write is on the survivors, and on a replica started afterwards.
        let late = try await ServerProcess(arguments: ["--storage", url, "--cluster"])
        for replica in [replicas[1], replicas[2], late] {
            let admin = AdminClient(baseURL: replica.baseURL, credentials: .basic(username: "admin-d", password: "pw"))
            let areas = try await admin.namedAreas.search(WebQuery(type: "NamedAreaQuery", limit: 1000))
            let found = Set((areas.items ?? []).compactMap(\.siteId))
            #expect(
                written.union(recovered).isSubset(of: found),
                "missing on \(replica.baseURL): \(written.union(recovered).subtracting(found).sorted())")
        }
        try await Self.stop([replicas[1], replicas[2], late])
    }
}

/// The writes a load acknowledged, shared by its writers.
final class AcknowledgedWrites: Sendable {
    let list = Mutex<[String]>([])
    /// Writes whose answer the kill lost but whose retry found them stored (409): at most the one in flight.
    let recovered = Mutex<[String]>([])
}
