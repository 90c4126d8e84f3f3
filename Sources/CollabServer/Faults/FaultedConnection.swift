import HTTPTypes
import Hummingbird
import NIOCore

/// The connection-level request faults (``ObservationMiddleware``): a connection closed without an answer, a reset,
/// an answer cut after part of its body. Each works on the channel the request came on.
///
/// Over HTTP/2 the channel is the request's stream: closing it resets that stream only.
struct FaultedConnection {
    let channel: any Channel

    /// Thrown by a truncated body once its part is written: Hummingbird then closes the connection, so
    /// the client sees fewer bytes than the `Content-Length` it was promised.
    struct Cut: Error {}

    /// Closes the connection before any byte of an answer. The returned response is never sent (it
    /// only lets the journal and the metrics middleware finish).
    ///
    /// The output is shut first (the client reads the end of the stream at once), then what the client
    /// still sends of its request body is read, at most `limit` bytes: a socket closed with unread
    /// input sends a reset instead of a FIN, and this fault is the orderly close.
    func closeWithoutAnswer(draining body: RequestBody, limit: Int) async -> Response {
        try? await channel.close(mode: .output)
        var left = limit
        do {
            for try await chunk in body {
                left -= chunk.readableBytes
                if left < 0 { break }
            }
        } catch {}
        try? await channel.close()
        return Response(status: .internalServerError)
    }

    /// Resets the connection: with `SO_LINGER` set to zero, closing the socket sends a TCP RST instead
    /// of a FIN, and the client's next read fails with "connection reset by peer".
    func reset() async -> Response {
        if let socket = channel as? any SocketOptionProvider {
            try? await socket.unsafeSetSocketOption(level: .socket, name: .so_linger, value: Linger(onOff: 1, seconds: 0)).get()
        }
        try? await channel.close()
        return Response(status: .internalServerError)
    }

    /// `response` with its real status and headers (the full `Content-Length`), then `bytes` of its body
    /// (or `fraction` of it; never all of it), then the connection closes. A body of unknown length is
    /// cut after `bytes` (default 512); an empty body has nothing to cut and is sent whole.
    func truncate(_ response: Response, bytes: Int?, fraction: Double) -> Response {
        let length = response.body.contentLength
        if length == 0 { return response }
        let keep = length.map { max(0, min(bytes ?? Int(Double($0) * fraction), $0 - 1)) } ?? (bytes ?? 512)
        var response = response
        let body = response.body
        response.body = ResponseBody(contentLength: length) { writer in
            try await body.write(CuttingWriter(base: writer, remaining: keep))
            // A body shorter than promised is cut at its end all the same.
            throw Cut()
        }
        return response
    }
}

/// The layout of `struct linger` (two C ints on Linux and Darwin), so no C module is imported for it.
private struct Linger {
    var onOff: Int32
    var seconds: Int32
}

/// Passes on `remaining` bytes, then throws ``FaultedConnection/Cut``.
private struct CuttingWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    var remaining: Int

    mutating func write(_ buffer: ByteBuffer) async throws {
        if buffer.readableBytes < remaining {
            remaining -= buffer.readableBytes
            try await base.write(buffer)
            return
        }
        if remaining > 0 { try await base.write(buffer.getSlice(at: buffer.readerIndex, length: remaining) ?? ByteBuffer()) }
        remaining = 0
        throw FaultedConnection.Cut()
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        throw FaultedConnection.Cut()
    }
}
