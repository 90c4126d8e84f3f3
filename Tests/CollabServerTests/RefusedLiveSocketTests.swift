import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import Testing

@testable import CollabServer

/// The client library against a server that refuses its live socket (the account's socket budget is
/// spent): the stream counts each refused attempt with its reason, and a start waiting for the socket
/// ends when its task is cancelled instead of waiting forever.
@Suite("A refused live socket, from the client")
struct RefusedLiveSocketTests {
    @Test("each refused attempt is counted with its reason; cancelling the start ends it with a transport error and stops the retries")
    func cancelledStartStopsRetrying() async throws {
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, seed: queueSeed, controlToken: "test-control-token", passwordHashCost: 4)
        configuration.liveSocketLimits = LiveSocketLimits(perAccount: 1)
        let server = try await TestServer.start(configuration: configuration)
        do {
            // The first app holds the account's only socket.
            let holder = visitor(server, device: "holder-phone")
            try await holder.start()
            let refused = visitor(server, device: "refused-phone")
            let start = Task { () async -> CollabClientError? in
                do throws(CollabClientError) {
                    try await refused.start()
                    return nil
                } catch {
                    return error
                }
            }
            // Wait for the server to refuse the second app's socket twice (the stream retries).
            var stream: LiveEventStream?
            for _ in 0..<1_000 {
                stream = refused.liveConnection
                if let stream, stream.failedAttemptCount >= 2 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            let live = try #require(stream)
            #expect(live.failedAttemptCount >= 2)
            #expect(live.lastFailure?.contains("refused the WebSocket upgrade") == true, "\(live.lastFailure ?? "none")")
            #expect(!live.isConnected)
            start.cancel()
            let error = try #require(await start.value, "a cancelled start must not succeed")
            #expect(error.code == .transport)
            #expect(error.message.contains("cancelled before the live event stream connected"), "\(error)")
            // The refused app's events end: its stream was closed, not left retrying.
            for await _ in refused.events {}
            try await holder.stop()
            try await server.stop()
        } catch {
            try await server.stop()
            throw error
        }
    }
}
