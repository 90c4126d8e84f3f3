import CollabClient
import CollabTestSupport
import Foundation
import Testing

/// `mock-collab visitor` as a process, fed its commands on stdin as the README's tour does: comment
/// lines are skipped (so a block of commands with its comments can be pasted whole), results are JSON
/// lines with numbers as numbers, a missing file is a one-line error, and a server that is not running
/// is reported with the reason.
@Suite("mock-collab visitor (the process)", .serialized)
struct VisitorProcessTests {
    @Test("comment lines are skipped, results carry numbers, a missing file is a plain error")
    func commandsFromStandardInput() async throws {
        try await TestServer.with { server in
            let directory = try temporaryDirectory()
            let input = """
                # a conversation appears in the queue
                start Card blocked
                # a message; a # inside a command is the command's
                say Hello? #1
                file /nonexistent/receipt.png
                frame
                download no-such-file
                call fax
                quit

                """
            let run = try await Self.visitor(["--url", server.baseURL, "--device-id", "tour-phone", "--push", "NONE"], input: input, in: directory)
            #expect(run.status == 0, "\(run.standardError)")
            let lines = run.standardOutput.split(separator: "\n").compactMap { line in
                try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            }
            let results = lines.filter { $0["type"] as? String != "event" }
            #expect(results.compactMap { $0["command"] as? String } == ["start", "say", "file", "frame", "download", "call"], "\(results)")
            let start = try #require(results.first { $0["command"] as? String == "start" })
            let conversationId = try #require(start["conversationId"] as? String)
            let say = try #require(results.first { $0["command"] as? String == "say" })
            #expect(say["sequence"] as? Int == 1, "a number, not a string")
            let failed = try #require(results.first { $0["command"] as? String == "file" })
            #expect(failed["type"] as? String == "error")
            #expect(failed["message"] as? String == "cannot read /nonexistent/receipt.png: no such file")
            #expect(failed["status"] == nil, "the server was not asked")
            let missing = try #require(results.first { $0["command"] as? String == "download" })
            #expect(missing["type"] as? String == "error" && missing["status"] as? Int == 404, "\(missing)")
            #expect(missing["error"] as? String == "NOT_FOUND", "the typed error's type: \(missing)")
            let fax = try #require(results.first { $0["command"] as? String == "call" })
            #expect(fax["type"] as? String == "error" && (fax["message"] as? String)?.contains("audio (the default) or video") == true, "\(fax)")
            let frame = try #require(results.first { $0["command"] as? String == "frame" })
            #expect(frame["width"] as? Int == 160 && frame["height"] as? Int == 100, "\(frame)")

            let agent = AgentClient(baseURL: server.baseURL)
            try await agent.login(username: "agent", password: "agent")
            let messages = try await agent.messages(in: conversationId).messages
            #expect(messages.map(\.text).contains("Hello? #1"), "the text after the command is the message, # and all")
            #expect(try await agent.conversation(conversationId).topic == "Card blocked", "comment lines are not topics")
        }
    }

    @Test("a server that is not running is reported with the reason, and the visitor exits 1")
    func serverNotRunning() async throws {
        let directory = try temporaryDirectory()
        let run = try await Self.visitor(["--url", "http://127.0.0.1:1", "--push", "NONE"], input: "start x\n", in: directory)
        #expect(run.status == 1)
        #expect(run.standardOutput.contains(#""command":"start-client""#), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("Connection refused"), "the reason, not a timeout: \(run.standardOutput)")
    }

    @Test("a reader that goes away (| head -1) ends the visitor quietly, not with a crash")
    func readerGone() async throws {
        try await TestServer.with { server in
            let directory = try temporaryDirectory()
            let input = directory.appendingPathComponent("commands.txt")
            try Data(("start Gone\n" + String(repeating: "say more\n", count: 20) + "quit\n").utf8).write(to: input)
            let output = ChildPipes.make()
            let process = Process()
            process.executableURL = ServerProcess.binary
            process.arguments = [
                "visitor", "--preferences", directory.appendingPathComponent("preferences.json").path, "--url", server.baseURL, "--push", "NONE",
            ]
            process.standardInput = try FileHandle(forReadingFrom: input)
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            // No one will read: the visitor's first line already finds the pipe closed.
            try output.fileHandleForReading.close()
            try await process.runUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        }
    }

    /// Runs `mock-collab visitor` with `arguments` and `input` on stdin, its preferences in `directory`.
    static func visitor(_ arguments: [String], input: String, in directory: URL) async throws -> CommandRun {
        let preferences = directory.appendingPathComponent("preferences.json").path
        return try await CommandRun.mockCollab(["visitor", "--preferences", preferences] + arguments, input: input, in: directory)
    }
}
