import AsyncHTTPClient
package import Foundation
import NIOCore
import Synchronization

/// The real `mock-collab` executable, started as a child process, for tests of what only a process
/// shows: the listening line, signals, `kill -9`.
package final class ServerProcess: Sendable {
    package let process: Process
    private let stdout = OutputBuffer()
    private let stderr = OutputBuffer()
    package let port: Int
    private let outputs: [FileHandle]

    /// Where the built executable is: next to the test bundle, or `MOCK_COLLAB_BINARY`.
    package static var binary: URL {
        if let override = ProcessInfo.processInfo.environment["MOCK_COLLAB_BINARY"] { return URL(fileURLWithPath: override) }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On macOS the test binary sits inside an .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("mock-collab")
    }

    /// Starts `mock-collab serve --port 0` with the given extra arguments (and `environment` added to the
    /// test's own) and waits for the listening line.
    package init(arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30)) async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--port", "0", "--password-hash-cost", "4"] + arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = ChildPipes.make()
        let err = ChildPipes.make()
        process.standardOutput = out
        process.standardError = err
        let buffers = [stdout, stderr]
        for (pipe, buffer) in zip([out, err], buffers) {
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                // An empty read is the pipe's end: every writer has closed it.
                if data.isEmpty { handle.readabilityHandler = nil }
                buffer.append(data)
            }
        }
        try ChildPipes.spawn { try process.run() }
        self.process = process
        self.outputs = [out.fileHandleForReading, err.fileHandleForReading]
        do {
            self.port = try await Self.listeningPort(process, stdout: stdout, stderr: stderr, timeout: timeout)
        } catch {
            // No server object to stop it later: the child goes with the failed start.
            kill(process.processIdentifier, SIGKILL)
            throw error
        }
    }

    /// Waits for the child's listening line and returns its port.
    private static func listeningPort(_ process: Process, stdout: OutputBuffer, stderr: OutputBuffer, timeout: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = stdout.text.split(separator: "\n").first, line.hasPrefix("listening on http://"),
                let value = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                return value
            }
            guard process.isRunning else { throw ServerProcessError.exited(await drained(stderr)) }
            guard ContinuousClock.now < deadline else { throw ServerProcessError.timeout }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What an exited child wrote to `buffer`: its last bytes arrive through the pipe's handler after
    /// the exit (on a busy machine, well after), up to the pipe's end, which is waited for (5 s at most:
    /// a pipe another process still holds open never ends).
    private static func drained(_ buffer: OutputBuffer) async -> String {
        let deadline = ContinuousClock.now + .seconds(5)
        while !buffer.ended, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return buffer.text
    }

    package var baseURL: String { "http://127.0.0.1:\(port)" }
    package var standardOutput: String { stdout.text }
    package var standardError: String { stderr.text }

    /// Waits until the process has written `text` to stderr.
    package func waitForStandardError(_ text: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !stderr.text.contains(text) {
            guard process.isRunning else {
                let written = await Self.drained(stderr)
                if written.contains(text) { return }
                throw ServerProcessError.exited(written)
            }
            guard ContinuousClock.now < deadline else { throw ServerProcessError.exited(stderr.text) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until `/metrics` shows a line starting with `line`.
    package func waitForMetric(_ line: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: baseURL + "/metrics"), timeout: .seconds(10))
            let text = String(buffer: try await response.body.collect(upTo: 1 << 22))
            if text.split(separator: "\n").contains(where: { $0.hasPrefix(line) }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ServerProcessError.timeout
    }

    /// A test that fails before it stops its server leaves no process behind: a child still running when
    /// the test's last reference goes is killed (a leftover `serve` kept the test process from exiting).
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends a signal.
    package func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit and returns its status.
    package func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw ServerProcessError.timeout
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        // What is left in the pipes arrives through their handlers up to their end. A pipe that another
        // process still holds open never ends: then the output stays as read, after a bounded wait,
        // rather than the test blocking on a read.
        let drained = ContinuousClock.now + .seconds(5)
        while !(stdout.ended && stderr.ended), ContinuousClock.now < drained {
            try await Task.sleep(for: .milliseconds(10))
        }
        for handle in outputs { handle.readabilityHandler = nil }
        return process.terminationStatus
    }
}

package enum ServerProcessError: Error {
    case exited(String)
    case timeout
}

/// Bytes a child process wrote, collected from a pipe's handler thread; an empty chunk is the pipe's end.
package final class OutputBuffer: Sendable {
    package init() {}
    private let data = Mutex((bytes: Data(), ended: false))
    package func append(_ chunk: Data) {
        data.withLock {
            $0.bytes.append(chunk)
            if chunk.isEmpty { $0.ended = true }
        }
    }
    package var text: String { String(decoding: data.withLock { $0.bytes }, as: UTF8.self) }
    /// Whether the pipe reached its end.
    package var ended: Bool { data.withLock { $0.ended } }
}
