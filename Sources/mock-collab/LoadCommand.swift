import ArgumentParser
import CollabLoad
import Foundation
import Synchronization
import UnixSignals

/// `mock-collab load`: simulated visitors and agents against a running server, with a live view
/// and a final report (text on stdout, `--json` and `--html` files).
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Drive a MockCollab server with simulated visitors and agents, and report latencies per operation.",
        discussion: """
            Visitors start clients, start conversations in named areas and chat (chat), do so from the \
            background with push tokens registered and take a call per conversation (push), or share \
            their screen at --fps (cobrowse); mixed is half chat, a quarter push, a quarter co-browsing. \
            Agents accept and reply. --duration counts from the first visitor's start (the ramp-up is \
            part of it); then devices finish what they are doing for at most --drain seconds, and the \
            server's counts are read: a run takes about --duration plus the drain. Ctrl-C stops it \
            early the same way and it still reports (a second Ctrl-C quits at once).
            """
    )

    @OptionGroup var server: ServerTargetArguments
    @Option(help: "Simulated visitor devices.")
    var visitors: Int = 10
    @Option(help: "Simulated agents.")
    var agents: Int = 2
    @Option(help: "Seconds over which visitors start.")
    var rampUp: Double = 5
    @Option(help: "Seconds of load from the first visitor's start, the ramp-up included.")
    var duration: Double = 30
    @Option(help: "chat, push, cobrowse, mixed or files.")
    var scenario: String = "chat"
    @Option(help: "Co-browsing frames per second per device.")
    var fps: Int = 5
    @Option(help: "Bytes per co-browsing frame.")
    var frameBytes: Int = 12_000
    @Option(help: "Bytes of the picture each visitor of the files scenario uploads per conversation.")
    var fileBytes: Int = 20_000
    @Option(help: "Comma-separated named areas (site ids) conversations start in.")
    var namedAreas: String = "demo-area"
    @Option(help: "Seed for every random choice; the same seed repeats the run's choices.")
    var seed: UInt64 = 1
    @Option(help: "Seconds between a visitor's messages (each wait 0.5× to 1.5×).")
    var messageInterval: Double = 2
    @Option(help: "Messages per conversation before the visitor ends it and starts another.")
    var messagesPerConversation: Int = 5
    @Option(help: "Conversations per chat or push visitor, then it stops (default: until the duration ends).")
    var conversations: Int?
    @Option(help: "Frames per co-browsing device, then it stops (default: until the duration ends).")
    var frames: Int?
    @Option(help: "The agent user simulated agents log in as.")
    var agentUser: String = "agent"
    @Option(help: "Its password.")
    var agentPassword: String = "agent"
    @Option(help: "Control token for the server's counts (else --control-user is used).")
    var controlToken: String?
    @Option(help: "Super admin for the server's counts ('' to skip the comparison).")
    var controlUser: String = "superadmin"
    @Option(help: "Its password.")
    var controlPassword: String = "superadmin"
    @Option(help: "HTTP connections shared by the simulated devices.")
    var connections: Int = 64
    @Option(help: "Seconds a device waits for an event it expects before counting a timeout.")
    var eventTimeout: Double = 15
    @Option(help: "Seconds devices may take to finish after the duration.")
    var drain: Double = 10
    @Option(help: "Write the report as JSON to this file.")
    var json: String?
    @Option(help: "Write the report as HTML (with latency-over-time charts) to this file.")
    var html: String?
    @Option(help: "Live view: auto (a refreshing line on a terminal, a line every 5 s otherwise), line, or none.")
    var progress: ProgressMode = .auto
    @OptionGroup(title: "TLS") var tls: ClientTLSArguments

    @Flag(help: "Exit with status 1 when an operation failed or the server's counts differ from the run's.")
    var strict = false

    enum ProgressMode: String, ExpressibleByArgument {
        case auto, line, none
    }

    func run() async throws {
        var configuration = LoadConfiguration(url: server.url)
        configuration.apiKey = server.apiKey
        configuration.visitors = visitors
        configuration.agents = agents
        configuration.rampUpSeconds = rampUp
        configuration.durationSeconds = duration
        guard let scenario = LoadScenario(rawValue: scenario) else {
            throw ValidationError("--scenario must be one of \(LoadScenario.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        configuration.scenario = scenario
        configuration.fps = fps
        configuration.frameBytes = frameBytes
        configuration.fileBytes = fileBytes
        configuration.namedAreas = namedAreas.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        configuration.seed = seed
        configuration.messageIntervalSeconds = messageInterval
        configuration.messagesPerConversation = messagesPerConversation
        configuration.conversationsPerVisitor = conversations
        configuration.framesPerDevice = frames
        configuration.agentUsername = agentUser
        configuration.agentPassword = agentPassword
        configuration.connections = connections
        configuration.eventTimeoutSeconds = eventTimeout
        configuration.drainSeconds = drain
        if let controlToken {
            configuration.control = .token(controlToken)
        } else if controlUser.isEmpty {
            configuration.control = nil
        } else {
            configuration.control = .user(username: controlUser, password: controlPassword)
        }
        do {
            try configuration.validate()
        } catch {
            throw ValidationError(error.description)
        }

        let runner = LoadRunner(configuration: configuration, tls: try tls.options())
        let signals = Task {
            var count = 0
            for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                count += 1
                if count == 1 {
                    FileHandle.standardError.write(Data("\nstopping: visitors finish what they are doing (Ctrl-C again to quit at once)\n".utf8))
                    runner.interrupt()
                } else {
                    Foundation.exit(130)
                }
            }
        }
        defer { signals.cancel() }

        let terminal = isatty(STDERR_FILENO) == 1
        let mode = progress == .auto ? (terminal ? ProgressMode.auto : .line) : progress
        let printer = ProgressPrinter(refreshing: mode == .auto && terminal, every: mode == .line && !terminal ? 5 : 1)
        var show: (@Sendable (LoadSnapshot) -> Void)?
        if mode != .none {
            show = { @Sendable snapshot in printer.show(ProgressLine(snapshot).text) }
        }
        let report = try await runner.run(progress: show)
        printer.end()

        print(report.text)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
            print("JSON report: \(json)")
        }
        if let html {
            try Data(report.html.utf8).write(to: URL(fileURLWithPath: html))
            print("HTML report: \(html)")
        }
        if strict {
            // Say why, for a CI log: the failed operations, the counts that differ, an interruption.
            var reasons: [String] = []
            let failed = report.errors.filter { $0.type != "cancelled" }
            if !failed.isEmpty { reasons.append("\(failed.reduce(0) { $0 + $1.count }) operations failed (see errors above)") }
            // A run in which no visitor got going (every start still in flight when it ended) measured nothing.
            if failed.isEmpty, visitors > 0, report.counter(.visitorsStarted) == 0 { reasons.append("no visitor started before the run ended") }
            if report.server.map({ !$0.agrees }) == true { reasons.append("the server's counts differ from the tool's") }
            if report.stoppedBy == "interrupted" { reasons.append("the run was interrupted before its end") }
            if !reasons.isEmpty {
                FileHandle.standardError.write(Data("--strict: exit 1: \(reasons.joined(separator: "; "))\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}


/// Writes progress to stderr: one line rewritten in place on a terminal, else a line every few ticks.
final class ProgressPrinter: Sendable {
    let refreshing: Bool
    let every: Int
    private let ticks = Mutex(0)

    init(refreshing: Bool, every: Int) {
        self.refreshing = refreshing
        self.every = every
    }

    func show(_ line: String) {
        let tick = ticks.withLock { value in
            defer { value += 1 }
            return value
        }
        if refreshing {
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
        } else if tick % every == 0 {
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }

    func end() {
        if refreshing { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
