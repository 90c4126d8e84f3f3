import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Wraps Hummingbird's HTTP/1 + WebSocket child channel with a ``ConnectionGuardHandler`` (first in
/// the pipeline) and an ``HTTPHeadWatcher`` (after the request decoder), and tells the guard when a
/// graceful shutdown begins.
///
/// Hummingbird's own connection limit (`availableConnectionsDelegate`) stops accepting at the limit, so
/// further connections wait in the listen backlog with no answer; this one answers them with a 503.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        /// `nil` for a connection refused at the limit: it gets no HTTP pipeline.
        let inner: Inner.Value?
        let guardHandler: NIOLoopBound<ConnectionGuardHandler>
        let channel: any Channel
    }

    let inner: Inner
    let limits: ConnectionLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admitted = limits.counter.open() <= limits.maxConnections
        if !admitted { limits.counter.close() }
        let guardHandler = ConnectionGuardHandler(limits: limits, logger: logger, admitted: admitted)
        do {
            try channel.pipeline.syncOperations.addHandler(guardHandler, position: .first)
        } catch {
            if admitted { limits.counter.close() }
            return channel.eventLoop.makeFailedFuture(error)
        }
        let bound = NIOLoopBound(guardHandler, eventLoop: channel.eventLoop)
        guard admitted else { return channel.eventLoop.makeSucceededFuture(Value(inner: nil, guardHandler: bound, channel: channel)) }
        return inner.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(HTTPHeadWatcher(guardHandler: guardHandler), position: .after(decoder))
            return Value(inner: value, guardHandler: bound, channel: channel)
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        guard let innerValue = value.inner else { return }  // refused: the guard answers and closes it
        let channel = value.channel
        let guardHandler = value.guardHandler
        // Registered before the WebSocket layer registers its own handler, so ours runs first.
        await withGracefulShutdownHandler {
            await inner.handle(value: innerValue, logger: logger)
        } onGracefulShutdown: {
            channel.eventLoop.execute { guardHandler.value.beginShutdown() }
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with WebSocket upgrades through `webSocketRouter`, every connection guarded by `limits`.
    static func guardedHTTP1WebSocketUpgrade(
        webSocketRouter: Router<CollabRequestContext>, configuration: HTTP1WebSocketUpgradeChannel.Configuration, limits: ConnectionLimits
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            GuardedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                limits: limits
            )
        }
    }
}
