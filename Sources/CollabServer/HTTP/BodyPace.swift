import CollabCore
import NIOCore

/// The minimum rate a request body is held to, and the clock it is measured on (injected: tests move
/// a manual clock).
struct BodyPace: Sendable {
    var rate: MinimumRate
    var clock: any Clock<Duration>

    /// Collects `body`, at most `limit` bytes, checking as each piece arrives that the body keeps up
    /// with the rate.
    /// - Throws: ``CollabError`` `payloadTooLarge` past `limit`, `requestTimeout` behind the rate; the
    ///   body's own error when reading it fails.
    func collect(_ body: some AsyncSequence<ByteBuffer, any Error>, limit: Int) async throws -> ByteBuffer {
        try await collect(body, limit: limit, on: clock)
    }

    private func collect<C: Clock<Duration>>(
        _ body: some AsyncSequence<ByteBuffer, any Error>, limit: Int, on clock: C
    ) async throws -> ByteBuffer {
        let start = clock.now
        var buffer = ByteBuffer()
        for try await chunk in body {
            guard chunk.readableBytes <= limit - buffer.readableBytes else {
                throw CollabError(.payloadTooLarge, "request body exceeds the limit of \(limit) bytes")
            }
            buffer.writeImmutableBuffer(chunk)
            if rate.isBehind(startedAt: start, now: clock.now, received: Int64(buffer.readableBytes)) {
                throw CollabError(
                    .requestTimeout,
                    "the request body arrived slower than \(rate.bytesPerSecond) bytes per second (\(buffer.readableBytes) bytes); send it again"
                )
            }
        }
        return buffer
    }
}
