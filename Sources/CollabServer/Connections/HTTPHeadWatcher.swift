import NIOCore
import NIOHTTP1

/// Sits right after the HTTP request decoder: tells the ``ConnectionGuardHandler`` when the first
/// request head arrived, and answers a parse error in the first request head (the framework leaves
/// that connection open without an answer while it waits to decide on a WebSocket upgrade).
///
/// It never unwraps what passes through: after a WebSocket upgrade the decoder is gone and raw
/// bytes flow past it.
final class HTTPHeadWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    private let guardHandler: ConnectionGuardHandler
    private var sawHead = false

    init(guardHandler: ConnectionGuardHandler) {
        self.guardHandler = guardHandler
    }

    /// Adds a watcher right after the connection's HTTP/1 request decoder.
    static func install(on channel: any Channel, guardHandler: ConnectionGuardHandler) throws {
        let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        try channel.pipeline.syncOperations.addHandler(HTTPHeadWatcher(guardHandler: guardHandler), position: .after(decoder))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !sawHead {
            sawHead = true
            guardHandler.headReceived()
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parseError = error as? HTTPParserError {
            if !sawHead {
                guardHandler.rejectMalformed(parseError)
                return
            }
            // Hummingbird answers 400 and then waits for the peer to close.
            guardHandler.closeSoon()
        }
        context.fireErrorCaught(error)
    }
}
