import AsyncHTTPClient
import NIOCore

extension HTTPClient {
    /// Runs `body` with a client for a benchmark's requests (10 s to connect, 60 s to read), shut down
    /// however `body` ends.
    ///
    /// - Parameter connections: The requests the client keeps in flight to one server. Beyond it the
    ///   client queues requests itself (AsyncHTTPClient's pool holds 8 connections to a host unless told
    ///   otherwise), so a benchmark with more loops than this measures the client's queue, not the server.
    static func forBenchmark<T>(connections: Int, _ body: (HTTPClient) async throws -> T) async throws -> T {
        let pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        let configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10), read: .seconds(60)), connectionPool: pool)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
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
