import ArgumentParser
import AsyncHTTPClient
import CollabClient
import CollabWire
import Foundation
import Histogram
import NIOCore
import Synchronization

/// `mock-collab bench growth`: whether cost per request stays flat as the server fills. Measures the
/// busiest operations on a running server (default tenant), fills it with visitors that each have a
/// started client, an APNs device in the background and a queued conversation, measures again, and
/// prints both with their ratio. Use a release build and a durable (SQLite) server.
struct BenchGrowthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "growth", abstract: "Throughput of the busiest operations on an empty server and after it filled with visitors."
    )

    @Option(help: "The server (default tenant: demo-api-key, demo-area, agent/agent, admin/admin).")
    var url = "http://127.0.0.1:8080"

    @Option(help: "Visitors to add between the two measurements.")
    var visitors = 20_000

    @Option(help: "Operations per measurement.")
    var operations = 2_000

    @Option(help: "Requests in flight while measuring.")
    var concurrency = 16

    @Option(help: "Requests in flight while filling.")
    var fillConcurrency = 32

    @Option(help: "The server's process id, to report its resident memory.")
    var serverPid: Int32?

    @Flag(help: "Also measure two accounts at once: visitor messages in the demo account alone, then in it and a second account together.")
    var twoAccounts = false

    struct Row: Encodable {
        var operation: String
        var emptyPerSecond: Double
        var fullPerSecond: Double
        var emptyP99Millis: Double
        var fullP99Millis: Double
        var ratio: Double { fullPerSecond / emptyPerSecond }
    }

    func run() async throws {
        try await HTTPClient.forBenchmark { try await run(http: $0) }
    }

    func run(http: HTTPClient) async throws {
        let fixture = try await Fixture.make(url: url, http: http)
        let empty = try await measureAll(fixture, http: http)
        let rssBefore = serverPid.flatMap(Self.rss)

        let started = ContinuousClock.now
        let done = Atomic<Int>(0)
        try await forEachConcurrently(0..<visitors, width: fillConcurrency) { index in
            let visitor = VisitorClient(configuration: ClientConfiguration(baseURL: url, apiKey: "demo-api-key", namedArea: "demo-area", deviceId: "growth-\(fixture.run)-\(index)"), client: http)
            try await visitor.start(liveEvents: false)
            try await NotificationAPI(client: visitor).register(apnsToken: Self.token(index), version: .encrypted)
            _ = try await visitor.setAppState(.background)
            _ = try await visitor.startConversation(topic: "growth \(index)")
            let count = done.add(1, ordering: .relaxed).newValue
            if count % 2_000 == 0 { FileHandle.standardError.write(Data("filled \(count)/\(visitors)\n".utf8)) }
        }
        let fillSeconds = (ContinuousClock.now - started).seconds
        let rssAfter = serverPid.flatMap(Self.rss)
        let full = try await measureAll(fixture, http: http)

        print("operation\tempty/s\tfull/s\tratio\tempty p99 ms\tfull p99 ms")
        for (name, before) in empty {
            guard let after = full.first(where: { $0.0 == name })?.1 else { continue }
            print(String(format: "%@\t%.0f\t%.0f\t%.2f\t%.1f\t%.1f", name, before.perSecond, after.perSecond, after.perSecond / before.perSecond, before.p99, after.p99))
        }
        print(String(format: "fill\t%d visitors in %.1f s (%.0f visitors/s, 4 requests each)", visitors, fillSeconds, Double(visitors) / fillSeconds))
        if let rssBefore, let rssAfter {
            print(String(format: "rss\t%.1f MB before, %.1f MB after: %.1f KB per visitor", rssBefore / 1024, rssAfter / 1024, (rssAfter - rssBefore) / Double(visitors)))
        }
        if twoAccounts { try await measureTwoAccounts(fixture, http: http) }
    }

    /// Visitor messages in account A alone, then in A and a second account B at the same time: with a
    /// lock per account, B's writes do not queue behind A's (on two cores both share the CPU, so the
    /// sum is what to compare with A alone).
    func measureTwoAccounts(_ a: Fixture, http: HTTPClient) async throws {
        let control = ControlClient(baseURL: url, credentials: .basic(username: "superadmin", password: "superadmin"), client: http)
        _ = try await control.seed("""
            accounts:
              - name: bench-b
                apiKeys: [{key: bench-b-key}]
                namedAreas: [{siteId: bench-b-area}]
                users: [{username: bench-b-agent, password: bench-b-agent, role: REGISTERED_USER}]
            """)
        let b = try await Fixture.make(url: url, http: http, apiKey: "bench-b-key", area: "bench-b-area", agent: "bench-b-agent")
        let alone = try await measure { i in _ = try await a.chatVisitor.send("alone \(i)", in: a.chatConversation) }
        async let inA = measure { i in _ = try await a.chatVisitor.send("a \(i)", in: a.chatConversation) }
        async let inB = measure { i in _ = try await b.chatVisitor.send("b \(i)", in: b.chatConversation) }
        let (together, other) = try await (inA, inB)
        print(String(format: "two accounts\tA alone %.0f/s (p99 %.1f ms); together A %.0f/s (p99 %.1f ms) + B %.0f/s (p99 %.1f ms) = %.0f/s",
                     alone.perSecond, alone.p99, together.perSecond, together.p99, other.perSecond, other.p99, together.perSecond + other.perSecond))
    }

    struct Result {
        var perSecond: Double
        var p99: Double
    }

    /// Every operation in turn, each `operations` times with `concurrency` in flight.
    func measureAll(_ fixture: Fixture, http: HTTPClient) async throws -> [(String, Result)] {
        let newVisitors = Atomic<Int>(0)
        let run = fixture.run
        let measured: [(String, @Sendable (Int) async throws -> Void)] = [
            ("visitor message send", { i in _ = try await fixture.chatVisitor.send("message \(i)", in: fixture.chatConversation) }),
            ("agent message + push", { i in _ = try await fixture.agent.send("reply \(i)", in: fixture.pushConversation) }),
            ("conversation create (new visitor)", { _ in
                let n = newVisitors.add(1, ordering: .relaxed).newValue
                let visitor = VisitorClient(configuration: ClientConfiguration(baseURL: url, apiKey: "demo-api-key", deviceId: "growth-new-\(run)-\(n)"), client: http)
                try await visitor.start(liveEvents: false)
                _ = try await visitor.startConversation(topic: "new")
            }),
            ("agent queue page (50)", { _ in _ = try await fixture.queue.send("GET", "/agent/v1/queue", query: [("limit", "50")]) as QueueView }),
            ("Web API read (getCurrentAccount)", { _ in _ = try await fixture.admin.accounts.current() }),
            ("token registration", { i in try await fixture.pushRegistration.register(apnsToken: Self.token(1_000_000 + i % 1000), version: .encrypted) }),
        ]
        var results: [(String, Result)] = []
        for (name, operation) in measured {
            results.append((name, try await measure(operation)))
        }
        return results
    }

    func measure(_ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Result {
        let histogram = Mutex(Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three))
        let started = ContinuousClock.now
        try await forEachConcurrently(0..<operations, width: concurrency) { index in
            let begin = ContinuousClock.now
            try await operation(index)
            let micros = UInt64(max(0, (ContinuousClock.now - begin).seconds * 1_000_000))
            histogram.withLock { _ = $0.record(micros) }
        }
        let seconds = (ContinuousClock.now - started).seconds
        let p99 = histogram.withLock { Double($0.valueAtPercentile(99)) / 1000 }
        return Result(perSecond: Double(operations) / seconds, p99: p99)
    }

    static func token(_ index: Int) -> String {
        String(format: "%064x", index)
    }

    /// Resident memory of a process in KB.
    static func rss(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").compactMap { Double($0) }.first
    }
}

/// What the measured operations act on: a visitor in an accepted conversation, a backgrounded visitor
/// with an APNs device in another (so agent messages push), an agent, an admin.
struct Fixture: Sendable {
    var run: String
    var agent: AgentClient
    var queue: HTTPTransport
    var admin: AdminClient
    var chatVisitor: VisitorClient
    var chatConversation: String
    var pushConversation: String
    var pushRegistration: NotificationAPI

    static func make(
        url: String, http: HTTPClient, apiKey: String = "demo-api-key", area: String = "demo-area", agent agentName: String = "agent"
    ) async throws -> Fixture {
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let agent = AgentClient(baseURL: url, client: http)
        let login = try await agent.login(username: agentName, password: agentName)
        try await agent.setPresence("ONLINE")
        let chat = VisitorClient(configuration: ClientConfiguration(baseURL: url, apiKey: apiKey, namedArea: area, deviceId: "growth-chat-\(run)"), client: http)
        try await chat.start(liveEvents: false)
        let chatConversation = try await chat.startConversation(topic: "bench chat").id
        _ = try await agent.accept(chatConversation)
        let pushed = VisitorClient(configuration: ClientConfiguration(baseURL: url, apiKey: apiKey, namedArea: area, deviceId: "growth-push-\(run)"), client: http)
        try await pushed.start(liveEvents: false)
        let registration = NotificationAPI(client: pushed)
        try await registration.register(apnsToken: BenchGrowthCommand.token(999_999_999), version: .encrypted)
        _ = try await pushed.setAppState(.background)
        let pushConversation = try await pushed.startConversation(topic: "bench push").id
        _ = try await agent.accept(pushConversation)
        return Fixture(
            run: run, agent: agent, queue: HTTPTransport(baseURL: url, credentials: .bearer(login.token), client: http),
            admin: AdminClient(baseURL: url, credentials: .basic(username: "admin", password: "admin"), client: http),
            chatVisitor: chat, chatConversation: chatConversation, pushConversation: pushConversation, pushRegistration: registration
        )
    }
}

/// Runs `body` for every element with at most `width` running at once.
func forEachConcurrently<S: Sequence & Sendable>(
    _ elements: S, width: Int, _ body: @escaping @Sendable (S.Element) async throws -> Void
) async throws where S.Element: Sendable {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var iterator = elements.makeIterator()
        for _ in 0..<max(1, width) {
            guard let next = iterator.next() else { break }
            group.addTask { try await body(next) }
        }
        while try await group.next() != nil {
            if let next = iterator.next() { group.addTask { try await body(next) } }
        }
    }
}
