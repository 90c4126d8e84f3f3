import CollabClient
import CollabTestSupport
import Foundation
import Testing

/// `mock-collab seed export` as a process: the seed alone on stdout, progress on stderr, and a second
/// `mock-collab serve --seed` that loads the file as it is.
@Suite("mock-collab seed export (the process)", .serialized)
struct SeedExportProcessTests {
    @Test("stdout is a seed that serve --seed loads as it is; progress and skips are on stderr; a refused login exits 1")
    func exportThenServe() async throws {
        let source = try await ServerProcess(arguments: ["--storage", "memory"])
        let admin = AdminClient(baseURL: source.baseURL, credentials: .basic(username: "admin", password: "admin"))
        _ = try await admin.namedAreas.create(WebNamedArea(name: "Sales", siteId: "sales"))
        let directory = try temporaryDirectory()

        let run = try await Self.export(["--from", source.baseURL, "--user", "admin", "--password", "admin", "--page-size", "1"], in: directory)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("# A MockCollab seed written by `mock-collab seed export`"))
        #expect(!run.standardOutput.contains("reading namedAreas"))
        #expect(run.standardError.contains("reading namedAreas\nnamedAreas: 2\n"))
        #expect(run.standardError.contains("skipped apiKeys: 1 API keys, never exported"))
        #expect(!run.standardOutput.contains("demo-api-key"))

        let seedFile = directory.appendingPathComponent("seed.yaml")
        try Data(run.standardOutput.utf8).write(to: seedFile)
        let target = try await ServerProcess(arguments: ["--storage", "memory", "--seed", seedFile.path, "--control-token", "export-test"])
        // Loaded at start: the same file again creates and changes nothing.
        let again = try await ControlClient(baseURL: target.baseURL, credentials: .bearer("export-test")).seed(run.standardOutput)
        #expect(again.created == 0 && again.updated == 0, "\(again)")

        let refused = try await Self.export(["--from", source.baseURL, "--user", "admin", "--password", "wrong"], in: directory)
        #expect(refused.status == 1)
        #expect(refused.standardOutput.isEmpty)
        #expect(refused.standardError.contains("seed export failed: GET /accounts/getCurrentAccount answered 401"))

        for server in [source, target] {
            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == 0)
        }
    }

    /// Runs `mock-collab seed export` with `arguments`.
    static func export(_ arguments: [String], in directory: URL) async throws -> CommandRun {
        try await CommandRun.mockCollab(["seed", "export"] + arguments, in: directory)
    }
}
