import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore

/// A refused WebSocket upgrade answers what the router answered — a typed 401 for a missing or bad
/// token, a 404 for an unknown path — instead of the framework's empty 400.
///
/// The framework only learns "don't upgrade" from the router and writes an empty 400 itself, so this
/// middleware hands the real answer, as bytes, to the connection's ``ConnectionGuardHandler``, which
/// swaps it in. Only requests asking to upgrade are touched.
struct RefusedUpgradeMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers.single(.upgrade)?.lowercased() == "websocket" else { return try await next(request, context) }
        let response = try await next(request, context)
        guard response.status != .ok else { return response }
        let channel = context.channel
        let bytes = try await Self.serialize(response)
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self).replaceRefusedUpgrade(with: bytes)
        }.get()
        return response
    }

    /// The response as HTTP/1.1 bytes, closing the connection.
    static func serialize(_ response: Response) async throws -> ByteBuffer {
        let collector = BodyCollector()
        try await response.body.write(collector)
        var head = "HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n"
        for field in response.headers where field.name != .contentLength && field.name != .connection {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "content-length: \(collector.buffer.readableBytes)\r\nconnection: close\r\n\r\n"
        var bytes = ByteBuffer(string: head)
        bytes.writeImmutableBuffer(collector.buffer)
        return bytes
    }
}

/// Collects a response body (error bodies are small).
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var buffer = ByteBuffer()
    func write(_ buffer: ByteBuffer) async throws { self.buffer.writeImmutableBuffer(buffer) }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
