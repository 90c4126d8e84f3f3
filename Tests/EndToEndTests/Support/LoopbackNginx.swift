import Foundation

/// A real nginx on loopback in front of servers a test started, configured from `docker/nginx.conf`
/// (the cluster compose file's configuration) by `scripts/cluster front`.
final class LoopbackNginx: Sendable {
    /// nginx's base URL, `http://127.0.0.1:PORT`.
    let url: String
    let port: Int
    private let directory: URL

    /// The repository's root, found from this file's place in it.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.appendingPathComponent("scripts/cluster").path

    /// Whether nginx is installed (`scripts/cluster setup` installs it; scripts/test runs that).
    static var available: Bool {
        ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private init(url: String, directory: URL) throws {
        guard let port = url.split(separator: ":").last.flatMap({ Int($0) }) else { throw LoopbackNginxError.failed("no port in \(url)") }
        self.url = url
        self.port = port
        self.directory = directory
    }

    /// Starts nginx in front of the servers listening on `ports` (127.0.0.1) and waits until it answers
    /// `/readyz` through them.
    static func start(inFrontOf ports: [Int]) async throws -> LoopbackNginx {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        let output = try await run(["front", directory.path] + ports.map(String.init))
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("NGINX=") }) else {
            throw LoopbackNginxError.failed("scripts/cluster front printed no NGINX= line: \(output)")
        }
        return try LoopbackNginx(url: String(line.dropFirst("NGINX=".count)), directory: directory)
    }

    /// Stops nginx and removes its directory.
    func stop() async throws {
        _ = try await Self.run(["stop", directory.path])
    }

    /// Runs `body` with nginx in front of `ports`, and always stops it.
    static func with<T>(inFrontOf ports: [Int], _ body: (LoopbackNginx) async throws -> T) async throws -> T {
        let nginx = try await start(inFrontOf: ports)
        do {
            let result = try await body(nginx)
            try await nginx.stop()
            return result
        } catch {
            try? await nginx.stop()
            throw error
        }
    }

    /// Runs scripts/cluster and returns its standard output. Its outputs are a few lines, and the
    /// processes it starts never hold its pipes, so both are read once it has exited.
    private static func run(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        let out = ChildPipes.make()
        let err = ChildPipes.make()
        process.standardOutput = out
        process.standardError = err
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try ChildPipes.spawn { try process.run() } } catch { continuation.resume(throwing: error) }
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw LoopbackNginxError.failed("scripts/cluster \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(errors)")
        }
        return output
    }
}

enum LoopbackNginxError: Error {
    case failed(String)
}
