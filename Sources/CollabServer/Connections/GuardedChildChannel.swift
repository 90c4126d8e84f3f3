import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// A child channel that takes a ``ConnectionGuardHandler``: it puts the guard where it belongs in its
/// pipeline (first on plain connections, right after the TLS handler on encrypted ones) and tells it
/// when the first request arrives (``HTTPHeadWatcher``; over HTTP/2 the guard finds it itself) and, over
/// HTTP/2, when a GOAWAY goes out (``HTTP2ConnectionWatcher``).
protocol GuardableChildChannel: ServerChildChannel {
    /// Whether connections speak TLS: the guard then times the handshake, and refuses a connection
    /// beyond the limit by closing it.
    var speaksTLS: Bool { get }

    /// Sets the connection up with `guardHandler` in its pipeline.
    func setup(channel: any Channel, logger: Logger, guardHandler: ConnectionGuardHandler) -> EventLoopFuture<Value>
}

/// Wraps a child channel (Hummingbird's HTTP/1 + WebSocket, or ``TLSHTTPChannel``) with a
/// ``ConnectionGuardHandler`` and tells the guard when a graceful shutdown begins.
///
/// Hummingbird's own connection limit (`availableConnectionsDelegate`) stops accepting at the limit, so
/// further connections wait in the listen backlog with no answer; this one answers them with a 503.
struct GuardedChildChannel<Inner: GuardableChildChannel>: ServerChildChannel {
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
        let guardHandler = ConnectionGuardHandler(limits: limits, logger: logger, admitted: admitted, tls: inner.speaksTLS)
        let bound = NIOLoopBound(guardHandler, eventLoop: channel.eventLoop)
        guard admitted else {
            do {
                try channel.pipeline.syncOperations.addHandler(guardHandler, position: .first)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            return channel.eventLoop.makeSucceededFuture(Value(inner: nil, guardHandler: bound, channel: channel))
        }
        return inner.setup(channel: channel, logger: logger, guardHandler: guardHandler).assumeIsolated().map { value in
            Value(inner: value, guardHandler: bound, channel: channel)
        }.flatMapErrorThrowing { error in
            // The guard releases its count when it is removed with the pipeline; one never added never will.
            if (try? channel.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self)) == nil { limits.counter.close() }
            throw error
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

extension HTTP1WebSocketUpgradeChannel: GuardableChildChannel {
    var speaksTLS: Bool { false }

    /// The guard first, on raw bytes; the head watcher right after the request decoder.
    func setup(channel: any Channel, logger: Logger, guardHandler: ConnectionGuardHandler) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(guardHandler, position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            try HTTPHeadWatcher.install(on: channel, guardHandler: guardHandler)
            return value
        }.nonisolated()
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
