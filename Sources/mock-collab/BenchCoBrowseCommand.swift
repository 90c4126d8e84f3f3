import ArgumentParser
import CollabClient
import CollabWire
import Foundation
import Hummingbird
import HummingbirdWSClient
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOFoundationCompat
import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// `mock-collab bench cobrowse`: N simulated devices streaming frames at a fixed rate, against a
/// MockCollab server process and, in the same run, against a bare WebSocket sink (a Hummingbird
/// WebSocket route that only acknowledges), both child processes of this one.
struct BenchCoBrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cobrowse",
        abstract: "Devices streaming co-browsing frames: p99 acknowledgement latency and throttling, against the server and a bare WebSocket sink."
    )

    @Option(help: "Comma-separated device counts to try.")
    var devices: String = "100,250,500,750,1000"

    @OptionGroup var frames: FrameStreamOptions

    @Option(help: "Seconds of streaming per step.")
    var seconds: Int = 10

    func run() async throws {
        let counts = devices.split(separator: ",").compactMap { Int($0) }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        print("devices\ttarget\tframes\tthrottled\tp50_ms\tp99_ms\tmax_ms")
        for count in counts {
            for target in ["sink", "mock"] {
                let process = try ChildServer(executable: executable, arguments: target == "mock"
                    ? ["serve", "--port", "0", "--storage", "memory", "--password-hash-cost", "4", "--log-level", "error"]
                    : ["bench", "sink"])
                defer { process.stop() }
                let base = try await process.waitForURL()
                var urls: [(url: String, session: String)] = []
                if target == "mock" {
                    urls = try await prepareMockDevices(base: base, count: count)
                } else {
                    let ws = base.replacingOccurrences(of: "http://", with: "ws://")
                    urls = (0..<count).map { ("\(ws)/sink", "s\($0)") }
                }
                let result = try await frames.stream(urls: urls, seconds: seconds, logger: logger)
                print("\(count)\t\(target)\t\(result.frames)\t\(result.throttled)\t\(result.p50)\t\(result.p99)\t\(result.max)")
            }
        }
    }

    /// Starts `count` visitor clients, each in a conversation accepted by the agent, sharing the screen.
    func prepareMockDevices(base: String, count: Int) async throws -> [(url: String, session: String)] {
        let agent = AgentClient(baseURL: base)
        try await agent.login(username: "agent", password: "agent")
        return try await withThrowingTaskGroup(of: (String, String).self) { group in
            var prepared: [(String, String)] = []
            var started = 0
            for index in 0..<count {
                if started >= 32 { prepared.append(try await group.next()!) }
                started += 1
                group.addTask {
                    let visitor = VisitorClient(configuration: ClientConfiguration(baseURL: base, apiKey: "demo-api-key", deviceId: "bench-\(index)"))
                    let start: ClientStartResponse = try await visitor.transport.send(
                        "POST", "/mobile/v1/clients",
                        body: ClientStartRequest(apiKey: "demo-api-key", deviceId: "bench-\(index)", device: .init(os: "iOS"))
                    )
                    visitor.transport.setCredentials(.bearer(start.token))
                    let conversation = try await visitor.startConversation()
                    _ = try await agent.accept(conversation.id)
                    let session = try await visitor.startCoBrowsing(in: conversation.id)
                    let ws = base.replacingOccurrences(of: "http://", with: "ws://")
                    return ("\(ws)/mobile/v1/events?token=\(start.token)", session.id)
                }
            }
            for try await item in group { prepared.append(item) }
            return prepared
        }
    }
}

/// The frames each simulated device streams, in `bench cobrowse` and `bench wsclients` alike.
struct FrameStreamOptions: ParsableArguments {
    @Option(help: "Frames per second per device.")
    var fps: Int = 5

    @Option(help: "Frame size in bytes.")
    var frameBytes: Int = 12_000

    struct StepResult {
        var frames: Int
        var throttled: Int
        var p50: Int
        var p99: Int
        var max: Int
    }

    /// Streams frames from every device for `seconds` and collects acknowledgement latencies.
    func stream(urls: [(url: String, session: String)], seconds: Int, logger: Logger) async throws -> StepResult {
        let latencies = LatencyBox()
        let interval = Duration.milliseconds(1000 / max(1, fps))
        let end = ContinuousClock.now + .seconds(seconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, target) in urls.enumerated() {
                group.addTask {
                    // Spread the devices over one frame interval.
                    try await Task.sleep(for: interval * Double(index) / Double(urls.count))
                    try await WebSocketClient.connect(
                        url: target.url, configuration: .init(maxFrameSize: 1 << 20), logger: logger
                    ) { inbound, outbound, _ in
                        var iterator = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                        var sequence: UInt32 = 0
                        var next = ContinuousClock.now
                        var mine: [Int] = []
                        while ContinuousClock.now < end {
                            try await Task.sleep(until: next)
                            next = next + interval
                            sequence += 1
                            var image = Data([0xFF, 0xD8, 0xFF, 0xE0])
                            withUnsafeBytes(of: sequence.bigEndian) { image.append(contentsOf: $0) }
                            image.append(Data(repeating: UInt8(truncatingIfNeeded: index), count: max(0, frameBytes - image.count)))
                            let header = FrameHeader(sessionId: target.session, sequence: sequence, captureTime: 0, width: 390, height: 844)
                            let sent = ContinuousClock.now
                            try await outbound.write(.binary(ByteBuffer(data: header.encode(image: image))))
                            while let message = try await iterator.next() {
                                guard case .text(let text) = message, text.contains("\"frame.") else { continue }
                                let elapsed = ContinuousClock.now - sent
                                mine.append(Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
                                if text.contains("frame.throttled") { latencies.throttled() }
                                break
                            }
                        }
                        latencies.add(mine)
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        let sorted = latencies.all.sorted()
        func percentile(_ p: Double) -> Int { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] }
        return StepResult(
            frames: sorted.count, throttled: latencies.throttledCount, p50: percentile(0.5), p99: percentile(0.99), max: sorted.last ?? 0)
    }
}

/// `mock-collab bench sink`: the bare Hummingbird baseline the benchmarks compare against — a
/// WebSocket route that acknowledges every binary message, and `GET /fixed`, a fixed JSON answer.
struct BenchSinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sink", abstract: "A bare Hummingbird app: WebSocket /sink acknowledges binary messages, GET /fixed answers a fixed body.",
        shouldDisplay: false
    )

    @Option(help: "File whose bytes GET /fixed answers (JSON).")
    var fixedBody: String?

    @Option(help: "Port (0 = any free port).")
    var port: Int = 0

    func run() async throws {
        var logger = Logger(label: "sink")
        logger.logLevel = .error
        let router = Router(context: BasicWebSocketRequestContext.self)
        let fixed = try fixedBody.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? Data(#"{"ok":true}"#.utf8)
        let fixedBuffer = ByteBuffer(data: fixed)
        router.get("fixed") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: fixedBuffer))
        }
        let ack = #"{"type":"frame.accepted"}"#
        router.ws("sink") { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                if case .binary = message { try await outbound.write(.text(ack)) }
            }
        }
        let app = Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 1 << 20))),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
            },
            logger: logger
        )
        try await app.runService()
    }
}

/// `mock-collab bench wsclients`: the plainest device loop — N WebSockets to a sink, each sending a
/// frame every `1/fps` s and reading its acknowledgement — as the yardstick for the load tool's own
/// weight per simulated device (compare CPU time and peak RSS of the two processes).
struct BenchWSClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wsclients", abstract: "A plain WebSocket client loop (the load tool's yardstick).", shouldDisplay: false)

    @Option(help: "WebSocket URL of a sink.")
    var url: String
    @Option(help: "Devices.")
    var devices: Int = 100
    @OptionGroup var frames: FrameStreamOptions
    @Option(help: "Seconds.")
    var seconds: Int = 10

    func run() async throws {
        var logger = Logger(label: "wsclients")
        logger.logLevel = .critical
        let result = try await frames.stream(urls: (0..<devices).map { (url, "s\($0)") }, seconds: seconds, logger: logger)
        print("frames \(result.frames) p50_ms \(result.p50) p99_ms \(result.p99)")
    }
}

/// A child server process that prints `listening on URL`.
final class ChildServer: Sendable {
    private let process: Process
    private let output: Pipe

    init(executable: String, arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func waitForURL() async throws -> String {
        let handle = output.fileHandleForReading
        return try await Task.detached {
            var text = ""
            while !text.contains("\n") {
                let data = handle.availableData
                guard !data.isEmpty else { throw CocoaError(.fileReadUnknown) }
                text += String(decoding: data, as: UTF8.self)
            }
            return String(text.split(separator: "\n")[0].dropFirst("listening on ".count))
        }.value
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Latencies and throttle counts gathered from many device tasks.
final class LatencyBox: Sendable {
    private let state = Mutex<(latencies: [Int], throttled: Int)>(([], 0))
    func add(_ values: [Int]) { state.withLock { $0.latencies += values } }
    func throttled() { state.withLock { $0.throttled += 1 } }
    var all: [Int] { state.withLock { $0.latencies } }
    var throttledCount: Int { state.withLock { $0.throttled } }
}
