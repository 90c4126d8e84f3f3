import AsyncHTTPClient
import NIOCore

extension HTTPClient {
    /// Runs `body` with a client for a benchmark's requests (10 s to connect, 60 s to read), shut down
    /// however `body` ends.
    static func forBenchmark<T>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(10), read: .seconds(60))))
        do {
            let result = try await body(http)
            try await http.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            throw error
        }
    }
}
