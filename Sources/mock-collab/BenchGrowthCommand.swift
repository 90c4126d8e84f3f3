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
/// prints both with their ratio. Each round of measurements acts on fresh conversations, spread so that
/// none passes the 10,000-message limit however many operations are asked for; with `--rounds` above 1
/// each row reports its median round and the spread. Use a release build and a durable (SQLite) server.
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

    @Option(help: "Measurements of every operation on the empty server and again on the full one; each row reports the median.")
    var rounds = 1

    @Option(help: "Requests in flight while measuring.")
    var concurrency = 16

    @Option(help: "Requests in flight while filling.")
    var fillConcurrency = 32

    @Option(help: "The server's process id, to report its resident memory.")
    var serverPid: Int32?

    @Flag(help: "Also measure two accounts at once: visitor messages in the demo account alone, then in it and a second account together.")
    var twoAccounts = false

    func run() async throws {
        try await HTTPClient.forBenchmark(connections: concurrency) { try await run(http: $0) }
    }

    func validate() throws {
        guard operations > 0, rounds > 0, concurrency > 0, visitors >= 0 else {
            throw ValidationError("--operations, --rounds and --concurrency must be positive and --visitors not negative")
        }
    }

    func run(http: HTTPClient) async throws {
        let empty = try await measureRounds(http: http)
        let rssBefore = serverPid.flatMap(Self.rss)

        let started = ContinuousClock.now
        let done = Atomic<Int>(0)
        let fill = Fixture.runId()
        try await forEachConcurrently(0..<visitors, width: fillConcurrency) { index in
            let configuration = ClientConfiguration(
                baseURL: url, apiKey: "demo-api-key", namedArea: "demo-area", deviceId: "growth-\(fill)-\(index)")
            let visitor = VisitorClient(configuration: configuration, client: http)
            try await visitor.start(liveEvents: false)
            try await NotificationAPI(client: visitor).register(apnsToken: Self.token(index), version: .encrypted)
            _ = try await visitor.setAppState(.background)
            _ = try await visitor.startConversation(topic: "growth \(index)")
            let count = done.add(1, ordering: .relaxed).newValue
            if count % 2_000 == 0 { FileHandle.standardError.write(Data("filled \(count)/\(visitors)\n".utf8)) }
        }
        let fillSeconds = (ContinuousClock.now - started).seconds
        let rssAfter = serverPid.flatMap(Self.rss)
        let full = try await measureRounds(http: http)

        print("operation\tempty/s\tfull/s\tratio\tempty p99 ms\tfull p99 ms" + (rounds > 1 ? "\tempty range/s\tfull range/s" : ""))
        for (name, before) in empty {
            guard let after = full.first(where: { $0.0 == name })?.1 else { continue }
            let line = String(format: "%@\t%.0f\t%.0f\t%.2f\t%.1f\t%.1f", name, before.perSecond, after.perSecond,
                              after.perSecond / before.perSecond, before.p99, after.p99)
            print(rounds > 1 ? line + "\t\(before.range)\t\(after.range)" : line)
        }
        print(String(format: "fill\t%d visitors in %.1f s (%.0f visitors/s, 4 requests each)", visitors, fillSeconds, Double(visitors) / fillSeconds))
        if let rssBefore, let rssAfter {
            print(
                String(
                    format: "rss\t%.1f MB before, %.1f MB after: %.1f KB per visitor", rssBefore / 1024, rssAfter / 1024,
                    (rssAfter - rssBefore) / Double(visitors)))
        }
        if twoAccounts { try await measureTwoAccounts(http: http) }
    }

    /// Visitor messages in account A alone, then in A and a second account B at the same time: with a
    /// lock per account, B's writes do not queue behind A's (on two cores both share the CPU, so the
    /// sum is what to compare with A alone).
    func measureTwoAccounts(http: HTTPClient) async throws {
        let control = ControlClient(baseURL: url, credentials: .basic(username: "superadmin", password: "superadmin"), client: http)
        _ = try await control.seed("""
            accounts:
              - name: bench-b
                apiKeys: [{key: bench-b-key}]
                namedAreas: [{siteId: bench-b-area}]
                users: [{username: bench-b-agent, password: bench-b-agent, role: REGISTERED_USER}]
            """)
        let b = try await Fixture.make(
            url: url, http: http, apiKey: "bench-b-key", area: "bench-b-area", agent: "bench-b-agent", conversations: conversationsPerRound)
        let a = try await Fixture.make(url: url, http: http, conversations: conversationsPerRound)
        let alone = try await measure { i in try await a.chat(i).send("alone \(i)") }
        async let inA = measure { i in try await a.chat(i).send("a \(i)") }
        async let inB = measure { i in try await b.chat(i).send("b \(i)") }
        let (together, other) = try await (inA, inB)
        print(String(format: "two accounts\tA alone %.0f/s (p99 %.1f ms); together A %.0f/s (p99 %.1f ms) + B %.0f/s (p99 %.1f ms) = %.0f/s",
                     alone.perSecond, alone.p99, together.perSecond, together.p99, other.perSecond, other.p99, together.perSecond + other.perSecond))
    }

    struct Result {
        var perSecond: Double
        var p99: Double
        /// Lowest and highest rate of the rounds this result is the median of ("" for one round).
        var range = ""

        /// The round with the median rate (the lower middle one for an even count), and the spread.
        static func median(_ rounds: [Result]) -> Result {
            let sorted = rounds.sorted { $0.perSecond < $1.perSecond }
            var middle = sorted[(sorted.count - 1) / 2]
            if let low = sorted.first, let high = sorted.last, sorted.count > 1 {
                middle.range = String(format: "%.0f–%.0f", low.perSecond, high.perSecond)
            }
            return middle
        }
    }

    /// Conversations each kind of message is spread over, so that a round stays under the server's
    /// 10,000 messages per conversation with room to spare.
    var conversationsPerRound: Int { (operations + 1_999) / 2_000 }

    /// `rounds` measurements of every operation, each round on fresh conversations, reduced to the
    /// median round per operation.
    func measureRounds(http: HTTPClient) async throws -> [(String, Result)] {
        var measured: [[(String, Result)]] = []
        for _ in 0..<rounds {
            let fixture = try await Fixture.make(url: url, http: http, conversations: conversationsPerRound)
            measured.append(try await measureAll(fixture, http: http))
        }
        return measured[0].indices.map { row in (measured[0][row].0, Result.median(measured.map { $0[row].1 })) }
    }

    /// Every operation in turn, each `operations` times with `concurrency` in flight.
    func measureAll(_ fixture: Fixture, http: HTTPClient) async throws -> [(String, Result)] {
        let newVisitors = Atomic<Int>(0)
        let run = fixture.run
        let measured: [(String, @Sendable (Int) async throws -> Void)] = [
            ("visitor message send", { i in try await fixture.chat(i).send("message \(i)") }),
            ("agent message + push", { i in _ = try await fixture.agent.send("reply \(i)", in: fixture.pushConversation(i)) }),
            ("conversation create (new visitor)", { _ in
                let n = newVisitors.add(1, ordering: .relaxed).newValue
                let visitor = VisitorClient(
                    configuration: ClientConfiguration(baseURL: url, apiKey: "demo-api-key", deviceId: "growth-new-\(run)-\(n)"), client: http)
                try await visitor.start(liveEvents: false)
                _ = try await visitor.startConversation(topic: "new")
            }),
            ("agent queue page (50)", { _ in _ = try await fixture.queue.send("GET", "/agent/v1/queue", query: [("limit", "50")]) as QueueView }),
            ("Web API read (getCurrentAccount)", { _ in _ = try await fixture.admin.accounts.current() }),
            ("token registration", { i in
                try await fixture.pushRegistration.register(apnsToken: Self.token(1_000_000 + i % 1000), version: .encrypted)
            }),
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

/// What the measured operations act on: visitors in accepted conversations, backgrounded visitors with
/// an APNs device in others (so agent messages push), an agent, an admin. Messages go to the
/// conversations in turn.
struct Fixture: Sendable {
    /// A visitor and the accepted conversation it writes in.
    struct Chat: Sendable {
        var visitor: VisitorClient
        var conversation: String

        func send(_ text: String) async throws { _ = try await visitor.send(text, in: conversation) }
    }

    var run: String
    var agent: AgentClient
    var queue: HTTPTransport
    var admin: AdminClient
    var chats: [Chat]
    var pushConversations: [String]
    var pushRegistration: NotificationAPI

    /// A short random id that keeps this run's device ids apart from earlier runs' on the same server.
    static func runId() -> String { String(UInt32.random(in: 0...UInt32.max), radix: 36) }

    /// The chat operation `index` writes in.
    func chat(_ index: Int) -> Chat { chats[index % chats.count] }

    /// The pushed conversation operation `index` writes in.
    func pushConversation(_ index: Int) -> String { pushConversations[index % pushConversations.count] }

    /// A fixture with `conversations` chat conversations and as many pushed ones (at least one each).
    static func make(
        url: String, http: HTTPClient, apiKey: String = "demo-api-key", area: String = "demo-area", agent agentName: String = "agent",
        conversations: Int = 1
    ) async throws -> Fixture {
        let run = runId()
        let agent = AgentClient(baseURL: url, client: http)
        let login = try await agent.login(username: agentName, password: agentName)
        try await agent.setPresence("ONLINE")
        func visitor(_ role: String, _ n: Int) async throws -> VisitorClient {
            let configuration = ClientConfiguration(baseURL: url, apiKey: apiKey, namedArea: area, deviceId: "growth-\(role)-\(run)-\(n)")
            let visitor = VisitorClient(configuration: configuration, client: http)
            try await visitor.start(liveEvents: false)
            return visitor
        }
        var chats: [Chat] = []
        var pushConversations: [String] = []
        var registrations: [NotificationAPI] = []
        for n in 0..<max(1, conversations) {
            let chat = try await visitor("chat", n)
            let chatConversation = try await chat.startConversation(topic: "bench chat").id
            _ = try await agent.accept(chatConversation)
            chats.append(Chat(visitor: chat, conversation: chatConversation))
            let pushed = try await visitor("push", n)
            let pushedRegistration = NotificationAPI(client: pushed)
            try await pushedRegistration.register(apnsToken: BenchGrowthCommand.token(999_999_999 - n), version: .encrypted)
            _ = try await pushed.setAppState(.background)
            let pushConversation = try await pushed.startConversation(topic: "bench push").id
            _ = try await agent.accept(pushConversation)
            pushConversations.append(pushConversation)
            registrations.append(pushedRegistration)
        }
        return Fixture(
            run: run, agent: agent, queue: HTTPTransport(baseURL: url, credentials: .bearer(login.token), client: http),
            admin: AdminClient(baseURL: url, credentials: .basic(username: "admin", password: "admin"), client: http),
            chats: chats, pushConversations: pushConversations, pushRegistration: registrations[0]
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
