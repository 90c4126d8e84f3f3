package import Foundation

/// One run of a `mock-collab` subcommand that exits by itself (`seed export`, `visitor`, `--version`),
/// with its output read from files so no pipe can fill up and stop it.
package struct CommandRun: Sendable {
    package var status: Int32
    package var standardOutput: String
    package var standardError: String

    /// Runs `mock-collab` with `arguments`, `input` on its stdin (an empty stdin without), in `directory`
    /// (which keeps its output files), with `environment` added to the test's own, and waits for it to exit.
    package static func mockCollab(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], in directory: URL
    ) async throws -> CommandRun {
        let name = UUID().uuidString
        let (out, err, inFile) = (
            directory.appendingPathComponent("\(name).out"), directory.appendingPathComponent("\(name).err"),
            directory.appendingPathComponent("\(name).in")
        )
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        try Data(input.utf8).write(to: inFile)
        let process = Process()
        process.executableURL = ServerProcess.binary
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardInput = try FileHandle(forReadingFrom: inFile)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try await process.runUntilExit()
        return CommandRun(
            status: process.terminationStatus, standardOutput: try String(contentsOf: out, encoding: .utf8),
            standardError: try String(contentsOf: err, encoding: .utf8)
        )
    }
}
