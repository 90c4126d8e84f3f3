import CollabClient
import CollabServer
import CollabStore
import CollabWire
import Foundation
import Testing

@testable import CollabLoad

/// The load tool against a real server on port 0: its runs complete, its counts agree with the
/// server's own, its reports validate, and Ctrl-C still reports.
@Suite struct LoadToolTests {
    static func configuration(_ server: TestServer, scenario: LoadScenario, visitors: Int = 12) -> LoadConfiguration {
        var configuration = LoadConfiguration(url: server.baseURL)
        configuration.scenario = scenario
        configuration.visitors = visitors
        configuration.agents = 2
        configuration.rampUpSeconds = 0.3
        configuration.durationSeconds = 2.5
        configuration.messageIntervalSeconds = 0.15
        configuration.messagesPerConversation = 3
        configuration.control = .token("test-control-token")
        // A fixed amount of work, so what is checked does not depend on the machine's speed.
        configuration.durationSeconds = 60
        configuration.conversationsPerVisitor = 1
        configuration.framesPerDevice = 8
        return configuration
    }

    @Test("a server that cannot be reached stops the run before it starts, with the reason")
    func unreachableServer() async throws {
        var configuration = LoadConfiguration(url: "http://127.0.0.1:1")
        configuration.visitors = 2
        configuration.agents = 1
        let error = await #expect(throws: LoadServerUnreachable.self) { _ = try await LoadRunner(configuration: configuration).run() }
        let description = error?.description ?? ""
        #expect(description.hasPrefix("the server at http://127.0.0.1:1 cannot be reached: ") && description.contains("Connection refused"))
    }

    @Test func mixedRunCompletesAndAgreesWithTheServer() async throws {
        try await TestServer.with { server in try await Self.mixedRun(server) }
    }

    static func mixedRun(_ server: TestServer) async throws {
        do {
            let report = try await LoadRunner(configuration: Self.configuration(server, scenario: .mixed, visitors: 16)).run()

            #expect(report.stoppedBy == "completed")
            #expect(report.errors.isEmpty, "\(report.errors)")
            let comparison = try #require(report.server, "\(report.serverUnavailable ?? "")")
            for check in comparison.checks {
                #expect(check.agrees, "\(check.name): server \(check.server), load \(check.load)")
            }
            // Every role did its part.
            #expect(report.configuration.roles.values.reduce(0, +) == 16)
            #expect(report.configuration.roles.values.allSatisfy { $0 > 0 }, "seed 1 gives every role")
            #expect(report.counter(.visitorsStarted) == 16)
            #expect(report.counter(.conversationsStarted) == 16)
            #expect(report.counter(.messagesSent) == 3 * (16 - report.configuration.roles["cobrowse", default: 0]))
            #expect(report.counter(.repliesSent) == report.counter(.messagesSent))
            // The server counts every message stored, so the tool's figure is sends plus replies, and says so.
            let messages = try #require(comparison.checks.first { $0.name == "messages" })
            let counted = "\(report.counter(.messagesSent)) visitor messages + \(report.counter(.repliesSent)) agent replies"
            #expect(messages.counted == counted)
            #expect(report.text.contains("messages: server \(messages.server), load \(messages.load) (\(counted))"), "\(report.text)")
            #expect(report.counter(.conversationsEnded) == report.counter(.conversationsStarted))
            if report.configuration.roles["push", default: 0] > 0 {
                #expect(report.counter(.pushRegistrations) == report.configuration.roles["push"])
                #expect(report.counter(.callsStarted) == report.configuration.roles["push"])
                #expect(report.operation(.callRing)?.count == report.configuration.roles["push"])
                #expect(comparison.pushesEmitted > 0)
            }
            if report.configuration.roles["cobrowse", default: 0] > 0 {
                #expect(report.counter(.framesSent) == 8 * report.configuration.roles["cobrowse", default: 0])
                #expect(report.counter(.framesAccepted) > 0)
                // Every frame sent was answered (how many were throttled depends on transit jitter on a busy machine).
                let answered =
                    report.counter(.framesAccepted) + report.counter(.framesThrottled)
                    + report.counter(.framesDuplicate) + report.counter(.framesRejected)
                #expect(answered == report.counter(.framesSent))
                #expect(report.counter(.framesRejected) == 0)
            }
            // Percentiles are ordered and the timeline covers the run.
            for operation in report.operations {
                let latency = try #require(operation.latencyMs, "\(operation.operation)")
                #expect(latency.min <= latency.p50 && latency.p50 <= latency.p99 && latency.p99 <= latency.max)
            }
            #expect(report.operation(.messageDeliver)?.count == report.counter(.messagesSent))
            #expect(report.timeline.count >= 1)
            let timelineMessages = report.timeline.reduce(0) { $0 + ($1.operations[LoadOperation.messageSend.rawValue]?.count ?? 0) }
            #expect(timelineMessages == report.counter(.messagesSent))

            // The JSON report validates against the published schema; the HTML has its charts and no scripts.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try await validateAgainstSchema(encoder.encode(report))
            let html = report.html
            #expect(html.contains("<svg"))
            #expect(html.contains("<polyline"))
            #expect(!html.lowercased().contains("<script"))
            #expect(!report.text.isEmpty)
        }
    }

    @Test("a frame over the server's message limit closes the device's socket: counted as such, not as a timeout")
    func oversizedFrameClosesTheSocket() async throws {
        try await TestServer.with { server in
            var configuration = Self.configuration(server, scenario: .cobrowse, visitors: 2)
            configuration.frameBytes = 300_000
            configuration.eventTimeoutSeconds = 60  // a timeout would show as one only after this
            let report = try await LoadRunner(configuration: configuration).run()
            let frameErrors = report.errors.filter { $0.operation == "frame.ack" }
            #expect(frameErrors.map(\.type) == ["socket closed"], "\(report.errors)")
            #expect(report.elapsedSeconds < 50, "the closed socket is noticed at once, not after the event timeout")
        }
    }

    @Test("--strict exits 1 and says why: here every visitor's start is refused (an unknown API key)")
    func strictSaysWhy() async throws {
        try await TestServer.with { server in
            let run = try await CommandRun.mockCollab(
                [
                    "load", "--url", server.baseURL, "--api-key", "no-such-key", "--visitors", "2", "--agents", "1", "--duration", "1",
                    "--ramp-up", "0.1", "--drain", "1", "--control-token", "test-control-token", "--progress", "none", "--strict",
                ],
                in: try temporaryDirectory())
            #expect(run.status == 1, "\(run.standardError)\n\(run.standardOutput)")
            // On a machine too busy for the refusals to arrive within the one-second run, some or all of the
            // starts are cancelled instead (a cancelled start is not counted as failed): strict still fails,
            // saying so.
            let reason = ["1", "2"].contains { run.standardError.contains("--strict: exit 1: \($0) operations failed (see errors above)") }
                || run.standardError.contains("--strict: exit 1: no visitor started before the run ended")
            #expect(reason, "\(run.standardError)\n\(run.standardOutput)")
        }
    }

    @Test("a refused upload is one error per conversation, and the conversation goes on with text")
    func refusedUploadIsTriedOnce() async throws {
        var server = ServerConfiguration(host: "127.0.0.1", port: 0, storage: .memory, controlToken: "test-control-token", passwordHashCost: 4)
        server.files.maxFileSize = 1_000  // every picture of the run is larger: 413 for each
        let running = try await TestServer.start(configuration: server)
        do {
            var configuration = Self.configuration(running, scenario: .files, visitors: 3)
            configuration.fileBytes = 5_000
            let report = try await LoadRunner(configuration: configuration).run()
            let uploads = report.errors.filter { $0.operation == "file.upload" }
            #expect(uploads.reduce(0) { $0 + $1.count } == 3, "one per conversation: \(report.errors)")
            #expect(report.counter(.messagesSent) == 3 * configuration.messagesPerConversation, "the text messages all went")
            try await running.stop()
        } catch {
            try await running.stop()
            throw error
        }
    }

    @Test("a live socket the server refuses is a live.connect error with the reason, and the visitor connects once a socket is free")
    func refusedLiveSocketIsCounted() async throws {
        var server = ServerConfiguration(host: "127.0.0.1", port: 0, storage: .memory, controlToken: "test-control-token", passwordHashCost: 4)
        // One socket for the account: the visitors starting together take turns. No agent (whose socket
        // would depend on who connects first): each visitor's conversation waits a second in the queue,
        // ends, and its app stops, freeing the socket.
        server.liveSocketLimits = LiveSocketLimits(perAccount: 1)
        let running = try await TestServer.start(configuration: server)
        do {
            var configuration = Self.configuration(running, scenario: .chat, visitors: 3)
            configuration.agents = 0
            configuration.rampUpSeconds = 0
            configuration.eventTimeoutSeconds = 1
            let report = try await LoadRunner(configuration: configuration).run()
            let refused = report.errors.filter { $0.operation == LoadOperation.liveConnect.rawValue }
            #expect(refused.map(\.type) == ["live socket"], "\(report.errors)")
            #expect(refused.first?.example.contains("refused the WebSocket upgrade") == true, "\(refused)")
            #expect(report.counter(.visitorsStarted) == 3, "every visitor connected in the end: \(report.errors)")
            #expect(report.counter(.conversationsStarted) == 3)
            try await running.stop()
        } catch {
            try await running.stop()
            throw error
        }
    }

    @Test("the HTML chart grows to hold a legend entry for every operation")
    func chartLegendHoldsEveryOperation() throws {
        let series = LoadOperation.allCases.enumerated().map { index, operation in
            (name: operation.rawValue, color: "#000000", dashed: false, points: [(0.0, Double(index)), (1.0, Double(index))])
        }
        let svg = LoadReport.chart(series: series, unit: "ms")
        let viewBox = try #require(svg.firstMatch(of: /viewBox="0 0 (\d+) (\d+)"/))
        let height = try #require(Double(viewBox.2))
        for operation in LoadOperation.allCases {
            let entry = try #require(
                svg.firstMatch(of: try Regex<(Substring, Substring)>(#"<text x="[0-9.]+" y="([0-9.]+)">"# + operation.rawValue + "</text>")),
                "\(operation.rawValue) has a legend entry"
            )
            #expect(try #require(Double(entry.1)) < height, "\(operation.rawValue)'s legend entry is inside the chart")
        }
    }

    @Test func sameSeedMakesTheSameChoices() async throws {
        try await TestServer.with { server in
            var first = Self.configuration(server, scenario: .mixed, visitors: 40)
            first.durationSeconds = 0.2
            first.conversationsPerVisitor = nil
            first.framesPerDevice = nil
            first.rampUpSeconds = 0
            first.agents = 1
            first.control = nil
            let a = try await LoadRunner(configuration: first).run()
            let b = try await LoadRunner(configuration: first).run()
            #expect(a.configuration.roles == b.configuration.roles)
            first.seed = 2
            let c = try await LoadRunner(configuration: first).run()
            #expect(c.configuration.roles.values.reduce(0, +) == 40)
            #expect(a.serverUnavailable == "no control credentials")
        }
    }

    @Test func chatAgainstAnotherAccountStaysInItsAccount() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            var configuration = Self.configuration(server, scenario: .chat, visitors: 4)
            configuration.apiKey = "alpha-key"
            configuration.namedAreas = ["alpha-area"]
            configuration.agentUsername = "alpha-agent"
            configuration.agentPassword = "pw-a"
            let betaBefore = try await server.entityStats(account: "beta")
            let report = try await LoadRunner(configuration: configuration).run()
            #expect(report.errors.isEmpty, "\(report.errors)")
            #expect(report.server?.agrees == true)
            #expect(try await server.entityStats(account: "beta") == betaBefore)
        }
    }

    static let outOfBounds: [(String, LoadConfiguration)] = {
        func bad(_ option: String, _ change: (inout LoadConfiguration) -> Void) -> (String, LoadConfiguration) {
            var configuration = LoadConfiguration(url: "http://127.0.0.1:1")
            change(&configuration)
            return (option, configuration)
        }
        return [
            bad("--visitors") { $0.visitors = -1 },
            bad("--visitors") { $0.visitors = 1_000_000 },
            bad("--duration") { $0.durationSeconds = 0 },
            bad("--fps") { $0.fps = 0 },
            bad("--frame-bytes") { $0.frameBytes = 10 << 20 },
            bad("--named-areas") { $0.namedAreas = [] },
            bad("--url") { $0.url = "ftp://x" },
            bad("--agents") {
                $0.scenario = .cobrowse
                $0.agents = 0
            },
        ]
    }()

    @Test(arguments: outOfBounds)
    func outOfBoundsConfigurationIsRefused(option: String, configuration: LoadConfiguration) async throws {
        do throws(LoadConfigurationError) {
            try configuration.validate()
            Issue.record("\(option) out of bounds was accepted")
        } catch {
            #expect(error.option == option)
        }
        await #expect(throws: LoadConfigurationError.self) { try await LoadRunner(configuration: configuration).run() }
    }

    /// The real command: live progress on stderr, Ctrl-C stops it early, it exits 0 and still writes
    /// both reports.
    @Test func interruptedCommandStillReports() async throws {
        try await TestServer.with { server in
            let directory = try temporaryDirectory()
            let json = directory.appendingPathComponent("report.json")
            let html = directory.appendingPathComponent("report.html")
            let process = Process()
            process.executableURL = ServerProcess.binary
            process.arguments = [
                "load", "--url", server.baseURL, "--visitors", "6", "--agents", "1", "--duration", "120", "--ramp-up", "0.2", "--scenario", "chat",
                "--message-interval", "0.1", "--control-token", "test-control-token", "--json", json.path, "--html", html.path, "--progress", "line",
            ]
            let stdout = OutputBuffer()
            let stderr = OutputBuffer()
            let out = ChildPipes.make()
            let err = ChildPipes.make()
            out.fileHandleForReading.readabilityHandler = { stdout.append($0.availableData) }
            err.fileHandleForReading.readabilityHandler = { stderr.append($0.availableData) }
            process.standardOutput = out
            process.standardError = err
            try ChildPipes.spawn { try process.run() }
            // Wait until messages flow (the live view reports them), then interrupt.
            let deadline = ContinuousClock.now + .seconds(30)
            while !stderr.text.contains("msg "), ContinuousClock.now < deadline, process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(stderr.text.contains("visitors "))
            kill(process.processIdentifier, SIGINT)
            let exitDeadline = ContinuousClock.now + .seconds(40)
            while process.isRunning, ContinuousClock.now < exitDeadline { try await Task.sleep(for: .milliseconds(50)) }
            if process.isRunning { process.terminate() }
            while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
            // Read what is left in the pipes up to their end (the process closed them), not a sleep.
            out.fileHandleForReading.readabilityHandler = nil
            err.fileHandleForReading.readabilityHandler = nil
            stdout.append(out.fileHandleForReading.readDataToEndOfFile())
            stderr.append(err.fileHandleForReading.readDataToEndOfFile())
            #expect(process.terminationStatus == 0, "\(stderr.text)")
            #expect(stdout.text.contains("stopped by interrupted"))
            let data = try Data(contentsOf: json)
            try await validateAgainstSchema(data)
            let report = try JSONDecoder().decode(LoadReport.self, from: data)
            #expect(report.stoppedBy == "interrupted")
            #expect(report.elapsedSeconds < 60)
            #expect(report.counter(.messagesSent) > 0)
            #expect(report.server?.agrees == true, "\(String(describing: report.server?.checks))")
            #expect(try String(contentsOf: html, encoding: .utf8).contains("<svg"))
        }
    }
}

/// Validates a report with Python's `jsonschema` against docs/load-report.schema.json.
func validateAgainstSchema(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let schema = root.appendingPathComponent("docs/load-report.schema.json").path
    let file = try temporaryDirectory().appendingPathComponent("report.json")
    try data.write(to: file)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "python3", "-c",
        "import json, sys, jsonschema; s = json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(s); "
            + "jsonschema.validate(json.load(open(sys.argv[2])), s, cls=jsonschema.Draft202012Validator)",
        schema, file.path,
    ]
    let err = ChildPipes.make()
    process.standardError = err
    try await process.runUntilExit()
    let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 0, "the report does not validate: \(message)", sourceLocation: sourceLocation)
}
