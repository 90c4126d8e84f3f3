import NIOCore
import NIOHTTP2

/// Sits right after an HTTP/2 connection's `NIOHTTP2Handler` and tells the ``ConnectionGuardHandler``
/// when a GOAWAY goes out (idle, or shutting down): the guard then bounds how long the connection may
/// stay.
final class HTTP2ConnectionWatcher: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let guardHandler: ConnectionGuardHandler

    init(guardHandler: ConnectionGuardHandler) {
        self.guardHandler = guardHandler
    }

    /// Adds a watcher right after the connection's HTTP/2 handler, so frames the framework's
    /// connection manager writes pass through it.
    static func install(on channel: any Channel, guardHandler: ConnectionGuardHandler) throws {
        let http2 = try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self)
        try channel.pipeline.syncOperations.addHandler(HTTP2ConnectionWatcher(guardHandler: guardHandler), position: .after(http2))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .goAway = unwrapOutboundIn(data).payload { guardHandler.http2GoingAway() }
        context.write(data, promise: promise)
    }
}
