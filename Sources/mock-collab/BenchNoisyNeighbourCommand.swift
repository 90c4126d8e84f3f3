import ArgumentParser
import AsyncHTTPClient
import CollabClient
import CollabWire
import Foundation
import Histogram
import NIOCore
import Synchronization

/// `mock-collab bench noisy-neighbour`: whether one tenant saturating a shared resource slows or refuses
/// another. For each resource — upload slots, the file quota, fault rules, live events, co-browsing
/// frames, password checks, database writes, webhook deliveries — a quiet account's requests are measured alone, then while a noisy account
/// saturates that resource, in the same run; the table gives p50 and p99 both ways, their ratios, and
/// how many of the quiet account's requests failed. Use a release build and a durable (SQLite) server
/// started with `--control-token` and a small `--file-quota` (see scripts/bench, step 7).
struct BenchNoisyNeighbourCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noisy-neighbour", abstract: "A quiet account's latency alone and beside a noisy account saturating each shared resource."
    )

    @Option(help: "The server.")
    var url = "http://127.0.0.1:8080"

    @Option(help: "The server's control token (the accounts are seeded with it).")
    var controlToken: String

    @Option(help: "The quiet account's requests per measurement.")
    var samples = 200

    @Option(help: "Concurrent loops of the noisy account.")
    var noise = 16

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    /// Rounds of noise before the quiet account is measured beside it.
    static let warmUp = 100

    struct Row: Encodable {
        var resource: String
        var quietRequest: String
        var aloneP50Millis: Double
        var aloneP99Millis: Double
        var noisyP50Millis: Double
        var noisyP99Millis: Double
        var aloneFailures: Int
        var noisyFailures: Int
        var noisyOperations: Int
        var p50Ratio: Double { noisyP50Millis / max(aloneP50Millis, 0.001) }
        var p99Ratio: Double { noisyP99Millis / max(aloneP99Millis, 0.001) }
    }

    /// A resource: what the quiet account does (one measured request) and how the noisy account
    /// saturates it (loops until cancelled, counting what they do).
    struct Scenario: Sendable {
        var resource: String
        var quietRequest: String
        var samples: Int
        /// A pause before each quiet request, not measured (a rate the request must keep).
        var pace: Duration = .zero
        var quiet: @Sendable (Int) async throws -> Bool
        var noise: @Sendable (NoiseCount) async throws -> Void
    }

    func validate() throws {
        guard samples > 0, noise > 0 else { throw ValidationError("--samples and --noise must be positive") }
    }

    func run() async throws {
        // A client each, and room in each for every loop: requests of one account never queue in the
        // bench behind the other's (a shared pool of 8 connections would measure that queue).
        try await HTTPClient.forBenchmark(connections: 8) { quiet in
            try await HTTPClient.forBenchmark(connections: 2 * noise + 8) { noisy in try await run(quiet: quiet, noisy: noisy) }
        }
    }

    func run(quiet: HTTPClient, noisy: HTTPClient) async throws {
        FileHandle.standardError.write(Data("seeding the quiet and the noisy account\n".utf8))
        let tenants = try await NoisyTenants.make(url: url, controlToken: controlToken, quietHTTP: quiet, noisyHTTP: noisy)
        let rows = try await BenchWebhookEndpoints.serving { hooks in
            let webhooks = WebhookScenario(
                hooks: hooks, quiet: try await tenants.quiet.registerWebhook(hooks.quietURL),
                noisy: try await tenants.noisy.registerWebhook(hooks.hangURL)
            )
            return try await measure(scenarios(tenants, webhooks))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(rows), as: UTF8.self))
            return
        }
        print("resource\tquiet request\talone p50/p99 ms\tnoisy p50/p99 ms\tratio p50/p99\tquiet failures alone/noisy\tnoisy ops")
        for row in rows {
            print(
                String(
                    format: "%@\t%@\t%.1f / %.1f\t%.1f / %.1f\t%.2f / %.2f\t%d / %d\t%d", row.resource, row.quietRequest, row.aloneP50Millis,
                    row.aloneP99Millis,
                    row.noisyP50Millis, row.noisyP99Millis, row.p50Ratio, row.p99Ratio, row.aloneFailures, row.noisyFailures, row.noisyOperations
                )
            )
        }
    }

    /// Each scenario's quiet requests alone, then beside its noise.
    func measure(_ scenarios: [Scenario]) async throws -> [Row] {
        var rows: [Row] = []
        for scenario in scenarios {
            FileHandle.standardError.write(Data("\(scenario.resource): the quiet account alone\n".utf8))
            let alone = try await measure(scenario)
            let done = NoiseCount()
            let noise = Task { try await scenario.noise(done) }
            // The quiet account is measured once the noise is under way (or after 30 s, whatever it did).
            let warmUpEnd = ContinuousClock.now + .seconds(30)
            while done.value < Self.warmUp, ContinuousClock.now < warmUpEnd { try await Task.sleep(for: .milliseconds(50)) }
            FileHandle.standardError.write(Data("\(scenario.resource): beside the noisy one\n".utf8))
            let beside: Measurement
            do {
                beside = try await measure(scenario)
            } catch {
                noise.cancel()
                _ = await noise.result
                throw error
            }
            noise.cancel()
            _ = await noise.result
            rows.append(
                Row(
                    resource: scenario.resource, quietRequest: scenario.quietRequest, aloneP50Millis: alone.p50, aloneP99Millis: alone.p99,
                    noisyP50Millis: beside.p50, noisyP99Millis: beside.p99, aloneFailures: alone.failures, noisyFailures: beside.failures,
                    noisyOperations: done.value
                )
            )
        }
        return rows
    }

    /// The webhook row's endpoints and registrations: the quiet account's endpoint answers, the noisy
    /// account's never does.
    struct WebhookScenario: Sendable {
        var hooks: BenchWebhookEndpoints
        var quiet: String
        var noisy: String
    }

    struct Measurement {
        var p50: Double
        var p99: Double
        var failures: Int
    }

    /// The quiet account's requests one after the other: latency and failures.
    func measure(_ scenario: Scenario) async throws -> Measurement {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
        var failures = 0
        for index in 0..<scenario.samples {
            if scenario.pace > .zero { try await Task.sleep(for: scenario.pace) }
            let begin = ContinuousClock.now
            let succeeded = (try? await scenario.quiet(index)) ?? false
            _ = histogram.record(UInt64(max(1, (ContinuousClock.now - begin).seconds * 1_000_000)))
            if !succeeded { failures += 1 }
        }
        return Measurement(
            p50: Double(histogram.valueAtPercentile(50)) / 1000, p99: Double(histogram.valueAtPercentile(99)) / 1000, failures: failures
        )
    }

    /// Runs `body` in `width` loops until cancelled, counting each round.
    static func loops(_ width: Int, _ done: NoiseCount, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for loop in 0..<width {
                group.addTask {
                    while !Task.isCancelled {
                        try? await body(loop)
                        done.add()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    func scenarios(_ t: NoisyTenants, _ webhooks: WebhookScenario) -> [Scenario] {
        let width = noise
        return [
            // No shared budget: what the noisy account's requests cost the quiet one in CPU alone, to read the rest against.
            Scenario(
                resource: "none (the CPU)", quietRequest: "visitor reads 20 messages", samples: samples,
                quiet: { _ in try await t.quiet.readMessages() },
                noise: { done in try await Self.loops(width, done) { _ in _ = try await t.noisy.readMessages() } }
            ),
            Scenario(
                resource: "upload slots", quietRequest: "4 KiB upload", samples: samples,
                quiet: { i in try await t.quiet.upload(bytes: 4_096, seed: i) },
                noise: { done in
                    // Uploads held open by bodies that trickle (cut by the minimum rate), and others back to back.
                    try await Self.loops(width, done) { loop in
                        if loop % 2 == 0 { _ = try await t.noisy.trickle() } else { _ = try await t.noisy.upload(bytes: 65_536, seed: loop) }
                    }
                }
            ),
            Scenario(
                resource: "file quota", quietRequest: "4 KiB upload", samples: samples,
                quiet: { i in try await t.quiet.upload(bytes: 4_096, seed: i) },
                noise: { done in try await Self.loops(width, done) { loop in _ = try await t.noisy.upload(bytes: 262_144, seed: loop) } }
            ),
            Scenario(
                resource: "fault rules", quietRequest: "admin adds and removes a rule", samples: samples,
                quiet: { i in try await t.quiet.addAndRemoveRule(i) },
                noise: { done in
                    let held = try await t.noisy.fillRules()
                    defer { Task { await t.noisy.removeRules(held) } }
                    try await Self.loops(width, done) { _ in _ = try await t.noisy.readMessages() }
                }
            ),
            Scenario(
                resource: "live events", quietRequest: "message to the agent's live event", samples: samples,
                quiet: { i in try await t.quiet.messageToLiveEvent(i) },
                noise: { done in
                    // Six more sockets of the agent's: with its first, seven of the eight a client may hold (--max-live-per-client).
                    let listeners = try await t.noisy.listen(count: 6)
                    defer { for listener in listeners { listener.cancel() } }
                    try await Self.loops(width, done) { loop in _ = try await t.noisy.message("noise \(loop)") }
                }
            ),
            Scenario(
                resource: "co-browsing frames", quietRequest: "20 KB frame at 4 fps", samples: max(20, samples / 4), pace: .milliseconds(250),
                quiet: { i in try await t.quiet.frame(sequence: i) },
                noise: { done in try await Self.loops(width, done) { loop in _ = try await t.noisy.frame(sequence: loop) } }
            ),
            // Bcrypt runs on a few threads for the whole server: the noisy account's guesses wait their
            // account's turn, and beyond its share of admitted checks are refused (429).
            Scenario(
                resource: "password checks", quietRequest: "agent login, a wrong password (401)", samples: max(20, samples / 2),
                quiet: { _ in try await t.quiet.wrongPasswordLogin() },
                noise: { done in try await Self.loops(width, done) { _ in _ = try await t.noisy.wrongPasswordLogin() } }
            ),
            Scenario(
                resource: "database writes", quietRequest: "visitor message", samples: samples,
                quiet: { i in try await t.quiet.message("quiet \(i)") },
                noise: { done in try await Self.loops(width * 2, done) { loop in _ = try await t.noisy.message("noise \(loop)") } }
            ),
            // Last: the noisy account's queue of deliveries to its endpoint that never answers outlives the row.
            Scenario(
                resource: "webhook deliveries", quietRequest: "ping until its endpoint has it", samples: samples,
                quiet: { _ in
                    let target = webhooks.hooks.arrived + 1
                    guard try await t.quiet.sendPing(webhooks.quiet) else { return false }
                    return await webhooks.hooks.wait(untilArrived: target, timeout: .seconds(30))
                },
                noise: { done in try await Self.loops(width, done) { _ in _ = try await t.noisy.sendPing(webhooks.noisy) } }
            ),
        ]
    }
}

/// Rounds the noisy account's loops have done.
final class NoiseCount: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }
}
