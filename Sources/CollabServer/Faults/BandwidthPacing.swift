import HTTPTypes
import Hummingbird
import NIOCore

/// A body that flows at most `bytesPerSecond` (`BANDWIDTH` rules): it is passed on in slices of a
/// tenth of a second's worth, each after the time its bytes take at the cap.
///
/// The pause is a `Task.sleep`, like a `LATENCY` rule's: pacing is wall time by nature (a transfer
/// over a slow link), and tests assert that a paced transfer completes intact, never how long it took.
struct PacedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let bytesPerSecond: Int

    /// The largest slice passed on at once.
    var sliceSize: Int { Swift.max(1, bytesPerSecond / 10) }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let bytesPerSecond: Int
        let sliceSize: Int
        var pending = ByteBuffer()

        mutating func next() async throws -> ByteBuffer? {
            if pending.readableBytes == 0 {
                guard let chunk = try await base.next() else { return nil }
                pending = chunk
            }
            let slice = pending.readSlice(length: Swift.min(sliceSize, pending.readableBytes)) ?? ByteBuffer()
            try await BandwidthPacing.wait(for: slice.readableBytes, bytesPerSecond: bytesPerSecond)
            return slice
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), bytesPerSecond: bytesPerSecond, sliceSize: sliceSize)
    }
}

/// The pauses of a `BANDWIDTH` rule.
enum BandwidthPacing {
    /// Waits the time `bytes` take at the cap.
    static func wait(for bytes: Int, bytesPerSecond: Int) async throws {
        guard bytes > 0 else { return }
        try await Task.sleep(for: .nanoseconds(Int64(bytes) * 1_000_000_000 / Int64(bytesPerSecond)))
    }

    /// `body` at most `bytesPerSecond`, with its length kept.
    static func pace(_ body: ResponseBody, bytesPerSecond: Int) -> ResponseBody {
        ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(PacingWriter(base: writer, bytesPerSecond: bytesPerSecond))
        }
    }
}

/// Writes a response body in slices at most `bytesPerSecond`.
private struct PacingWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let bytesPerSecond: Int

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        while buffer.readableBytes > 0 {
            let slice = buffer.readSlice(length: min(max(1, bytesPerSecond / 10), buffer.readableBytes)) ?? ByteBuffer()
            try await BandwidthPacing.wait(for: slice.readableBytes, bytesPerSecond: bytesPerSecond)
            try await base.write(slice)
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
